"""Fuzzing the reader: whatever bytes a broken camera rig writes, the reader answers with LogError or an event."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.events import Event
from tracker.log import LogError, iter_log, parse_line

SAMPLE = [
    '{"t": 0, "type": "match_start", "ruleset": "olympic", "players": ["A", "B"]}',
    '{"t": 1.5, "type": "play", "seat": 1, "cards": ["red-7", "red-7"], "color": "red", "target": 0}',
    '{"t": 2, "type": "correction", "line": 1, "event": {"t": 2, "type": "reveal", "seat": 0, "cards": []}}',
    '{"t": 3, "type": "ruling", "flag": "4-missed_uno-1", "decision": "dismissed", "note": "heard it"}',
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=12,
)
KEYS = ["t", "type", "seat", "cards", "card", "count", "color", "target", "line", "event", "flag", "decision",
        "players", "ruleset", "dealer", "confidence", "source"]
TYPES = ["match_start", "hand_start", "starter", "play", "draw", "pass", "uno", "color", "challenge", "reveal",
         "ruling", "correction", "bogus"]


def _only_clear_errors(text: str) -> None:
    try:
        ev = parse_line(text, 1)
    except LogError as exc:
        assert exc.line == 1 and exc.reason
    else:
        assert isinstance(ev, Event)


@settings(max_examples=600, deadline=None)
@given(st.text(max_size=200))
def test_random_text_gives_only_log_errors(text: str) -> None:
    _only_clear_errors(text)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(SAMPLE), st.integers(min_value=0, max_value=200))
def test_truncated_lines_give_only_log_errors(line: str, cut: int) -> None:
    _only_clear_errors(line[:cut])


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(TYPES), st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8))
def test_events_with_wild_field_values_give_only_log_errors(kind: str, fields: dict) -> None:
    fields["type"] = kind
    _only_clear_errors(json.dumps(fields))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=60), max_size=6))
def test_random_bytes_in_a_file_give_only_log_errors(lines: list[bytes]) -> None:
    try:
        list(iter_log(lines))
    except LogError as exc:
        assert exc.line is not None and 1 <= exc.line <= len(lines)
