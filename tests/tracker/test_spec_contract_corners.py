"""EVENTS.md as a contract, read through `unotable replay` and the log reader (stop 64's audit, theme h2).

Other tools read and write these logs, so every sentence of shared/spec/EVENTS.md is a promise: the format (JSON
Lines, UTF-8, one object a line), the fields and their defaults, extra fields ignored, unknown types refused naming
the line, the flags' fields, `replay`'s output and exit codes, and what `ruling` and `correction` events do. The
README's "How the engine reads a log" and "`unotable replay` refuses ..." paragraphs document the choices made where
EVENTS.md is silent. Where the code was wrong the test names its finding (stop 64's audit, h2_contract.md); all
five are fixed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracker.clauses import all_clauses
from tracker.engine import replay
from tracker.log import LogError, parse_event, parse_line, read_log, write_log
from tracker.ruleset import FLAG_CODES
from tracker.script import script
from tracker.simulate import MISTAKES, SimConfig, simulate_match

CLI = [sys.executable, "-m", "unotable.cli"]
EVENTS_CODES = (  # EVENTS.md's table of codes
    "illegal_card", "out_of_turn", "illegal_jump_in", "illegal_stack", "too_many_cards", "wrong_draw", "missed_uno",
    "early_uno", "illegal_wild_draw4", "failed_challenge", "no_color", "turn_timeout", "bad_starter",
    "count_mismatch",
)
README_EXTENSIONS = ("no_target", "wrong_dealer")  # README: "Flags beyond EVENTS.md's list (an extension ...)"

START = '{"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob", "Cy"]}'
DEAL = '{"t": 1, "type": "hand_start", "dealer": 2}'
TURN = '{"t": 2, "type": "starter", "card": "red-5"}'
BAD_PLAY = '{"t": 3, "type": "play", "seat": 0, "cards": ["blue-9"]}'  # blue-9 on red-5: illegal_card (MA-MATCH)


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def _raw(tmp_path: Path, data: str | bytes, name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def _lines(objs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)


def _clause_ids() -> set[str]:
    """The clause ids of shared/rules/RULESETS.md, as the project carries them (tracker/rulesets/clauses.toml: a
    clone or CI checkout has no shared/ beside it)."""
    return set(all_clauses())


def _refused(out: subprocess.CompletedProcess[str], line: int) -> None:
    """README: "`unotable replay` refuses a log it can't read (exit 2, the line and what is wrong on standard
    error)"; EVENTS.md: "A log that can't be read exits non-zero with a message naming the line"."""
    assert out.returncode == 2, (out.returncode, out.stderr[-600:])
    assert out.stdout == ""
    assert f"line {line}:" in out.stderr and "Traceback" not in out.stderr


# -- the format: JSON Lines as other tools write it -----------------------------------------------------------------
def test_crlf_blank_lines_and_a_last_line_without_newline_keep_the_editors_line_numbers(tmp_path: Path) -> None:
    """EVENTS.md: "JSON Lines: one JSON object a line"; a flag's `line` is "the 1-based log line of the event that
    caused it". A log saved on Windows (CRLF), with blank lines, and no newline after its last line: the flag points
    at the line an editor shows (log.py: blank lines "still counted, so line numbers match an editor's")."""
    text = "\r\n".join([START, "", DEAL, "   ", TURN, "", BAD_PLAY])  # the play is on line 7, no final newline
    out = run("replay", str(_raw(tmp_path, text)))
    assert out.returncode == 0, out.stderr
    (flag,) = [json.loads(x) for x in out.stdout.splitlines()]
    assert (flag["id"], flag["line"], flag["code"], flag["rule"]) == ("7-illegal_card-0", 7, "illegal_card", "MA-MATCH")


