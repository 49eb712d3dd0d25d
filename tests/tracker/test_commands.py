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
    assert doc["scores"] == {"hands": [[79, 0, 0, 0]], "totals": [79, 0, 0, 0], "winner": None, "target": 500,
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
