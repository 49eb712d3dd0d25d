"""The merger turns two senses' slightly out-of-order events into one log whose time never goes back."""

from unotable.merge import EventMerger


def ev(t: float, kind: str = "uno") -> dict:
    return {"t": t, "type": kind, "seat": None}


def test_events_inside_the_window_come_out_sorted() -> None:
    m = EventMerger(window=1.0)
    assert m.update([ev(5.0, "play"), ev(4.6)], now=5.2) == []
    out = m.update([ev(5.3, "play")], now=6.5)
    assert [e["t"] for e in out] == [4.6, 5.0, 5.3]


def test_a_late_event_keeps_time_monotonic_and_says_so() -> None:
    m = EventMerger(window=0.5)
    m.update([ev(10.0)], now=11.0)
    out = m.update([ev(9.0, "play")], now=11.1)
    assert out == [{"t": 10.0, "type": "play", "seat": None, "t_observed": 9.0}] and m.late == 1


def test_flush_releases_everything() -> None:
    m = EventMerger(window=5.0)
    m.update([ev(1.0), ev(0.5)], now=1.0)
    assert [e["t"] for e in m.flush()] == [0.5, 1.0] and len(m) == 0