def test_a_byte_order_mark_is_read_or_refused_naming_line_1_never_a_crash(tmp_path: Path) -> None:
    """EVENTS.md: "JSON Lines ... UTF-8." RFC 8259 lets a parser either ignore a leading byte-order mark or refuse it,
    so either answer keeps the contract, as long as a refusal names the line (EVENTS.md: "exits non-zero with a
    message naming the line and what is wrong with it"). (A Windows editor writes one; ruleset files accept it.)"""
    out = run("replay", str(_raw(tmp_path, ("\ufeff" + "\n".join([START, DEAL, TURN, BAD_PLAY]) + "\n").encode())))
    if out.returncode == 0:
        assert [json.loads(x)["id"] for x in out.stdout.splitlines()] == ["4-illegal_card-0"]
    else:
        _refused(out, 1)
        assert "BOM" in out.stderr or "byte-order" in out.stderr or "byte order" in out.stderr


@pytest.mark.parametrize("line", ["5", '"play"', "null", "true", "[]", '[{"t": 3, "type": "uno", "seat": 0}]'])
def test_a_line_that_is_not_an_object_is_refused_naming_it(tmp_path: Path, line: str) -> None:
    """EVENTS.md: "one JSON object a line". A bare number, string, null, bool or array (even an array holding an
    event) is not an event: refused, naming line 4."""
    _refused(run("replay", str(_raw(tmp_path, "\n".join([START, DEAL, TURN, line]) + "\n"))), 4)


def test_a_huge_integer_anywhere_is_refused_naming_the_line(tmp_path: Path) -> None:
    """EVENTS.md: "A log that can't be read exits non-zero with a message naming the line and what is wrong with
    it"; README: "refuses a log it can't read (exit 2, the line and what is wrong on standard error)". Python's json
    refuses integers of more than 4,300 digits with a ValueError, which the reader does not catch (a 400-digit `t`
    is refused properly: test_commands.py)."""
    big = "9" * 5000
    for bad in ('{"t": 3, "type": "uno", "seat": 0, "rig_seq": ' + big + "}", '{"t": ' + big + ', "type": "uno"}'):
        _refused(run("replay", str(_raw(tmp_path, "\n".join([START, DEAL, TURN, bad]) + "\n"))), 4)


# -- fields: types, defaults, extras ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("obj", "words"),
    [
        ({"type": "play", "seat": True, "cards": ["red-7"]}, "'seat' must be a seat number"),  # a bool is not a seat
        ({"type": "play", "seat": 1.0, "cards": ["red-7"]}, "'seat' must be a seat number"),  # nor a float
        ({"type": "play", "seat": "1", "cards": ["red-7"]}, "'seat' must be a seat number"),  # nor text
        ({"type": "play", "seat": 1, "cards": "red-7"}, "non-empty list"),  # cards as a string, not a list
        ({"type": "play", "seat": 1, "cards": [7]}, "unknown card 7"),
        ({"type": "play", "seat": 1, "cards": ["Red-7"]}, "unknown card 'Red-7'"),
        ({"type": "draw", "seat": 1, "count": -1}, "'count' must be"),
        ({"type": "draw", "seat": 1, "count": 2.0}, "'count' must be"),
        ({"type": "draw", "seat": 1, "count": "2"}, "'count' must be"),
        ({"type": "draw", "seat": 1, "count": True}, "'count' must be"),
        ({"type": "draw", "count": 1}, "needs a 'seat' field"),
        ({"type": "challenge", "seat": None}, "not null"),
        ({"type": "reveal", "seat": 1, "cards": "red-7"}, "needs 'cards'"),
        ({"type": "starter", "cards": ["red-7"]}, "needs a 'card'"),
        ({"type": "uno", "seat": 1, "confidence": True}, "'confidence' must be"),
        ({"type": "uno", "seat": 1, "confidence": "0.9"}, "'confidence' must be"),
        ({"type": "uno", "seat": 1, "confidence": 1.01}, "'confidence' must be"),
        ({"type": "uno", "seat": 1, "source": "camera"}, "unknown source 'camera'"),
        ({"type": "ruling", "flag": 4, "decision": "upheld"}, "needs 'flag'"),
        ({"type": "ruling", "flag": "4-illegal_card-0", "decision": "Dismissed"}, "'upheld' or 'dismissed'"),
        ({"type": "ruling", "flag": "4-illegal_card-0", "decision": "upheld", "note": 5}, "'note' must be text"),
        ({"type": "correction", "line": "2", "event": None}, "correction needs 'line'"),
        ({"type": "correction", "line": True, "event": None}, "correction needs 'line'"),
        ({"type": "correction", "line": 0, "event": None}, "correction needs 'line'"),
        ({"type": "correction", "line": 9, "event": None}, "only correct an earlier line"),  # this very line
        ({"type": "correction", "line": 12, "event": None}, "only correct an earlier line"),  # beyond the log
        ({"type": "correction", "line": 2}, "correction needs 'event'"),
        ({"type": "correction", "line": 2, "event": []}, "must be a JSON object"),
        ({"type": "correction", "line": 2, "event": {"t": 1, "type": "hand_over"}}, "unknown event type"),
        ({"type": "correction", "line": 2, "event": {"t": 1, "type": "correction", "line": 1, "event": None}},
         "can't replace an event with another"),
        ({"type": "match_start", "ruleset": "mattel", "players": ["A", 2]}, "names (strings)"),
    ],
)
def test_a_field_of_the_wrong_kind_is_refused_naming_the_line(obj: dict[str, Any], words: str) -> None:
    """EVENTS.md's event table: seats are numbers 0..n-1, `cards` a list of card codes ("one or more" for a play),
    `count` a number of cards, `confidence` "0-1", `source` one of four, a ruling's `decision` "upheld or dismissed",
    a correction's `line` "1-based line of the event corrected" (an earlier one) and `event` "the corrected event, or
    null". Each wrong kind is refused with the line it is on (here line 9)."""
    with pytest.raises(LogError) as err:
        parse_line(json.dumps({"t": 3, **obj}), 9)
    assert err.value.line == 9 and str(err.value).startswith("line 9: ")
    assert words in err.value.reason


