"""Two senses with different latencies: the camera decides a play some frames after the card lands (`seen_t` later
than `t`), speech decides a word ~0.1-0.3 s after it ends. These tests drive the real code paths — the runner's loop
and merger (`unotable.run.TableRunner.run`, `unotable.merge.EventMerger`) into the headless sink that writes the log,
`unotable replay`, and the dashboard's event API with a rig agent's batches — and check what EVENTS.md and the README
promise:

- EVENTS.md: `t` is "never decreasing through the log"; `uno` / `color` `seat` "may be `null`".
- README: "A UNO call counts for the play it comes just before (up to `uno_call_lead_s`, 5 s, for the senses'
  timing), and for that play only: a call before a play that leaves two or more cards answers nothing."
- README: "A `play` or `uno` with `seat: null` goes to the seat whose turn it is (or whose UNO window is open)".
- README: `unotable replay` refuses "time going backwards" (exit 2, the line on standard error).
- web/api.py: 400 for "time going backwards"; web/live.py: a post is all or nothing.
"""

from __future__ import annotations

import io
import json
import queue
import subprocess
import sys
import threading
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import replay
from tracker.log import parse_event, read_log
from unotable.merge import EventMerger
from unotable.run import SENSES, RunConfig, RunStats, TableRunner
from unotable.run_sinks import HeadlessSink

CLI = [sys.executable, "-m", "unotable.cli"]
PLAYERS = ["Ann", "Bob"]


# ------------------------------------------------------------------------------------------------ a two-seat game
def _game(n_plays: int = 11, t0: float = 2.0, step: float = 2.0) -> list[dict[str, Any]]:
    """Red cards laid alternately from seat 1 (the dealer is seat 0): after 11 plays seat 1 holds 1, seat 0 holds 2.
    Play i lands at t0 + step * i."""
    out = [{"t": 1.0, "type": "starter", "card": "red-5", "source": "vision", "confidence": 0.9}]
    seat = 1
    for i in range(n_plays):
        out.append({"t": t0 + step * i, "type": "play", "seat": seat, "cards": [f"red-{i % 9 + 1}"],
                    "source": "vision", "confidence": 0.9})
        seat = 1 - seat
    return out


def _opening(ruleset: str) -> list[dict[str, Any]]:
    return [{"t": 0.0, "type": "match_start", "ruleset": ruleset, "players": PLAYERS},
            {"t": 0.0, "type": "hand_start", "dealer": 0}]


def _replay_dicts(objs: list[dict[str, Any]]) -> Any:
    return replay([parse_event(o, i + 1) for i, o in enumerate(objs)])


def _codes(flags: list[Any]) -> list[tuple[str, int]]:
    return [(f.code, f.seat) if not isinstance(f, dict) else (f["code"], f["seat"]) for f in flags]


# ------------------------------------------------------------------------------------------------ the runner, fed
def _arrivals(sensed: list[tuple[str, dict[str, Any], float]], end: float, lag: dict[str, float],
              hop: float = 0.1) -> list[tuple[str, float, list[dict[str, Any]]]]:
    """What the runner's event queue receives: each sense ticks every `hop` of table time (a frame, an audio chunk)
    with the events decided by then (`sensed`: (sense, event, decided_at)); `lag` is how far behind (in wall time)
    each sense's worker runs, which decides which sense's tick reaches the queue first."""
    items: list[tuple[float, int, str, float, list[dict[str, Any]]]] = []
    order = 0
    for sense in SENSES:
        todo = sorted(((d, i, ev) for i, (s, ev, d) in enumerate(sensed) if s == sense), key=lambda x: (x[0], x[1]))
        k = 0
        n = 1
        while True:
            wm = round(n * hop, 6)
            evs = []
            while k < len(todo) and todo[k][0] <= wm:
                evs.append(todo[k][2])
                k += 1
            items.append((wm + lag.get(sense, 0.0), order, sense, wm, evs))
            order += 1
            if wm >= end and k == len(todo):
                break
            n += 1
    items.sort(key=lambda x: (x[0], x[1]))
    return [(s, wm, evs) for _, _, s, wm, evs in items]


