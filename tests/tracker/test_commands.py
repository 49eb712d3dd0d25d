"""`unotable replay` and `unotable simulate` as a user runs them (EVENTS.md, "Replay from the command line")."""

import json
import subprocess
import sys
from pathlib import Path

from tracker.log import write_log
from tracker.script import script

CLI = [sys.executable, "-m", "unotable.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def _log(tmp_path: Path, ruleset: str, steps: str) -> Path:
    path = tmp_path / "game.jsonl"
    write_log(path, script(ruleset, steps))
    return path


def test_replay_prints_one_flag_a_line(tmp_path: Path) -> None:
    path = _log(tmp_path, "falsonal", "H3; T red-5; P0 blue-9; ~1")
    out = run("replay", str(path))
    assert out.returncode == 0, out.stderr
    flags = [json.loads(line) for line in out.stdout.splitlines()]
    assert flags and flags[0]["code"] == "illegal_card" and flags[0]["rule"] == "FA-TURN"
    assert set(flags[0]) >= {"id", "t", "code", "seat", "rule", "message", "line"}


def test_replay_json_prints_flags_state_and_scores(tmp_path: Path) -> None:
    path = _log(tmp_path, "mattel", "H3; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip")
    out = run("replay", str(path), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["scores"] == {"hands": [[79, 0, 0, 0]], "totals": [79, 0, 0, 0], "winner": None, "over": False, "target": 500,
                             "lowest_wins": False}
    assert doc["state"]["hand_winner"] == 0 and doc["flags"] == []


def test_ruleset_override(tmp_path: Path) -> None:
    path = _log(tmp_path, "mattel", "H3; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip")
    doc = json.loads(run("replay", str(path), "--json", "--ruleset", "olympic").stdout)
    assert doc["scores"]["hands"] == [[0, 9, 50, 20]] and doc["state"]["ruleset"] == "olympic"


def test_an_unreadable_log_exits_non_zero_naming_the_line(tmp_path: Path) -> None:
    path = _log(tmp_path, "mattel", "H3; T red-5; P0 red-7")
    with path.open("a") as fh:
        fh.write('{"t": 9, "type": "play", "seat": 1, "cards": ["red-99"]}\n')
    out = run("replay", str(path))
    assert out.returncode != 0 and out.stdout == ""
    assert "line 5" in out.stderr and "unknown card 'red-99'" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_log_and_unknown_ruleset_are_clear_errors(tmp_path: Path) -> None:
    out = run("replay", str(tmp_path / "none.jsonl"))
    assert out.returncode == 2 and "no such log file" in out.stderr
    path = _log(tmp_path, "mattel", "H3; T red-5")
    out = run("replay", str(path), "--ruleset", "uno-flip")
    assert out.returncode == 2 and "unknown ruleset 'uno-flip'" in out.stderr


def test_pretty_replay_shows_flags_and_the_score_sheet(tmp_path: Path) -> None:
    path = _log(tmp_path, "falsonal", "H3; T red-5; ~5; P0 red-1; P1 red-2")
    out = run("replay", str(path), "--pretty")
    assert out.returncode == 0
    assert "missed_uno [FA-UNO]" in out.stdout and "total" in out.stdout


def test_simulate_writes_logs_and_the_planted_flags_that_replay_finds(tmp_path: Path) -> None:
    out = run("simulate", "--ruleset", "olympic", "--players", "5", "--seed", "4", "--matches", "2", "--hands", "2",
              "--rate", "0.05", "--out", str(tmp_path / "sims"))
    assert out.returncode == 0, out.stderr
    logs = sorted((tmp_path / "sims").glob("match-*.jsonl"))
    logs = [p for p in logs if not p.name.endswith(".flags.jsonl")]
    assert len(logs) == 2
    for log in logs:
        truth = [json.loads(x) for x in log.with_suffix(".flags.jsonl").read_text().splitlines()]
        got = [json.loads(x) for x in run("replay", str(log)).stdout.splitlines()]
        assert sorted((f["code"], f["seat"], f["line"]) for f in got) == sorted(
            (f["code"], f["seat"], f["line"]) for f in truth)


def test_simulate_rejects_unknown_mistakes() -> None:
    out = run("simulate", "--mistakes", "cheating")
    assert out.returncode == 2 and "unknown mistake kinds" in out.stderr


def test_a_log_may_name_a_ruleset_file_beside_it(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text('base = "mattel"\njump_in = "identical_numbers"\n', encoding="utf-8")
    path = _log(tmp_path, "house.toml", "H3; T red-5; P0 red-7; P2 red-7")
    elsewhere = tmp_path / "sub"
    elsewhere.mkdir()
    out = subprocess.run([*CLI, "replay", str(path)], capture_output=True, text=True, timeout=60, cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""


# ---- stop 61's audit of `unotable replay` against EVENTS.md


def _raw(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "raw.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


START = '{"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob"], "target": 100}'


def test_a_seat_the_table_does_not_have_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = _raw(tmp_path, [START, '{"t": 1, "type": "hand_start", "dealer": 1}', '{"t": 2, "type": "starter", "card": "red-5"}',
                           '{"t": 3, "type": "play", "seat": 9, "cards": ["red-7"]}'])
    out = run("replay", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert "line 4" in out.stderr and "seat 9" in out.stderr and "2 players" in out.stderr


def test_a_type_that_is_not_text_and_a_huge_time_are_clear_errors(tmp_path: Path) -> None:
    for bad, words in (('{"t": 1, "type": ["play"], "seat": 0, "cards": ["red-7"]}', "'type' must be text"),
                       ('{"t": ' + "9" * 400 + ', "type": "uno", "seat": 0}', "'t' must be a number")):
        out = run("replay", str(_raw(tmp_path, [START, bad])))
        assert out.returncode == 2 and "line 2" in out.stderr and words in out.stderr
        assert "Traceback" not in out.stderr


def test_an_empty_log_is_an_error_not_a_clean_game(tmp_path: Path) -> None:
    out = run("replay", str(_raw(tmp_path, ["", "  "])))
    assert out.returncode == 2 and "empty log" in out.stderr and out.stdout == ""


def test_what_the_engine_ignored_goes_to_standard_error(tmp_path: Path) -> None:
    path = _log(tmp_path, "mattel", "H3; T red-5; P0 red-7; !dis 99-missed_uno-0")
    out = run("replay", str(path))
    assert out.returncode == 0 and out.stdout == ""
    assert "warning: line 5: ruling on unknown flag '99-missed_uno-0'" in out.stderr


def test_a_dismissed_flag_carries_no_penalty(tmp_path: Path) -> None:
    path = _log(tmp_path, "falsonal", "H3; T red-5; P0 red-7; P1 red-8; P2 red-9; P3 red-1; U1; !dis 8-early_uno-1")
    flags = [json.loads(line) for line in run("replay", str(path)).stdout.splitlines()]
    assert [(f["id"], f["status"]) for f in flags] == [("8-early_uno-1", "dismissed")]
    assert "penalty" not in flags[0]


def test_a_hand_after_the_match_was_won_is_flagged_but_not_scored(tmp_path: Path) -> None:
    won = "H3; T red-5; ~6; P0 red-1; R1 wild,wild; R2 - ; R3 -"  # seat 0 takes 100 of a 100-point match
    path = tmp_path / "won.jsonl"
    write_log(path, script("mattel", f"{won}; H0; T red-5; ~6; P1 red-1; R0 wild,wild,wild; R2 -; R3 -", target=100))
    out = run("replay", str(path), "--json")
    doc = json.loads(out.stdout)
    assert doc["scores"]["totals"][0] == 100 and doc["scores"]["winner"] == 0
    assert doc["scores"]["hands"] == [[100, 0, 0, 0]]
    assert "played after the match was won" in out.stderr


def test_a_hand_nobody_won_keeps_its_row_on_the_score_sheet(tmp_path: Path) -> None:
    path = _log(tmp_path, "mattel", "H3; T red-5; P0 red-7; H0; T red-5; ~6; P1 red-1; R0 wild; R2 -; R3 -")
    out = run("replay", str(path), "--json")
    assert json.loads(out.stdout)["scores"]["hands"] == [[0, 0, 0, 0], [0, 50, 0, 0]]
    assert "hand 1 ended with nobody out" in out.stderr


def test_pretty_shows_the_game_as_corrected(tmp_path: Path) -> None:
    path = _log(tmp_path, "mattel", "H3; T red-5; P0 red-7; P1 blue-8; !fix 5 P1 red-8; !fix 4 -")
    out = run("replay", str(path), "--pretty")
    assert out.returncode == 0, out.stderr
    assert "(line 4 struck by the referee)" in out.stdout
    assert "Bob plays red-8  (corrected by the referee)" in out.stdout or "P1 plays red-8  (corrected" in out.stdout
    assert "referee corrects line 5" in out.stdout and "blue-8" not in out.stdout.split("referee")[0]
