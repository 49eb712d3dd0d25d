"""An organiser's night with 20 tables (stop 64 audit, h8): the tournament page, standings, ChempiUNat's
progression, the scoreboards and their exports, as the tables of a real evening feed them.

Twenty group tables that finish at different times (one long after the others), the proposed seatings of the
semifinal and the consolation, the semifinal tables seated from them and the final's cut, ties at the cut settled
by the lot, the lot's settings (`?k=`, `?final_k=`, `?seed=`), a tied lowest-wins final, a table whose rig started a
second match, and a hand played after the match was won. Every number on `/api/tournament` is compared with the
replay of the table's own log. Findings 1-3 of the report (/tmp/lead/s64/h8_organiser.md: a lowest-wins match over
with no winner shown as won by seat 0; an earlier match's flag named after the new match's player in that seat; the
scoreboard CSV counting an earlier match's upheld flags) were fixed at stop 64, and their tests are plain tests now.

The texts that decide:
  CH-TABLE (000_*.txt): "Турнир пройдет в несколько этапов. Количество игроков за одним столом = 6 человек.
    1. Групповой турнир (состав участников за игровыми столами будет определен жеребьевкой). 2. Полуфинал (в него
    выйдут по 2 лучших игрока со стола) (или по 3 ...) 3. Финал." and "Чтобы выбывшие в первом круге игроки не
    скучали ... между ними будет проведен еще один утешительный турнир."
  README, "Running a tournament on several tables": "the top 2 of each finished group table go to the semifinal and
    the rest to the consolation tournament, then the top 2 of each semifinal table go to the final. Once every table
    of a stage has finished, the page proposes a seating for the next stage, at most 6 to a table, drawn by lot.
    `?k=3` takes the top 3 of each table (`?final_k=` does the same for the semifinal), and `?seed=` draws a
    different lot (the same seed always gives the same seating). Ties at the cut are settled by the same lot and
    listed, so organisers can overrule them."
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from functools import cache
from typing import Any

import pytest

from tracker.engine import replay
from tracker.log import event_to_dict, parse_event
from tracker.script import script
from tracker.simulate import SimConfig, simulate_match
from web.standings import progression, table_standings

OL_GOAL = ('OL-GOAL (003_*.txt): "The aim of the game is to have the lowest score when one of the player\'s score '
           'reaches 500 points." RULESETS.md OL-GOAL: "Lowest score wins when any player\'s score reaches 500." '
           'README: "Scores carry `over`: the match has ended, with a winner or level (OL-GOAL names no tie-break), '
           'and a lowest-wins match whose result depends on a hand nobody revealed names no winner (a warning)."')
SECOND_MATCH = ('README: "A second `match_start` on a table starts a new match and keeps the earlier match\'s flags '
                '(a referee may still rule on them; their cards are gone)." EVENTS.md: "Seats are numbered 0…n-1 '
                'clockwise round the table; seat numbers stay fixed for the match."')


# -- helpers -----------------------------------------------------------------------------------------------------------
@cache
def sim(seed: int, players: int = 6, ruleset: str = "chempiunat", rate: float = 0.02) -> tuple[dict[str, Any], ...]:
    """A whole match (it ends: somebody reaches the target)."""
    return tuple(event_to_dict(e) for e in simulate_match(
        SimConfig(ruleset=ruleset, players=players, seed=seed, rate=rate)).events)


def bodies(ruleset: str, steps: str, players: int, target: int | None = None,
           names: list[str] | None = None, t0: float = 0.0) -> list[dict[str, Any]]:
    out = [event_to_dict(e) for e in script(ruleset, steps, players=players, target=target)]
    if names is not None:
        out[0]["players"] = list(names)
    for b in out:
        b["t"] = round(b["t"] + t0, 3)
    return out


def named(events: Any, names: list[str]) -> list[dict[str, Any]]:
    out = [dict(e) for e in events]
    assert out[0]["type"] == "match_start" and len(out[0]["players"]) == len(names)
    out[0] = dict(out[0], players=list(names))
    return out


def feed(app: Any, table: str, events: Any) -> None:
    app.extensions["unotable"].live.post(table, [dict(e) for e in events])


def truth(events: Any) -> Any:
    return replay([parse_event(dict(e), i) for i, e in enumerate(events, 1)])


def tournament(c: Any, query: str = "") -> dict[str, Any]:
    r = c.get(f"/api/tournament{query}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def seated(rnd: dict[str, Any], key: str = "seatings") -> list[tuple[str, int]]:
    return [(p["from_table"], p["seat"]) for s in rnd[key] for p in s["players"]]


@pytest.fixture
def app(sqlite_app: Any) -> Any:
    return sqlite_app


# -- a night of 20 group tables ------------------------------------------------------------------------------------------
def test_twenty_group_tables_finishing_at_different_times_then_the_semifinal_and_the_final(app: Any, h: Any) -> None:
    """20 group tables of 6: 19 finish, the 20th plays on (no seating yet: "Once every table of a stage has finished,
    the page proposes a seating"), then it finishes: 40 semifinalists at 7 tables and 80 players at 14 consolation
    tables ("at most 6 to a table"), each the top 2 of their table by the table's own replay. The semifinal tables,
    seated as proposed, play; their top 2 go to the final (CH-TABLE: "Полуфинал ... Финал")."""
    names = [f"g{i:02d}" for i in range(1, 21)]
    logs = {name: named(sim(i), [f"{name}-P{s}" for s in range(6)]) for i, name in enumerate(names, start=1)}
    for name in names:
        h.add_table(app, name)
        feed(app, name, logs[name] if name != "g20" else logs[name][: len(logs[name]) // 3])
    c = app.test_client()
    d = tournament(c)
    semi = d["progression"]["semifinal"]
    assert semi["playing"] == ["g20"] and not semi["complete"] and semi["seatings"] == []
    assert len(semi["qualified"]) == 38 and any("g20" in n for n in semi["notes"])
    assert "Still playing: g20" in c.get("/tournament").text

    feed(app, "g20", logs["g20"][len(logs["g20"]) // 3:])
    d = tournament(c)
    semi = d["progression"]["semifinal"]
    assert semi["complete"] and len(semi["qualified"]) == 40 and len(semi["dropped"]) == 80
    assert [len(s["players"]) for s in semi["seatings"]] == [6, 6, 6, 6, 6, 5, 5]
    assert [len(s["players"]) for s in semi["dropped_seatings"]] == [6] * 10 + [5] * 4
    everybody = seated(semi) + seated(semi, "dropped_seatings")
    assert Counter(everybody) == Counter((n, s) for n in names for s in range(6))  # each player seated once
    assert not set(seated(semi)) & set(seated(semi, "dropped_seatings"))
    # every number is the table's own log replayed, and the progression is the one those standings give
    by_name = {t["name"]: t for t in d["tables"]}
    standings = []
    for name in names:
        r = truth(logs[name])
        t = by_name[name]
        assert t["status"] == "finished" and t["hand"] == r.state.hand and t["target"] == 500
        assert sorted((row["seat"], row["total"]) for row in t["standings"]) == list(enumerate(r.scores["totals"]))
        assert t["leader"]["seat"] == r.scores["winner"]
        assert t["open_flags"] == sum(1 for f in r.flags if f.status == "open")
        standings.append(table_standings(name, r.scores, list(r.state.players), "group"))
    assert d["progression"] == progression(standings, k=2, final_k=2, seed="0")
    # the same seed gives the same seating on every refresh, through the JSON and the page
    assert tournament(c)["progression"] == d["progression"] == tournament(c, "?seed=0")["progression"]
    body = c.get("/tournament/body").text
    for s in semi["seatings"] + semi["dropped_seatings"]:
        assert f'data-name="{s["name"]}"' in body
    k3 = tournament(c, "?k=3")["progression"]["semifinal"]
    assert len(k3["qualified"]) == 60 and [len(s["players"]) for s in k3["seatings"]] == [6] * 10

    # the semifinal tables, seated as proposed, play their matches
    for i, s in enumerate(semi["seatings"], start=1):
        h.add_table(app, f"s{i}", stage="semifinal")
        players = [p["player"] for p in s["players"]]
        feed(app, f"s{i}", named(sim(100 + i, players=len(players)), players))
    d = tournament(c)
    final = d["progression"]["final"]
    assert final["complete"] and len(final["qualified"]) == 14 and final["dropped_to"] is None
    assert [len(s["players"]) for s in final["seatings"]] == [5, 5, 4]
    assert any("the final has 14 players: 3 tables" in n for n in final["notes"])
    one = tournament(c, "?final_k=1")["progression"]["final"]
    assert [len(s["players"]) for s in one["seatings"]] == [4, 3]
    assert d["progression"]["semifinal"] == semi  # the semifinal tables change nothing of round 1


def test_the_scoreboard_csv_of_every_table_is_its_tournament_standing(app: Any, h: Any) -> None:
    """README: `/scoreboard/<table>` "hand by hand, totals, target, winner ... CSV export"; the tournament's
    standings of a table are the same totals (CH-GAME: the hand's winner scores the others' cards)."""
    for i in range(1, 7):
        h.add_table(app, f"g{i}")
        feed(app, f"g{i}", sim(i) if i % 2 else sim(i)[:200])
    c = app.test_client()
    for t in tournament(c)["tables"]:
        rows = list(csv.reader(io.StringIO(c.get(f"/scoreboard/{t['name']}.csv").text)))
        header, total = rows[0], next(r for r in rows if r[0] == "total")
        by_seat = {r["seat"]: r for r in t["standings"]}
        assert header[1:] == [by_seat[s]["player"] for s in range(6)]
        assert [int(v) for v in total[1:]] == [by_seat[s]["total"] for s in range(6)]
        winner = rows[-1][1] if len(rows[-1]) > 1 else ""
        assert winner == (t["leader"]["player"] if t["finished"] else "")


# -- ties at the cut -----------------------------------------------------------------------------------------------------
def _tie_table(app: Any, h: Any, name: str = "g1") -> None:
    """ChempiUNat, 4 seats, target 50: one hand; seat 0 goes out and scores 55; seats 1-3 scored nothing, level on 0."""
    h.add_table(app, name)
    feed(app, name, bodies("chempiunat", "H3; T red-5; ~6; P0 red-1; R1 wild; R2 red-2; R3 red-3", players=4,
                           target=50, names=["Anna", "Boris", "Vera", "Gleb"]))


def test_a_three_way_tie_at_the_cut_is_drawn_by_the_seeded_lot_and_listed(app: Any, h: Any) -> None:
    """README: "Ties at the cut are settled by the same lot and listed, so organisers can overrule them"; "the same
    seed always gives the same seating". CH-GAME: only the hand's winner scores, so a table's seats that never won a
    hand are level on 0 for the second place."""
    _tie_table(app, h)
    c = app.test_client()
    semi = tournament(c)["progression"]["semifinal"]
    assert [q["player"] for q in semi["qualified"]][0] == "Anna"
    [tie] = semi["ties"]
    assert tie["players"] == ["Boris", "Vera", "Gleb"] and tie["places"] == 1 and sorted(tie["drawn"]) == sorted(
        tie["players"])
    assert semi["qualified"][1]["player"] == tie["drawn"][0]
    assert sorted(d["player"] for d in semi["dropped"]) == sorted(tie["drawn"][1:])
    note = next(n for n in semi["notes"] if "drawn by lot" in n)
    assert note == f"g1: Boris, Vera, Gleb level on 0 points for 1 place(s); drawn by lot: {tie['drawn'][0]}"
    assert html.escape(note) in c.get("/tournament").text
    assert tournament(c)["progression"] == tournament(c, "?seed=0")["progression"]  # the lot is fixed by its seed
    picks = {tournament(c, f"?seed=night-{i}")["progression"]["semifinal"]["qualified"][1]["player"] for i in range(12)}
    assert len(picks) > 1  # another seed, another draw: a lot, not a rule
    k3 = tournament(c, "?k=3")["progression"]["semifinal"]
    assert k3["ties"][0]["places"] == 2 and len(k3["qualified"]) == 3 and len(k3["dropped"]) == 1


@pytest.mark.parametrize(("query", "problem"), [
    ("?seed=%00", "bad seed"), ("?seed=a%0Ab", "bad seed"), ("?k=%20", "bad k"), ("?k=3.0", "bad k '3.0'"),
    ("?final_k=1e1", "bad final_k"), ("?final_k=-1", "bad final_k -1"), ("?k=0x2", "bad k"),
])
def test_more_bad_lot_settings_are_refused_naming_them(app: Any, query: str, problem: str) -> None:
    """README: `?k=3` "takes the top 3 of each table", `?seed=` "draws a different lot": a setting that is not a
    number of qualifiers or a printable seed is refused, never read as something else."""
    r = app.test_client().get(f"/api/tournament{query}")
    assert r.status_code == 400 and problem in r.get_json()["error"], r.get_json()


def test_an_empty_seed_is_the_default_lot(app: Any, h: Any) -> None:
    _tie_table(app, h)
    c = app.test_client()
    assert tournament(c, "?seed=")["progression"] == tournament(c)["progression"] == tournament(
        c, "?seed=0")["progression"]


# -- a lowest-wins final that ends level, or whose winner can't be told ----------------------------------------------------
OLYMPIC_LEVEL = {
    "tie": "H2; T red-5; ~6; P0 red-1; R1 red-0; R2 wild",  # seats 0 and 1 level on 0 when seat 2 reaches 50
    "unrevealed": "H2; T red-5; ~6; P0 red-1; R2 wild; H0",  # seat 1's hand never shown: its points decide it
}


@pytest.mark.parametrize("case", list(OLYMPIC_LEVEL))
def test_a_lowest_wins_final_over_with_no_winner_is_finished_and_its_totals_are_replays(
        app: Any, h: Any, case: str) -> None:
    """The match is over (a seat reached the target) and the engine names no winner; the tournament shows it
    finished with the replay's totals, the two level seats sharing first place."""
    h.add_table(app, "f1", stage="final")
    log = bodies("olympic", OLYMPIC_LEVEL[case], players=3, target=50, names=["Anna", "Boris", "Vera"])
    feed(app, "f1", log)
    r = truth(log)
    assert r.scores["over"] and r.scores["winner"] is None
    t = tournament(app.test_client())["tables"][0]
    assert t["status"] == "finished" and t["lowest_wins"]
    assert [(row["player"], row["total"], row["rank"], row["winner"]) for row in t["standings"]] == [
        ("Anna", 0, 1, False), ("Boris", 0, 1, False), ("Vera", 50, 3, False)]


@pytest.mark.parametrize("case", list(OLYMPIC_LEVEL))
def test_a_lowest_wins_final_over_with_no_winner_crowns_nobody(app: Any, h: Any, case: str) -> None:
    """OL-GOAL names no tie-break; README: "a lowest-wins match whose result depends on a hand nobody revealed names
    no winner", and the scoreboard says "Match over: a tie (the rules name no tie-break)" / the CSV "none: the match
    is over, level (no tie-break)". The tournament page must not call seat 0 (first only by seat number among the
    level seats, or by the points counted without the hand nobody saw) the winner, nor crown it champion of the
    final. OL-GOAL: "The aim of the game is to have the lowest score when one of the player's score reaches
    500 points" (the full quotes: OL_GOAL above)."""
    h.add_table(app, "f1", stage="final")
    feed(app, "f1", bodies("olympic", OLYMPIC_LEVEL[case], players=3, target=50, names=["Anna", "Boris", "Vera"]))
    c = app.test_client()
    csv_winner = list(csv.reader(io.StringIO(c.get("/scoreboard/f1.csv").text)))[-1]
    assert csv_winner == ["winner", "none: the match is over, level (no tie-break)"]  # the scoreboard: nobody
    champions = tournament(c)["progression"]["champions"]["final"]
    assert [ch["player"] for ch in champions] != ["Anna"], champions
    page = c.get("/tournament").text
    assert "Winner: <b>Anna</b>" not in page
    assert not re.search(r'class="champion" data-stage="final">[^<]*<b>Anna</b>', page)


# -- a second match on a table --------------------------------------------------------------------------------------------
def _restarted(app: Any, h: Any) -> Any:
    """Match 1 (Mattel, Anna, Boris, Vera, Gleb): Anna comes down to one card without "UNO" (a flag on seat 0,
    line 24); then the rig starts match 2 with four other players."""
    h.add_table(app, "g1")
    m1 = bodies("mattel", "H3; T red-5; ~5; P0 red-1; P1 red-2", players=4, names=["Anna", "Boris", "Vera", "Gleb"])
    m2 = bodies("mattel", "H3; T blue-5; P0 blue-6", players=4, names=["Xenia", "Yuri", "Zoya", "Oleg"],
                t0=m1[-1]["t"] + 60)
    feed(app, "g1", m1 + m2)
    assert [f.id for f in truth(m1 + m2).flags] == ["24-missed_uno-0"]
    return app.test_client()


def test_a_second_match_on_a_table_shows_its_own_standings_and_keeps_the_first_matchs_flag(app: Any, h: Any) -> None:
    """README: a second match_start "starts a new match and keeps the earlier match's flags" (SECOND_MATCH above):
    the table's standings are the new match's, and the first match's open flag is still listed."""
    c = _restarted(app, h)
    d = tournament(c)
    t = d["tables"][0]
    assert t["status"] == "playing" and t["players"] == ["Xenia", "Yuri", "Zoya", "Oleg"] and t["hand"] == 1
    assert [row["total"] for row in t["standings"]] == [0, 0, 0, 0]
    assert t["open_flags"] == 1 and d["open_flags"]["count"] == 1
    assert d["open_flags"]["newest"][0]["id"] == "24-missed_uno-0"
    assert d["open_flags"]["newest"][0]["message"].startswith("Anna (seat 0)")


def test_the_newest_flags_name_the_player_of_the_match_the_flag_was_raised_in(app: Any, h: Any) -> None:
    """The flag is Anna's (seat 0 of match 1; its message says so); Xenia sits in seat 0 of match 2 and made no
    mistake. The organiser's list of newest open flags must not name Xenia. EVENTS.md: "seat numbers stay fixed
    for the match"; README: a second match_start "keeps the earlier match's flags" (SECOND_MATCH above)."""
    c = _restarted(app, h)
    [f] = tournament(c)["open_flags"]["newest"]
    assert f["player"] in ("Anna", None), f
    row = re.search(r'<tr data-table="g1" data-flag="24-missed_uno-0">.*?</tr>', c.get("/tournament").text, re.S)
    assert row is not None and "<td>Xenia</td>" not in row.group(0)


def test_the_scoreboard_csv_counts_only_this_matchs_upheld_flags_for_its_players(app: Any, h: Any) -> None:
    """The CSV is the current match's sheet (its header names match 2's players, its hands and totals are match 2's);
    the upheld missed UNO was Anna's, in match 1, so Xenia's 'flags upheld' cell is 0. EVENTS.md: "seat numbers stay fixed for the
    match"; README: a second match_start "keeps the earlier match's flags" (SECOND_MATCH above)."""
    c = _restarted(app, h)
    app.extensions["unotable"].live.rule("g1", "24-missed_uno-0", "upheld", "ref")
    rows = list(csv.reader(io.StringIO(c.get("/scoreboard/g1.csv").text)))
    assert rows[0] == ["hand", "Xenia", "Yuri", "Zoya", "Oleg"]
    upheld = next(r for r in rows if r[0] == "flags upheld")
    assert upheld == ["flags upheld", "0", "0", "0", "0"], upheld


# -- a hand played after the match was won -----------------------------------------------------------------------------------
def test_a_hand_played_after_the_match_was_won_changes_no_standing(app: Any, h: Any) -> None:
    """README: "a hand played after the match was won (its flags stand, its points don't count)". CH-GAME: "the first
    to 500 wins": the table stays finished with its winner, and the qualifiers stay the same."""
    h.add_table(app, "g1")
    log = list(sim(3))
    feed(app, "g1", log)
    c = app.test_client()
    before = tournament(c)
    extra = bodies("chempiunat", "H0; T blue-5; P1 blue-6; P2 blue-7; H1", players=6, t0=log[-1]["t"] + 30)[1:]
    feed(app, "g1", extra)
    after = tournament(c)
    r = truth(log + extra)
    t = after["tables"][0]
    assert t["status"] == "finished" and t["hand"] == r.state.hand == before["tables"][0]["hand"] + 2
    assert t["standings"] == before["tables"][0]["standings"]
    assert after["progression"]["semifinal"]["qualified"] == before["progression"]["semifinal"]["qualified"]
    assert any("played after the match was won" in w for w in r.state.warnings)