def _run(tmp_path: Path, sensed: list[tuple[str, dict[str, Any], float]], *, ruleset: str = "mattel",
         lag: dict[str, float] | None = None, window: float = 1.5, end: float | None = None
         ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], Path]:
    """`TableRunner.run` on a queue filled as the vision and speech workers would fill it, into the headless sink
    with `--log`; returns (the log's objects, the flags printed, the summary, the log's path)."""
    cfg = RunConfig(video=None, audio=None, ruleset=ruleset, players=list(PLAYERS), dealer=0, realtime=False,
                    window=window)
    runner = TableRunner.__new__(TableRunner)  # no camera, no microphone: the queue is filled by the test
    runner.cfg = cfg
    runner.stats = RunStats()
    runner.stop = threading.Event()
    runner.events = queue.Queue()
    runner.frames = queue.Queue(maxsize=3)
    runner.watermark = {s: 0.0 for s in SENSES}
    runner.done = {s: False for s in SENSES}
    runner.latest_frame = None
    runner.source = runner.audio = None
    last = max((d for _, _, d in sensed), default=0.0)
    for item in _arrivals(sensed, end if end is not None else last + 3.0, lag or {}):
        runner.events.put(item)
    for s in SENSES:
        runner.events.put((s, float("inf"), []))
    log_path = tmp_path / "run.jsonl"
    out = io.StringIO()
    sink = HeadlessSink(cfg, None, out=out, log_path=log_path)
    runner.run(sink)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    written = [json.loads(x) for x in log_path.read_text(encoding="utf-8").splitlines()]
    return written, lines[:-1], lines[-1]["summary"], log_path


def _vision(evs: list[dict[str, Any]], latency: float = 0.28) -> list[tuple[str, dict[str, Any], float]]:
    """Camera events, each decided `latency` after its `t` (the README's play latency: 254 ms, p95 289)."""
    out = []
    for ev in evs:
        ev = dict(ev, seen_t=round(ev["t"] + latency, 3))
        out.append(("vision", ev, ev["seen_t"]))
    return out


def _speech(ev: dict[str, Any], latency: float = 0.2) -> tuple[str, dict[str, Any], float]:
    return ("speech", dict(ev, source="speech", confidence=0.8), ev["t"] + latency)


def _check_log(written: list[dict[str, Any]], printed: list[dict[str, Any]], log_path: Path) -> Any:
    """The written log's time never goes back (EVENTS.md), it reads, and replays to the flags printed live."""
    ts = [o["t"] for o in written]
    assert ts == sorted(ts), ts
    result = replay(read_log(log_path))
    assert [(f.code, f.seat, f.line) for f in result.flags] == [(f["code"], f["seat"], f["line"]) for f in printed]
    return result


ORDERS = {"speech-decided-first": {"vision": 0.5}, "vision-decided-first": {"speech": 0.5}}
LAST_BUT_ONE = 22.0  # seat 1's 6th play (11th of the hand): 2 cards -> 1


