"""Standings and ChempiUNat's progression (web/standings.py) as tables of cases: pure functions, no app."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from web.standings import (
    STAGES,
    Standing,
    TableStandings,
    advance,
    check_stage,
    cut,
    progression,
    seat_by_lot,
    table_standings,
)

NAMES = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor"]


def scores(totals: list[int], winner: int | None = None, lowest: bool = False, hands: int = 3) -> dict[str, Any]:
    return {"hands": [[0] * len(totals)] * hands, "totals": totals, "winner": winner, "target": 500,
            "lowest_wins": lowest}


# (case, totals, winner, lowest_wins, seats in order, ranks, status)
STANDINGS = [
    ("highest wins, finished", [126, 0, 0, 340, 415, 728], 5, False, [5, 4, 3, 0, 1, 2], [1, 2, 3, 4, 5, 5], "finished"),
    ("Olympic lowest wins, finished", [524, 126, 430, 372], 1, True, [1, 3, 2, 0], [1, 2, 3, 4], "finished"),
    ("highest, playing, tie at the top", [100, 100, 50], None, False, [0, 1, 2], [1, 1, 3], "playing"),
    ("lowest, playing, tie in the middle", [10, 30, 10, 0], None, True, [3, 0, 2, 1], [1, 2, 2, 4], "playing"),
    ("winner level with another: the winner alone first", [50, 50, 80], 1, True, [1, 0, 2], [1, 2, 3], "finished"),
    ("three-way tie below the winner", [600, 10, 10, 10], 0, False, [0, 1, 2, 3], [1, 2, 2, 2], "finished"),
    ("all level, nothing scored", [0, 0, 0], None, False, [0, 1, 2], [1, 1, 1], "playing"),
]


@pytest.mark.parametrize(("case", "totals", "winner", "lowest", "order", "ranks", "status"), STANDINGS,
                         ids=[c[0] for c in STANDINGS])
def test_table_standings(case: str, totals: list[int], winner: int | None, lowest: bool, order: list[int],
                         ranks: list[int], status: str) -> None:
    st = table_standings("g1", scores(totals, winner, lowest), NAMES[:len(totals)])
    assert [r.seat for r in st.rows] == order
    assert [r.rank for r in st.rows] == ranks
    assert [r.player for r in st.rows] == [NAMES[s] for s in order]
    assert [r.total for r in st.rows] == [totals[s] for s in order]
    assert st.status == status and st.finished == (winner is not None)
    assert st.leader is not None and st.leader.seat == order[0]
    assert [r.winner for r in st.rows] == [s == winner for s in order]


def test_a_table_before_its_match_and_before_its_first_hand() -> None:
    empty = table_standings("g1", {"hands": [], "totals": [], "winner": None, "target": 500}, [])
    assert empty.rows == () and empty.status == "not started" and empty.leader is None and not empty.finished
    dealt = table_standings("g1", scores([0, 0, 0], hands=0), NAMES[:3])
    assert dealt.status == "playing" and dealt.leader is None  # nobody leads before a hand is scored
    assert dealt.to_dict()["leader"] is None and dealt.to_dict()["status"] == "playing"


def test_seats_without_a_name_and_bad_winners() -> None:
    st = table_standings("g1", scores([5, 9, 7]), ["Anna"])
    assert [r.player for r in st.rows] == ["seat 1", "seat 2", "Anna"]
    for bad in (7, -1, True, "2"):
        assert not table_standings("g1", scores([5, 9], winner=bad), NAMES[:2]).finished  # type: ignore[arg-type]


@pytest.mark.parametrize(("stage", "expected"), [(None, "group"), *((s, s) for s in STAGES)])
def test_check_stage(stage: str | None, expected: str) -> None:
    assert check_stage(stage) == expected


@pytest.mark.parametrize("bad", ["", "Final", "quarterfinal", "group "])
def test_a_bad_stage_names_the_choices(bad: str) -> None:
    with pytest.raises(ValueError, match="expected one of group, semifinal, final, consolation"):
        check_stage(bad)


# -- the cut -------------------------------------------------------------------------------------------------
# (case, totals, winner, k, seats surely through, seats level at the cut (one of them drawn), places drawn)
CUTS = [
    ("clear top 2", [126, 0, 0, 340, 415, 728], 5, 2, [5, 4], [], 0),
    ("clear top 3", [126, 0, 0, 340, 415, 728], 5, 3, [5, 4, 3], [], 0),
    ("zeros level below the cut", [500, 300, 0, 0, 0, 0], 0, 2, [0, 1], [], 0),
    ("two level for the last place", [500, 200, 200, 100], 0, 2, [0], [1, 2], 1),
    ("three level for two places", [510, 90, 90, 90, 10, 0], 0, 3, [0], [1, 2, 3], 2),
    ("level pair wholly above the cut", [500, 200, 200, 100], 0, 3, [0, 1, 2], [], 0),
    ("k=1: the winner alone", [500, 480, 480], 0, 1, [0], [], 0),
    ("Olympic, lowest first", [524, 126, 430, 372], 1, 2, [1, 3], [], 0),
]


@pytest.mark.parametrize(("case", "totals", "winner", "k", "sure", "level", "places"), CUTS, ids=[c[0] for c in CUTS])
def test_cut(case: str, totals: list[int], winner: int, k: int, sure: list[int], level: list[int], places: int) -> None:
    lowest = case.startswith("Olympic")
    st = table_standings("g1", scores(totals, winner, lowest), NAMES[:len(totals)])
    top, rest, tie = cut(st, k, seed=0)
    assert len(top) == k and len(top) + len(rest) == len(totals)
    top_seats = {r.seat for r in top}
    assert set(sure) <= top_seats
    if level:
        assert tie is not None and tie.places == places and tie.players == tuple(NAMES[s] for s in level)
        assert len(top_seats & set(level)) == places
        assert [NAMES[s] for s in level if s in top_seats] == sorted(tie.drawn[:places], key=NAMES.index)
    else:
        assert tie is None and top_seats == set(sure)


def test_the_lot_at_the_cut_is_fixed_by_its_seed_and_can_fall_either_way() -> None:
    st = table_standings("g1", scores([500, 200, 200, 100], 0), NAMES[:4])
    picks = {seed: cut(st, 2, seed)[0][1].seat for seed in range(40)}
    assert all(cut(st, 2, seed)[0][1].seat == picks[seed] for seed in range(40))  # same seed, same draw
    assert set(picks.values()) == {1, 2}  # a lot, not a rule that favours a seat


def test_a_table_smaller_than_the_cut_sends_everybody_through() -> None:
    st = table_standings("g1", scores([500, 10], 0), NAMES[:2])
    rnd = advance([st], "group", "semifinal", 3)
    assert len(rnd.qualified) == 2 and not rnd.dropped and any("only 2 players" in n for n in rnd.notes)


# -- seating by lot ------------------------------------------------------------------------------------------
def players(n: int) -> list[Standing]:
    return [Standing(f"g{i // 6 + 1:02d}", i % 6, f"P{i}", 0, 1) for i in range(n)]


# (players, tables, sizes)
SEATINGS = [(0, 0, []), (1, 1, [1]), (5, 1, [5]), (6, 1, [6]), (7, 2, [4, 3]), (8, 2, [4, 4]), (12, 2, [6, 6]),
            (13, 3, [5, 4, 4]), (16, 3, [6, 5, 5]), (40, 7, [6, 6, 6, 6, 6, 5, 5]), (80, 14, [6] * 10 + [5] * 4)]


@pytest.mark.parametrize(("n", "n_tables", "sizes"), SEATINGS, ids=[f"{s[0]} players" for s in SEATINGS])
def test_seat_by_lot(n: int, n_tables: int, sizes: list[int]) -> None:
    pool = players(n)
    seating = seat_by_lot(pool, seed=7, stage="semifinal")
    assert len(seating) == n_tables and [len(t) for t in seating] == sizes
    assert Counter(p.player for t in seating for p in t) == Counter(p.player for p in pool)  # each once
    shuffled = list(pool)
    random.Random(1).shuffle(shuffled)
    assert seat_by_lot(shuffled, seed=7, stage="semifinal") == seating  # the input's order doesn't matter


def test_the_seating_lot_depends_on_the_seed_and_the_stage() -> None:
    pool = players(24)
    draws = {tuple(tuple(p.player for p in t) for t in seat_by_lot(pool, seed, "semifinal")) for seed in range(6)}
    assert len(draws) > 1
    assert seat_by_lot(pool, 3, "semifinal") != seat_by_lot(pool, 3, "consolation")
    with pytest.raises(ValueError, match="bad table size 1"):
        seat_by_lot(pool, 0, "final", size=1)


# -- the rounds ----------------------------------------------------------------------------------------------
def group_table(name: str, totals: list[int], winner: int | None, stage: str = "group") -> TableStandings:
    return table_standings(name, scores(totals, winner), NAMES[:len(totals)], stage)


def finished_groups(n: int, stage: str = "group") -> list[TableStandings]:
    rng = random.Random(n)
    out = []
    for i in range(n):
        totals = [rng.randrange(0, 499) for _ in range(6)]
        w = rng.randrange(6)
        totals[w] = 500 + rng.randrange(200)
        out.append(group_table(f"{stage[0]}{i + 1:02d}", totals, w, stage))
    return out


@pytest.mark.parametrize(("tables", "k", "semi_sizes", "consolation_sizes"), [
    (4, 2, [4, 4], [6, 5, 5]),
    (4, 3, [6, 6], [6, 6]),
    (20, 2, [6, 6, 6, 6, 6, 5, 5], [6] * 10 + [5] * 4),
    (1, 2, [2], [4]),
])
def test_round_one_when_every_group_table_has_finished(
    tables: int, k: int, semi_sizes: list[int], consolation_sizes: list[int]
) -> None:
    groups = finished_groups(tables)
    rnd = advance(groups, "group", "semifinal", k, seed=5, dropped_to="consolation")
    assert rnd.complete and rnd.playing == () and len(rnd.finished_tables) == tables
    assert len(rnd.qualified) == k * tables and len(rnd.dropped) == (6 - k) * tables
    for st in groups:  # the top k of every table, its winner among them
        through = [q for q in rnd.qualified if q.table == st.table]
        assert {q.seat for q in through} == {r.seat for r in st.rows[:k]}
        assert any(q.winner for q in through)
    assert [len(s) for s in rnd.seatings] == semi_sizes
    assert [len(s) for s in rnd.dropped_seatings] == consolation_sizes
    seated = [(p.table, p.seat) for s in rnd.seatings + rnd.dropped_seatings for p in s]
    assert len(seated) == len(set(seated)) == 6 * tables  # everybody seated once, in one bracket or the other
    again = advance(list(reversed(groups)), "group", "semifinal", k, seed=5, dropped_to="consolation")
    assert again.seatings == rnd.seatings and again.dropped_seatings == rnd.dropped_seatings


def test_only_finished_tables_feed_the_next_stage() -> None:
    groups = finished_groups(3)
    playing = group_table("g99", [120, 40, 0, 0, 0, 0], None)
    waiting = table_standings("g00", {"hands": [], "totals": [], "winner": None}, [], "group")
    semis = finished_groups(2, "semifinal")
    rnd = advance([*groups, playing, waiting, *semis], "group", "semifinal", 2, dropped_to="consolation")
    assert not rnd.complete and rnd.playing == ("g00", "g99")
    assert {q.table for q in rnd.qualified} == {g.table for g in groups}  # not g99's leader, no semifinal table
    assert rnd.seatings == () and rnd.dropped_seatings == ()
    assert any("g00, g99" in n for n in rnd.notes)
    d = rnd.to_dict()
    assert d["complete"] is False and d["playing"] == ["g00", "g99"] and len(d["qualified"]) == 6


def test_no_table_of_the_stage_yet() -> None:
    rnd = advance([], "semifinal", "final", 2)
    assert not rnd.complete and rnd.qualified == () and rnd.seatings == ()


@pytest.mark.parametrize("k", [0, 6, -1])
def test_a_bad_cut_is_refused(k: int) -> None:
    with pytest.raises(ValueError, match="bad number of qualifiers per table"):
        advance(finished_groups(2), "group", "semifinal", k)


def test_progression_to_the_final_and_the_champions() -> None:
    groups = finished_groups(4)
    semis = [group_table("s1", [510, 100, 300, 20], 0, "semifinal"), group_table("s2", [30, 260, 90, 505], 3, "semifinal")]
    final = group_table("f1", [120, 560, 80, 300], 1, "final")
    consolation = [group_table("c1", [0, 500, 1, 2, 3, 4], 1, "consolation"),
                   group_table("c2", [5, 6, 7, 8, 9], None, "consolation")]
    out = progression([*groups, *semis, final, *consolation], k=2, final_k=2, seed="cup")
    assert out["semifinal"]["complete"] and len(out["semifinal"]["seatings"]) == 2
    fin = out["final"]
    assert fin["complete"] and fin["dropped_to"] is None and fin["dropped_seatings"] == []
    assert [(q["table"], q["player"]) for q in fin["qualified"]] == [("s1", "Anna"), ("s1", "Vera"),
                                                                     ("s2", "Gleb"), ("s2", "Boris")]
    assert [s["name"] for s in fin["seatings"]] == ["final-1"] and len(fin["seatings"][0]["players"]) == 4
    assert out["champions"] == {"final": [{"table": "f1", "player": "Boris", "total": 560}],
                                "consolation": [{"table": "c1", "player": "Boris", "total": 500}]}


def test_a_final_too_big_for_one_table_says_so() -> None:
    semis = finished_groups(4, "semifinal")
    rnd = advance(semis, "semifinal", "final", 2)
    assert len(rnd.seatings) == 2 and any("the final has 8 players" in n for n in rnd.notes)