def test_defaults_are_the_spec_s_source_manual_and_draw_count_1(tmp_path: Path) -> None:
    """EVENTS.md: `source` "optional: vision, speech, referee or manual (the default)"; `draw`: "`count` (default
    1)". A log that spells the defaults out replays to the very same output as one that leaves them out."""
    ev = parse_event({"t": 1, "type": "draw", "seat": 2}, 5)
    assert (ev.source, ev.count, ev.confidence) == ("manual", 1, None)  # type: ignore[attr-defined]
    steps = "H2; T red-5; D0; D0; P1 blue-9"  # seat 0 draws twice in its turn; seat 1 lays an illegal card
    plain = script("mattel", steps, players=3)
    write_log(tmp_path / "a.jsonl", plain)
    spelled = []
    for e in plain:
        d = _dict(e)
        d.setdefault("source", "manual")
        if d["type"] == "draw":
            d.setdefault("count", 1)
        spelled.append(d)
    (tmp_path / "b.jsonl").write_text(_lines(spelled), encoding="utf-8")
    a, b = run("replay", str(tmp_path / "a.jsonl"), "--json"), run("replay", str(tmp_path / "b.jsonl"), "--json")
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout
    assert [f["code"] for f in json.loads(a.stdout)["flags"]] == ["wrong_draw", "illegal_card"]


def _dict(e: Any) -> dict[str, Any]:
    from tracker.log import event_to_dict

    return event_to_dict(e)


def test_extra_fields_of_every_kind_change_nothing(tmp_path: Path) -> None:
    """EVENTS.md: "Extra fields and extra event types are allowed; a reader ignores fields it doesn't know". Fields
    that another event type knows (`count` on a play, `dealer` on a draw, `line`/`event` on a play, `players` on an
    UNO call) and nested values are ignored where the type doesn't know them: the flags are byte for byte the same."""
    events = script("olympic", "H3; T red-5; P0 red-7; P2 red-8; P1 blue-9; D2; S2; U3; C3 red; P3 red-2; P0 red-draw2; "
                               "D1 1; P2 red-3", players=4)
    write_log(tmp_path / "plain.jsonl", events)
    extras = {"count": "many", "dealer": [1], "line": 1, "event": None, "players": 3, "ruleset": {"x": 1},
              "flag": 0, "decision": "yes", "note": None, "rig": "hall-1", "rig_seq": 10**30, "box": [[0.5, 1], {}]}
    from tracker.log import _KNOWN

    noisy = []
    for e in events:
        d = _dict(e)
        d.update({k: v for k, v in extras.items() if k not in _KNOWN[d["type"]]})
        noisy.append(d)
    (tmp_path / "noisy.jsonl").write_text(_lines(noisy), encoding="utf-8")
    a, b = run("replay", str(tmp_path / "plain.jsonl")), run("replay", str(tmp_path / "noisy.jsonl"))
    assert a.returncode == b.returncode == 0, b.stderr
    assert a.stdout == b.stdout and a.stdout.count("\n") >= 3