# ------------------------------------------------------------------------------------------------ (1) UNO vs play
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("ruleset", ["mattel", "chempiunat"])
@pytest.mark.parametrize("offset", [-1.0, -0.3, -0.1, 0.0, 0.1, 0.3])
def test_uno_said_while_laying_the_last_but_one_card_counts_whichever_sense_decides_first(
        tmp_path: Path, order: str, ruleset: str, offset: float) -> None:
    """"UNO" said while the second-to-last card is laid: its `t` a little before or after the play's, decided by
    speech before or after the camera decides the play. The log comes out in `t` order and the call counts."""
    game = _game() + [{"t": 24.0, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]
    sensed = _vision(game) + [_speech({"t": LAST_BUT_ONE + offset, "type": "uno", "seat": 1})]
    written, printed, summary, path = _run(tmp_path, sensed, ruleset=ruleset, lag=ORDERS[order])
    result = _check_log(written, printed, path)
    assert summary["late_events"] == 0 and not any("t_observed" in o for o in written)
    uno = next(i for i, o in enumerate(written) if o["type"] == "uno")
    play = next(i for i, o in enumerate(written) if o["type"] == "play" and o["t"] == LAST_BUT_ONE)
    if offset != 0:  # in `t` order, not in the order the senses decided (ties: arrival order, see below)
        assert (uno < play) == (offset < 0)
    assert "missed_uno" not in [c for c, _ in _codes(result.flags)], _codes(result.flags)
    assert result.state.counts == [3, 1]


@pytest.mark.parametrize("order", ORDERS)
def test_no_uno_at_all_is_still_a_missed_uno(tmp_path: Path, order: str) -> None:
    """The control: the same game without the call is flagged, so the test above would see a lost call."""
    game = _game() + [{"t": 24.0, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]
    written, printed, _summary, path = _run(tmp_path, _vision(game), lag=ORDERS[order])
    result = _check_log(written, printed, path)
    assert _codes(result.flags) == [("missed_uno", 1)]


def test_a_play_decided_later_than_the_merge_window_is_stamped_and_the_call_still_counts(tmp_path: Path) -> None:
    """The camera takes 2 s (more than the 1.5 s window) to decide the last-but-one play; the UNO said just after
    the card landed is released first. The merger keeps the log monotonic by stamping the late play with the last
    released time and keeping its own time in `t_observed` (unotable/merge.py's documented design): the call now
    precedes the play in the log and still counts for it (uno_call_lead_s)."""
    game = _game() + [{"t": 24.5, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]
    sensed = _vision(game[:-2]) + _vision(game[-2:-1], latency=2.0) + _vision(game[-1:])
    sensed.append(_speech({"t": 22.3, "type": "uno", "seat": 1}))
    written, printed, summary, path = _run(tmp_path, sensed)
    result = _check_log(written, printed, path)
    play = next(o for o in written if o["type"] == "play" and o.get("t_observed") == LAST_BUT_ONE)
    assert play["t"] == 22.3 and summary["late_events"] == 1
    assert [o["type"] for o in written[-3:]] == ["uno", "play", "draw"]
    assert result.flags == [], _codes(result.flags)


# ------------------------------------------------------------------------------------------------ (2) colour vs Wild
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("ruleset", ["mattel", "chempiunat"])
@pytest.mark.parametrize("offset", [-1.0, -0.2, 0.0, 0.2, 0.6])
def test_a_colour_named_just_before_or_after_the_wild_lands_is_its_colour(
        tmp_path: Path, order: str, ruleset: str, offset: float) -> None:
    game = _game(n_plays=4)  # seat 1, 0, 1, 0 at 2, 4, 6, 8
    wild_t = 10.0
    game += [{"t": wild_t, "type": "play", "seat": 1, "cards": ["wild"], "source": "vision"},
             {"t": 12.0, "type": "play", "seat": 0, "cards": ["blue-3"], "source": "vision"}]
    sensed = _vision(game) + [_speech({"t": wild_t + offset, "type": "color", "seat": 1, "color": "blue"})]
    written, printed, summary, path = _run(tmp_path, sensed, ruleset=ruleset, lag=ORDERS[order])
    result = _check_log(written, printed, path)
    assert summary["late_events"] == 0
    assert result.flags == [], _codes(result.flags)
    assert result.state.color == "blue" and result.state.top.code == "blue-3"


@pytest.mark.parametrize("seat", [1, None])
def test_a_colour_named_by_a_single_microphone_before_the_wild_counts(tmp_path: Path, seat: int | None) -> None:
    """A mono microphone can't tell who spoke (`seat: null`, EVENTS.md): the colour goes with the Wild it precedes."""
    game = _game(n_plays=4) + [{"t": 10.0, "type": "play", "seat": 1, "cards": ["wild"], "source": "vision"},
                               {"t": 12.0, "type": "play", "seat": 0, "cards": ["green-3"], "source": "vision"}]
    sensed = _vision(game) + [_speech({"t": 9.7, "type": "color", "seat": seat, "color": "green"})]
    written, printed, _summary, path = _run(tmp_path, sensed, ruleset="chempiunat")
    result = _check_log(written, printed, path)
    assert result.flags == [] and result.state.color == "green"


# ------------------------------------------------------------------------------------------------ (3) equal / backwards t
@pytest.mark.parametrize("first", ["uno", "play"])
def test_a_call_and_a_play_at_the_same_t_count_in_either_order(first: str) -> None:
    """EVENTS.md allows equal `t` ("never decreasing") and fixes no order among them: which comes first in the log
    depends on which sense the runner heard first; the engine must give the same answer both ways."""
    game = _opening("chempiunat") + _game()
    uno = {"t": LAST_BUT_ONE, "type": "uno", "seat": 1, "source": "speech"}
    i = next(k for k, o in enumerate(game) if o.get("t") == LAST_BUT_ONE)
    game.insert(i if first == "uno" else i + 1, uno)
    game.append({"t": 24.0, "type": "draw", "seat": 0, "count": 1})
    result = _replay_dicts(game)
    assert result.flags == [] and result.state.counts == [3, 1]


@pytest.mark.parametrize("first", ["color", "play"])
def test_a_colour_and_its_wild_at_the_same_t_in_either_order(first: str) -> None:
    game = _opening("chempiunat") + _game(n_plays=4)
    wild = {"t": 10.0, "type": "play", "seat": 1, "cards": ["wild"]}
    color = {"t": 10.0, "type": "color", "seat": 1, "color": "yellow", "source": "speech"}
    game += [color, wild] if first == "color" else [wild, color]
    game.append({"t": 12.0, "type": "play", "seat": 0, "cards": ["yellow-3"]})
    result = _replay_dicts(game)
    assert result.flags == [] and result.state.color == "yellow"


def test_the_runner_writes_equal_times_in_the_order_the_senses_delivered_them(tmp_path: Path) -> None:
    """Ties are kept in arrival order (the merger's heap is stable): both orders replay to the same flags."""
    game = _game() + [{"t": 24.0, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]
    flags = []
    for lag in ORDERS.values():
        sensed = _vision(game) + [_speech({"t": LAST_BUT_ONE, "type": "uno", "seat": 1}, latency=0.28)]
        written, printed, _summary, path = _run(tmp_path, sensed, ruleset="chempiunat", lag=lag)
        flags.append(_codes(_check_log(written, printed, path).flags))
    assert flags == [[], []]


def test_replay_takes_equal_times_and_refuses_time_going_backwards(tmp_path: Path) -> None:
    """README: `unotable replay` refuses "time going backwards" (exit 2, the line on standard error); equal `t` is
    fine. It neither sorts nor warns."""
    game = _opening("mattel") + _game(n_plays=3)
    good = tmp_path / "equal.jsonl"
    same = dict(game[-1], t=game[-2]["t"])  # the last play at the same t as the one before
    good.write_text("".join(json.dumps(o) + "\n" for o in game[:-1] + [same]), encoding="utf-8")
    out = subprocess.run([*CLI, "replay", "--json", str(good)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    bad = tmp_path / "backwards.jsonl"
    late = {"t": 3.9, "type": "uno", "seat": 1, "source": "speech"}  # after the play at t=6: line 6
    bad.write_text("".join(json.dumps(o) + "\n" for o in game + [late]), encoding="utf-8")
    out = subprocess.run([*CLI, "replay", str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert "line 7" in out.stderr and "time goes backwards" in out.stderr, out.stderr


# ------------------------------------------------------------------------------------------------ (4) the API, late batches
@pytest.fixture
def api(tmp_path: Path) -> Any:
    from web import create_app

    app = create_app({"DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test-secret"})
    _info, token = app.extensions["unotable"].store.add_table("hall-1")
    yield app, token
    svc = app.extensions["unotable"]
    svc.close()
    svc.store.dispose()


def _post(client: Any, token: str, body: Any) -> Any:
    return client.post("/api/tables/hall-1/events", json=body, headers={"Authorization": f"Bearer {token}"})


def _numbered(evs: list[dict[str, Any]], rig: str, first: int = 1) -> list[dict[str, Any]]:
    return [dict(e, rig=rig, rig_seq=first + i) for i, e in enumerate(evs)]


def _dashboard_equals_replay_of_export(client: Any) -> Any:
    """What the dashboard shows equals `unotable replay` of its exported log (the events API)."""
    exported = client.get("/api/tables/hall-1/events").get_json()["events"]
    flags = client.get("/api/tables/hall-1/flags").get_json()["flags"]
    state = client.get("/api/tables/hall-1/state").get_json()["state"]
    result = _replay_dicts(exported)
    assert [(f["code"], f["seat"], f["line"]) for f in flags] == [(f.code, f.seat, f.line) for f in result.flags]
    assert state["counts"] == list(result.state.counts)
    return exported, result


def test_a_speech_batch_older_than_the_last_vision_batch_is_refused_whole(api: Any) -> None:
    """Two rigs at one table (camera, microphone): the microphone's batch arrives after the camera's later play.
    web/api.py: 400 for time going backwards; web/live.py: all or nothing. The late call is refused (never
    inserted, never appended out of order), and the dashboard still equals a replay of its exported log."""
    app, token = api
    c = app.test_client()
    cam = _opening("mattel") + _game() + [{"t": 24.0, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]
    assert _post(c, token, _numbered(cam, "cam")).status_code == 200
    mic = _numbered([{"t": 21.9, "type": "uno", "seat": 1, "source": "speech"},
                     {"t": 24.5, "type": "color", "seat": 0, "color": "red", "source": "speech"}], "mic")
    r = _post(c, token, mic)
    assert r.status_code == 400 and "out of order" in r.get_json()["error"]
    exported, result = _dashboard_equals_replay_of_export(c)
    assert len(exported) == len(cam) and not any(e["type"] == "uno" for e in exported)
    assert _codes(result.flags) == [("missed_uno", 1)]  # the cost of refusing: the call said in time is lost


def test_a_speech_batch_within_the_vision_time_is_stored(api: Any) -> None:
    """The same call posted before the camera's next event: stored in `t` order, and it counts."""
    app, token = api
    c = app.test_client()
    cam = _opening("mattel") + _game()
    assert _post(c, token, _numbered(cam, "cam")).status_code == 200
    assert _post(c, token, _numbered([{"t": 22.1, "type": "uno", "seat": 1, "source": "speech"}],
                                     "mic")).status_code == 200
    assert _post(c, token, _numbered([{"t": 24.0, "type": "draw", "seat": 0, "count": 1}], "cam",
                                     first=len(cam) + 1)).status_code == 200
    exported, result = _dashboard_equals_replay_of_export(c)
    ts = [e["t"] for e in exported]
    assert ts == sorted(ts) and result.flags == []


def test_the_agent_sets_a_late_event_aside_and_sends_the_rest(api: Any, tmp_path: Path) -> None:
    """`unotable agent` bisects a refused batch: the late event goes to `rejected.jsonl` (acknowledged, never resent),
    the in-order events of the same batch are stored; the dashboard equals a replay of its exported log."""
    from unotable.agent import Sender, Spool

    app, token = api
    c = app.test_client()
    assert _post(c, token, _numbered(_opening("mattel") + _game(), "cam")).status_code == 200

    class TestClientSender(Sender):
        def _post(self, body: object) -> None:
            r = _post(c, self.token, body)
            if r.status_code >= 300:
                raise urllib.error.HTTPError("http://x", r.status_code, "refused", {},  # type: ignore[arg-type]
                                             io.BytesIO(r.data))

    spool = Spool(tmp_path / "spool")
    spool.append([{"t": 21.9, "type": "uno", "seat": 1, "source": "speech"},
                  {"t": 22.5, "type": "uno", "seat": 1, "source": "speech"}])
    sender = TestClientSender(spool, "http://unused", "hall-1", token, log=io.StringIO())
    assert sender.send_once() == 1 and spool.backlog == 0
    rejected = [json.loads(x) for x in (spool.folder / "rejected.jsonl").read_text().splitlines()]
    assert [r["event"]["t"] for r in rejected] == [21.9] and "out of order" in rejected[0]["reason"]
    exported, result = _dashboard_equals_replay_of_export(c)
    assert [e["t"] for e in exported if e["type"] == "uno"] == [22.5]


# ------------------------------------------------------------------------------------------------ (5) seat null
def test_a_null_seat_call_answers_the_open_uno_window() -> None:
    """README: a `uno` with `seat: null` goes to the seat whose UNO window is open."""
    game = _opening("chempiunat") + _game()
    game += [{"t": 22.3, "type": "uno", "seat": None, "source": "speech"},
             {"t": 24.0, "type": "draw", "seat": 0, "count": 1}]
    result = _replay_dicts(game)
    assert result.flags == [], _codes(result.flags)


def test_a_null_seat_call_just_before_the_play_counts_for_it() -> None:
    game = _opening("chempiunat") + _game()
    game.insert(len(game) - 1, {"t": 21.8, "type": "uno", "seat": None, "source": "speech"})
    game.append({"t": 24.0, "type": "draw", "seat": 0, "count": 1})
    assert _replay_dicts(game).flags == []


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seated_call_before_a_play_leaving_two_cards_answers_nothing(seat: int) -> None:
    """README: "for that play only: a call before a play that leaves two or more cards answers nothing". With the
    seat known the engine does this for the caller's own play; a call by the other seat does not carry either."""
    game = _opening("mattel") + _game(n_plays=9)  # seat 1 holds 2 after t=18, seat 0 holds 3 after t=16
    game += [{"t": 19.5, "type": "uno", "seat": seat, "source": "speech"},
             {"t": 20.0, "type": "play", "seat": 0, "cards": ["red-1"]},  # seat 0: 3 -> 2
             {"t": 22.0, "type": "play", "seat": 1, "cards": ["red-2"]},  # seat 1: 2 -> 1, no call of its own
             {"t": 24.0, "type": "draw", "seat": 0, "count": 1}]
    result = _replay_dicts(game)
    if seat == 0:
        assert _codes(result.flags) == [("missed_uno", 1)]
    else:  # seat 1's call at 19.5 came before its own play at 22.0 (2.5 s, inside the lead), so it counts
        assert result.flags == []


def test_a_null_seat_call_before_a_play_leaving_two_cards_answers_nothing() -> None:
    """A single microphone hears "UNO" (`seat: null`) just before seat 0 lays a card that leaves it 2; 2 s later
    seat 1 comes down to one card and says nothing. README: the call answered nothing (it came before a play that
    left two cards), "for that play only" — seat 1 missed its UNO. The engine lets the anonymous call carry over."""
    game = _opening("mattel") + _game(n_plays=9)
    game += [{"t": 19.5, "type": "uno", "seat": None, "source": "speech"},
             {"t": 20.0, "type": "play", "seat": 0, "cards": ["red-1"]},  # seat 0: 3 -> 2
             {"t": 22.0, "type": "play", "seat": 1, "cards": ["red-2"]},  # seat 1: 2 -> 1, silent
             {"t": 24.0, "type": "draw", "seat": 0, "count": 1}]
    assert _codes(_replay_dicts(game).flags) == [("missed_uno", 1)]


def test_a_null_seat_call_does_not_carry_over_through_the_runner(tmp_path: Path) -> None:
    """The same through `unotable run`'s merge: a mono microphone's UNO before seat 0's play (which left it two
    cards) is not seat 1's call for its last-but-one card."""
    game = _game(n_plays=9) + [{"t": 20.0, "type": "play", "seat": 0, "cards": ["red-1"], "source": "vision"},
                               {"t": 22.0, "type": "play", "seat": 1, "cards": ["red-2"], "source": "vision"},
                               {"t": 24.0, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]
    sensed = _vision(game) + [_speech({"t": 19.5, "type": "uno", "seat": None})]
    written, printed, _summary, path = _run(tmp_path, sensed)
    assert _codes(_check_log(written, printed, path).flags) == [("missed_uno", 1)]


def test_a_null_seat_call_through_the_api_replays_the_same(api: Any) -> None:
    """Per-seat microphones that could not pick a channel post `seat: null`; the dashboard stores it as null (it
    does not resolve it into the log) and its game equals a replay of the export."""
    app, token = api
    c = app.test_client()
    evs = _opening("chempiunat") + _game() + [{"t": 22.2, "type": "uno", "seat": None, "source": "speech"},
                                              {"t": 24.0, "type": "draw", "seat": 0, "count": 1}]
    assert _post(c, token, evs).status_code == 200
    exported, result = _dashboard_equals_replay_of_export(c)
    assert next(e for e in exported if e["type"] == "uno")["seat"] is None and result.flags == []


# ------------------------------------------------------------------------------------------------ (6) silence, then a burst
@pytest.mark.parametrize("order", ORDERS)
def test_a_long_silence_then_a_burst_comes_out_in_order_and_counts(tmp_path: Path, order: str) -> None:
    """Two minutes with nothing decided (the senses still tick), then within 1.2 s: seat 1 lays its last-but-one card
    saying UNO, seat 0 lays a Wild naming a colour; everything is released in `t` order, none late, nothing flagged."""
    game = _game(n_plays=10)  # seat 0 last played at 20: holds 2; seat 1 holds 2
    burst = 140.0
    game += [{"t": burst, "type": "play", "seat": 1, "cards": ["red-3"], "source": "vision"},
             {"t": burst + 0.6, "type": "play", "seat": 0, "cards": ["wild"], "source": "vision"},
             {"t": burst + 3.0, "type": "play", "seat": 1, "cards": ["green-3"], "source": "vision"}]
    sensed = _vision(game) + [_speech({"t": burst + 0.05, "type": "uno", "seat": 1}),
                              _speech({"t": burst + 0.5, "type": "color", "seat": 0, "color": "green"}),
                              _speech({"t": burst + 0.7, "type": "uno", "seat": 0})]
    written, printed, summary, path = _run(tmp_path, sensed, lag=ORDERS[order])
    result = _check_log(written, printed, path)
    assert summary["late_events"] == 0
    assert result.flags == [], _codes(result.flags)
    assert result.state.phase == "hand_over" or result.state.counts[1] == 0


def test_a_stalled_sense_holds_the_other_senses_events_back_not_out_of_order() -> None:
    """The merger releases only what is older than the slowest sense's clock minus the window (the runner passes
    min(watermarks)): a microphone that stops ticking holds the camera's plays until it ticks again."""
    m = EventMerger(window=1.5)
    released = m.update([{"t": 10.0, "type": "play", "seat": 1, "cards": ["red-1"]}], now=2.0)  # speech at 2.0
    assert released == [] and len(m) == 1
    out = m.update([{"t": 9.9, "type": "uno", "seat": 1}], now=12.0)
    assert [e["type"] for e in out] == ["uno", "play"] and m.late == 0
