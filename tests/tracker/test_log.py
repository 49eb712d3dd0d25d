"""Reading and writing the event log (EVENTS.md): every bad line names its number and what is wrong."""

import json
from pathlib import Path

import pytest

from tracker.events import Correction, Play
from tracker.log import LogError, event_to_dict, parse_line, read_log, read_log_lenient, write_log

GOOD = [
    {"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B", "C"]},
    {"t": 1, "type": "hand_start", "dealer": 2},
    {"t": 2, "type": "starter", "card": "red-5"},
    {"t": 3.5, "type": "play", "seat": None, "cards": ["red-7"], "source": "vision", "confidence": 0.9, "box": [1, 2]},
    {"t": 4, "type": "uno", "seat": None, "source": "speech"},
    {"t": 5, "type": "correction", "line": 4, "event": {"t": 3.5, "type": "play", "seat": 0, "cards": ["red-7"]}},
]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_round_trip_keeps_every_field_including_unknown_ones(tmp_path: Path) -> None:
    path = _write(tmp_path, [json.dumps(o) for o in GOOD])
    events = read_log(path)
    assert isinstance(events[3], Play) and events[3].seat is None and events[3].extra == {"box": [1, 2]}
    assert isinstance(events[5], Correction) and events[5].target_line == 4
    out = tmp_path / "out.jsonl"
    write_log(out, events)
    again = read_log(out)
    assert [event_to_dict(e) for e in again] == [event_to_dict(e) for e in events]
    assert event_to_dict(again[3])["box"] == [1, 2]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"t": 1, "type": "play", "seat": 0, "cards": ["red-77"]}', "unknown card 'red-77'"),
        ('{"t": 1, "type": "dance", "seat": 0}', "unknown event type 'dance'"),
        ('{"t": 1, "type": "play", "seat": 0, "cards": ["red-7"]', "not valid JSON"),
        ('{"t": -1, "type": "pass", "seat": 0}', "'t' must be a number"),
        ('{"t": "soon", "type": "pass", "seat": 0}', "'t' must be a number"),
        ('{"type": "pass", "seat": 0}', "'t' must be a number"),
        ('{"t": 1, "type": "draw", "seat": 0, "count": 0}', "'count' must be"),
        ('{"t": 1, "type": "draw", "seat": -2}', "'seat' must be a seat number"),
        ('{"t": 1, "type": "color", "seat": 0, "color": "purple"}', "unknown colour 'purple'"),
        ('{"t": 1, "type": "play", "seat": 0, "cards": []}', "non-empty list"),
        ('{"t": 1, "type": "ruling", "flag": "x", "decision": "maybe"}', "'upheld' or 'dismissed'"),
        ('{"t": 1, "type": "correction", "line": 9, "event": null}', "only correct an earlier line"),
        ('{"t": 1, "type": "uno", "seat": 0, "confidence": 3}', "'confidence' must be"),
        ('[1, 2, 3]', "must be a JSON object"),
        ('{"t": 1, "type": "match_start", "ruleset": "mattel", "players": ["solo"]}', "at least two names"),
        ('{"t": 1, "type": "match_start", "ruleset": "mattel", "players": ["A\\ud800", "B"]}', "not valid Unicode"),
        ('{"t": 1, "type": "uno", "seat": 0, "x": 1e999}', "not finite"),
        ('{"t": 1, "type": "uno", "seat": 0, "x": NaN}', "not valid JSON"),
    ],
)
def test_a_bad_line_is_rejected_with_its_number_and_reason(tmp_path: Path, line: str, reason: str) -> None:
    path = _write(tmp_path, [json.dumps(GOOD[0]), json.dumps(GOOD[1]), line])
    with pytest.raises(LogError) as err:
        read_log(path)
    assert err.value.line == 3
    assert reason in err.value.reason
    assert str(err.value).startswith("line 3: ")


def test_time_going_backwards_is_rejected(tmp_path: Path) -> None:
    path = _write(tmp_path, [json.dumps(GOOD[0]), json.dumps({"t": 5, "type": "hand_start"}),
                             json.dumps({"t": 4, "type": "starter", "card": "red-1"})])
    with pytest.raises(LogError, match="line 3: time goes backwards"):
        read_log(path)


def test_lenient_reading_keeps_everything_before_and_after_a_bad_line(tmp_path: Path) -> None:
    lines = [json.dumps(o) for o in GOOD[:3]] + ['{"t": 2.5, "type": "play", "cards": ["blue-99"]', "",
                                                 json.dumps(GOOD[3])]
    events, errors = read_log_lenient(_write(tmp_path, lines))
    assert [e.line for e in events] == [1, 2, 3, 6]
    assert [e.line for e in errors] == [4]


def test_blank_lines_count_for_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path, [json.dumps(GOOD[0]), "", "  ", '{"t": 1, "type": "nope"}'])
    with pytest.raises(LogError) as err:
        read_log(path)
    assert err.value.line == 4


def test_invalid_utf8_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(json.dumps(GOOD[0]).encode() + b"\n\xff\xfe{\n")
    with pytest.raises(LogError, match="line 2: not valid UTF-8"):
        read_log(path)


def test_a_single_card_field_is_accepted_for_plays() -> None:
    ev = parse_line('{"t": 1, "type": "play", "seat": 1, "card": "green-skip"}', 7)
    assert isinstance(ev, Play) and ev.cards[0].code == "green-skip" and ev.line == 7