# -- flags' fields and ids ------------------------------------------------------------------------------------------
def _sim_logs(tmp_path: Path) -> list[Path]:
    paths = []
    for i, rs in enumerate(("chempiunat", "falsonal", "mattel", "olympic")):
        sim = simulate_match(SimConfig(ruleset=rs, players=3 + i % 3, seed=640 + i, mistakes=MISTAKES, rate=0.1,
                                       max_hands=2))
        path = tmp_path / f"{rs}.jsonl"
        write_log(path, sim.events)
        paths.append(path)
    return paths


def test_every_flag_carries_the_spec_s_fields_on_both_outputs(tmp_path: Path) -> None:
    """EVENTS.md, "Flags": `id` "stable across replays", `t` "when the violation became certain", `code` "one of the
    codes below" (or README's extensions no_target and wrong_dealer), `seat` "the seat at fault" (0..n-1), `rule`
    "the clause id ... from shared/rules/RULESETS.md", `message` "one sentence", `penalty` "{"seat": s, "cards": n}
    where the ruleset sets one, else absent", `line` "the 1-based log line of the event that caused it". `replay`
    prints them "one JSON object a line ... and exits 0"; `--json` prints the same flags in one object with `scores`
    `{"hands": [[points per seat] per hand], "totals": [points per seat], "winner": seat or null}`."""
    clauses = _clause_ids()
    assert len(clauses) > 60
    seen_codes: set[str] = set()
    for path in _sim_logs(tmp_path):
        events = read_log(path)
        n = len(events[0].players)  # type: ignore[attr-defined]
        plain, js, again = run("replay", str(path)), run("replay", str(path), "--json"), run("replay", str(path))
        assert plain.returncode == js.returncode == 0, plain.stderr
        flags = [json.loads(x) for x in plain.stdout.splitlines()]
        doc = json.loads(js.stdout)
        assert set(doc) == {"flags", "state", "scores"} and doc["flags"] == flags and again.stdout == plain.stdout
        scores = doc["scores"]
        assert {"hands", "totals", "winner"} <= set(scores)
        assert all(len(row) == n for row in scores["hands"]) and len(scores["totals"]) == n
        assert scores["winner"] is None or 0 <= scores["winner"] < n
        assert flags, path
        for f in flags:
            seen_codes.add(f["code"])
            assert {"id", "t", "code", "seat", "rule", "message", "line"} <= set(f)
            assert f["code"] in EVENTS_CODES + README_EXTENSIONS and f["code"] in FLAG_CODES
            assert f["rule"] in clauses, f
            assert f["id"] == f"{f['line']}-{f['code']}-{f['seat']}"
            assert 1 <= f["line"] <= len(events) and 0 <= f["seat"] < n
            assert f["t"] >= round(events[f["line"] - 1].t, 3) - 1e-9  # certain no sooner than its act
            assert isinstance(f["message"], str) and f["message"] and "\n" not in f["message"]
            if "penalty" in f:
                assert f["penalty"]["seat"] == f["seat"] and f["penalty"]["cards"] > 0
    assert len(seen_codes) >= 6


def test_flag_ids_and_fields_do_not_change_as_the_log_grows(tmp_path: Path) -> None:
    """EVENTS.md: ids are "stable across replays of the same log", and a ruling names a flag by its id: the dashboard
    replays a growing log, so a flag a referee saw after line k must keep its id, `t`, `rule` and `penalty` when
    the rest of the log arrives (README: only a short draw's flag is withdrawn, "if the rest follows")."""
    sim = simulate_match(SimConfig(ruleset="olympic", players=4, seed=6401, mistakes=MISTAKES, rate=0.12,
                                   max_hands=1))
    path = tmp_path / "g.jsonl"
    write_log(path, sim.events)
    full = {f.id: f for f in replay(read_log(path)).flags}
    assert len(full) >= 3
    for k in range(2, len(sim.events) + 1):
        for f in replay(read_log(path)[:k]).flags:
            if f.code == "wrong_draw" and f.id not in full:
                continue  # a short draw completed later (README)
            g = full[f.id]
            assert (g.t, g.rule, g.penalty, g.seat) == (f.t, f.rule, f.penalty, f.seat), (k, f.id)


# -- replay: --ruleset and ruleset files ------------------------------------------------------------------------------
def test_ruleset_override_by_a_path_from_the_working_directory(tmp_path: Path) -> None:
    """EVENTS.md: "`--ruleset NAME` overrides the log's `match_start`"; a ruleset is "a name ... or a path to a ruleset
    file"; README: a relative path given to the command is looked up in the working directory first. Here a house
    file on a Falsonal base with a 30 s timer replaces the log's mattel: the 25 s turn is no timeout, the illegal card
    cites FA-TURN, and the state names the house ruleset."""
    (tmp_path / "house").mkdir()
    (tmp_path / "house" / "club.toml").write_text('base = "falsonal"\nname = "club-night"\nturn_timer_s = 30\n',
                                                  encoding="utf-8")
    log = _raw(tmp_path, _lines([json.loads(START), json.loads(DEAL), json.loads(TURN),
                                 {"t": 3, "type": "play", "seat": 0, "cards": ["red-7"]},
                                 {"t": 28, "type": "play", "seat": 1, "cards": ["blue-9"]}]))
    out = run("replay", str(log), "--json", "--ruleset", "house/club.toml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["state"]["ruleset"] == "club-night"
    assert [(f["code"], f["rule"]) for f in doc["flags"]] == [("illegal_card", "FA-TURN")]
    falsonal = json.loads(run("replay", str(log), "--json", "--ruleset", "falsonal").stdout)
    assert [f["code"] for f in falsonal["flags"]] == ["turn_timeout", "illegal_card"]  # 15 s: a warning


def test_an_unknown_type_in_a_later_match_or_a_bad_ruleset_file_is_refused_naming_its_line(tmp_path: Path) -> None:
    """EVENTS.md: a reader "rejects (with a clear error naming the line) types it doesn't know"; "A log that can't
    be read exits non-zero with a message naming the line". A second match naming a ruleset file that is not a
    ruleset fails at that match_start's line, after a whole clean match."""
    (tmp_path / "broken.toml").write_text('base = "mattel"\nturn_timer_s = "fast"\n', encoding="utf-8")
    first = [START, DEAL, TURN]
    second = '{"t": 9, "type": "match_start", "ruleset": "broken.toml", "players": ["A", "B"]}'
    _refused(run("replay", str(_raw(tmp_path, "\n".join([*first, second]) + "\n"))), 4)
    _refused(run("replay", str(_raw(tmp_path, "\n".join([*first, '{"t": 9, "type": "hand_over"}']) + "\n"))), 4)


# -- rulings and corrections ------------------------------------------------------------------------------------------
def test_an_upheld_ruling_at_the_end_of_a_match_changes_nothing_but_the_status(tmp_path: Path) -> None:
    """EVENTS.md: "A `ruling` with `dismissed` removes its flag's penalty from the state that follows; `upheld` keeps
    it." Upholding every flag of a simulated match changes no flag's id, t, rule or penalty, nor the state's counts
    and the scores."""
    for path in _sim_logs(tmp_path)[2:]:
        events = read_log(path)
        before = replay(read_log(path))
        t = events[-1].t
        rulings = [parse_event({"t": t, "type": "ruling", "flag": f.id, "decision": "upheld", "source": "referee"},
                               len(events) + i + 1) for i, f in enumerate(before.flags)]
        after = replay([*read_log(path), *rulings])
        assert [(f.id, f.t, f.rule, f.penalty) for f in after.flags] == [
            (f.id, f.t, f.rule, f.penalty) for f in before.flags]
        assert {f.status for f in after.flags} == {"upheld"}
        assert after.state.counts == before.state.counts and after.scores == before.scores


def test_corrections_of_corrections_last_one_standing_wins() -> None:
    """EVENTS.md: `correction`: "`line` (1-based line of the event corrected), `event` (the corrected event, or `null`
    to strike it)". Line 4 is blue-9 (illegal on red-5); line 5 corrects it to red-9, line 6 to green-9 (illegal
    again), line 7 strikes line 6: line 5's red-9 stands. Striking line 7 too brings back line 6's green-9."""
    steps = "H3; T red-5; P0 blue-9; !fix 4 P0 red-9; !fix 4 P0 green-9"
    assert [(f.id, f.code) for f in replay(script("mattel", steps)).flags] == [("4-illegal_card-0", "illegal_card")]
    r = replay(script("mattel", steps + "; !fix 6 -"))
    assert r.flags == [] and r.state.top is not None and r.state.top.code == "red-9"
    r = replay(script("mattel", steps + "; !fix 6 -; !fix 7 -"))
    assert [f.id for f in r.flags] == ["4-illegal_card-0"] and r.state.top is not None
    assert r.state.top.code == "green-9"


@pytest.mark.parametrize("ruleset", ["olympic", "mattel"])
def test_a_ruling_on_a_short_draws_flag_survives_the_table_moving_on(ruleset: str) -> None:
    """EVENTS.md: "A `ruling` with `dismissed` removes its flag's penalty from the state that follows; `upheld` keeps
    it." README: "A short draw is flagged at once without a penalty, the flag is withdrawn if the rest follows, and
    once the table moves on it stands with its penalty". Seat 1 draws 1 of a Draw Two's 2 (line 5: flag
    5-wrong_draw-1, shown at once); the referee dismisses 5-wrong_draw-1 (line 6); seat 1 says pass (line 7), and the
    flag "stands" - with the same id the referee already dismissed. Under olympic (OL-PENALTY: 2 cards) the seat is
    charged the 2 cards anyway and the flag prints as open with its penalty; under mattel the flag comes back open
    for the referee to rule on again. Same result as when the ruling comes after the pass."""
    later = replay(script(ruleset, "H3; T red-5; P0 red-draw2; D1 1; S1; !dis 5-wrong_draw-1"))
    r = replay(script(ruleset, "H3; T red-5; P0 red-draw2; D1 1; !dis 5-wrong_draw-1; S1"))
    assert [(f.id, f.status) for f in r.flags] == [("5-wrong_draw-1", "dismissed")]
    assert "penalty" not in r.flags[0].to_dict()
    assert r.state.counts == later.state.counts and r.state.owed == later.state.owed
    up = replay(script(ruleset, "H3; T red-5; P0 red-draw2; D1 1; !up 5-wrong_draw-1; S1"))
    assert [(f.id, f.status) for f in up.flags] == [("5-wrong_draw-1", "upheld")]


def test_a_referees_event_between_a_pass_and_its_draw_changes_no_flag() -> None:
    """EVENTS.md: "A referee's ruling is an event too, so replaying the log always gives the corrected state";
    "`upheld` keeps it" (an upheld ruling changes nothing else). README: "A "pass" heard a moment before the same
    seat's draw (within `uno_call_lead_s`, the very next event ...) is that turn's pass after drawing" and "the
    referee's own corrections and rulings come later, stamped when they were written" (corrections.py). The
    dashboard stamps a ruling with the table's last time, so a referee clicking Uphold while seat 1's "pass" has been
    heard and its draw not yet seen puts the ruling between them: seat 1 then gets a wrong_draw flag (olympic: 2
    penalty cards) that the same game without the ruling doesn't have; an unrelated correction or insert does the
    same (mattel: two wrong_draw flags on seat 1)."""
    plain = replay(script("olympic", "H3; T red-5; P0 blue-9; S1; D1"))
    ruled = replay(script("olympic", "H3; T red-5; P0 blue-9; S1; !up 4-illegal_card-0; D1"))
    assert [(f.id, f.penalty) for f in ruled.flags] == [(f.id, f.penalty) for f in plain.flags] == [
        ("4-illegal_card-0", 2)]
    assert ruled.state.counts == plain.state.counts == [8, 8, 7, 7]
    fixed = replay(script("mattel", "H3; T red-5; P0 red-9; S1; !fix 4 P0 red-8; D1"))
    assert fixed.flags == [] and fixed.state.counts == [6, 8, 7, 7]
    # README's `insert` (an event the senses missed, put after line 2): its own line sits between the pass and draw
    inserted = replay(script("mattel", "H3; T red-5; P0 red-9; S1; !ins 2 C3 red; D1"))
    assert inserted.flags == [] and inserted.state.counts == [6, 8, 7, 7]


def test_a_correction_of_an_earlier_matchs_line_is_checked_against_that_match(tmp_path: Path) -> None:
    """EVENTS.md: "Seats are numbered 0…n-1 ... seat numbers stay fixed for the match"; README: a log is refused for
    "a seat the match's `players` list doesn't have", and "A second `match_start` on a table starts a new match and
    keeps the earlier match's flags (a referee may still rule on them ...)". Match 1 seats six; seat 4's play on line
    6 was really seat 5's; the referee corrects it after match 2 (four seats) began. The corrected event belongs to
    match 1, where seat 5 exists: the replay must give 6-out_of_turn-5, not refuse the whole log. And the other way
    round, seat 5 named for a four-seat match's line is refused, not warned about and ignored."""
    six = ["a", "b", "c", "d", "e", "f"]
    head = [{"t": 0, "type": "match_start", "ruleset": "mattel", "players": six},
            {"t": 1, "type": "hand_start", "dealer": 5}, {"t": 2, "type": "starter", "card": "red-5"},
            {"t": 3, "type": "play", "seat": 0, "cards": ["red-7"]}, {"t": 4, "type": "play", "seat": 1,
                                                                       "cards": ["red-8"]},
            {"t": 5, "type": "play", "seat": 4, "cards": ["red-9"]}]
    second = [{"t": 50, "type": "match_start", "ruleset": "mattel", "players": six[:4]},
              {"t": 51, "type": "hand_start", "dealer": 3}, {"t": 52, "type": "starter", "card": "red-5"}]
    fix = {"t": 60, "type": "correction", "line": 6, "event": {"t": 5, "type": "play", "seat": 5, "cards": ["red-9"]}}
    out = run("replay", str(_raw(tmp_path, _lines([*head, *second, fix]))))
    assert out.returncode == 0, out.stderr
    assert [json.loads(x)["id"] for x in out.stdout.splitlines()] == ["6-out_of_turn-5"]
    # match 1 has four seats, match 2 six: seat 5 on match 1's line is a seat that match doesn't have
    head4 = [{**head[0], "players": six[:4]}, {**head[1], "dealer": 3}, *head[2:5],
             {"t": 5, "type": "play", "seat": 3, "cards": ["red-9"]}]
    second6 = [{**second[0], "players": six}, {**second[1], "dealer": 5}, second[2]]
    _refused(run("replay", str(_raw(tmp_path, _lines([*head4, *second6, fix]), "b.jsonl"))), 10)


def test_a_hand_start_before_match_start_is_a_warning_like_any_event_before_it(tmp_path: Path) -> None:
    """README: "What it read but had to ignore or guess goes to standard error as `warning:` lines, never into the
    flags on standard output: ..., an event before `match_start`, ..."; the refusals listed are "bad JSON, an unknown
    type or card, a missing field, time going backwards, a seat the match's `players` list doesn't have, text that
    isn't valid Unicode, NaN or an infinite number, an empty file". A play, an UNO call or a starter before
    match_start is warned about and ignored (test_engine.py); a hand_start stops the whole replay with exit 2."""
    early = '{"t": 0, "type": "hand_start", "dealer": 0}'
    out = run("replay", str(_raw(tmp_path, "\n".join([early, START, DEAL, TURN, BAD_PLAY]) + "\n")))
    assert out.returncode == 0, out.stderr
    assert [json.loads(x)["id"] for x in out.stdout.splitlines()] == ["5-illegal_card-0"]
    assert "warning: line 1:" in out.stderr
