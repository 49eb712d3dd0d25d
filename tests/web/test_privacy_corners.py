"""What spectators and rigs can see versus the referee (stop 64 audit, h1: privacy and roles on the dashboard).

During a hand, a Wild Draw Four challenge lays the +4 player's hand open to the challenger (MA-CHALLENGE: "The player
shows the hand to the challenger"; FA-W4: "the challenged player shows the hand to the referee"), and that hand then
stays in play. README: "A flag whose message names cards of a hand still in play (a Wild Draw Four challenge's)
carries `public_message`, which the overlay and every public stream show instead"; the overlay "never shows a hand";
"a +4 challenge's cards never reach the overlay or the public tournament page". Evidence, the review queue and every
decision (rule, correct, insert, the broadcast delay) are the referee's (`web/referee.py`, `referee_required`).

Every route is read here as a guest (no login), as a spectator account, as the table's rig (its bearer token) and as
a referee. Stop 64's audit found four leaks here, fixed since (each test's docstring says what was wrong).
"""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest

from tracker.log import event_to_dict
from tracker.script import script

# seat 0 lays a +4 holding two reds (red-3, red-9) with red in force; seat 1 challenges; seat 0 shows its six cards.
# The flag names red-3 and red-9; green-6 appears only in the revealed hand. The hand goes on afterwards.
CHALLENGE = "H3; T red-5; P0 wild-draw4 blue; X1; R0 red-3,red-9,green-1,blue-2,yellow-4,green-6"
IN_MESSAGE = "red-3"  # named by the flag's private message only
IN_HAND = "green-6"  # named by the reveal only
# the same challenge with a hand showing yellow-0 twice (the deck has one): the engine warns naming yellow-0
CHALLENGE_WARNED = "H3; T red-5; P0 wild-draw4 blue; X1; R0 red-3,yellow-0,yellow-0,green-1,blue-2,green-6"


def _log(steps: str = CHALLENGE) -> list[dict[str, Any]]:
    return [event_to_dict(e) for e in script("mattel", steps, players=4)]


def _table(app: Any, h: Any, steps: str = CHALLENGE, **kw: Any) -> str:
    """Register t1, post the challenge as the rig does; the rig's token."""
    token = h.add_table(app, "t1", **kw)
    c = app.test_client()
    r = c.post("/api/tables/t1/events", json=_log(steps), headers=h.bearer(token))
    assert r.status_code == 200, r.get_json()
    tl = app.extensions["unotable"].live.get("t1")
    assert tl.state["phase"] == "playing"  # the hand is still in play after the challenge
    (flag,) = tl.flags
    assert flag["code"] == "illegal_wild_draw4" and IN_MESSAGE in flag["message"]
    assert IN_MESSAGE not in flag["public_message"]
    return token


def _reader(app: Any, h: Any, who: str) -> Any:
    c = app.test_client()
    if who == "spectator":
        h.add_user(app, "fan", role="spectator")
        assert h.login(c, "fan").status_code == 302
    elif who == "referee":
        h.add_user(app, "ref")
        assert h.login(c, "ref").status_code == 302
    return c


# -- finding 1: the flags API ------------------------------------------------------------------------------------
@pytest.mark.parametrize("who", ["guest", "spectator"])
def test_the_flags_api_gives_spectators_the_public_challenge_message(sqlite_app: Any, h: Any, who: str) -> None:
    """README: a flag whose message names cards of a hand still in play "carries `public_message`, which the overlay
    and every public stream show instead"; MA-CHALLENGE: "The player shows the hand to the challenger" (not the hall).
    The API's docstring: "anyone may read"; README: `/flags` is "what pages and overlays read"."""
    _table(sqlite_app, h)
    c = _reader(sqlite_app, h, who)
    r = c.get("/api/tables/t1/flags")
    (flag,) = r.get_json()["flags"]
    assert flag["code"] == "illegal_wild_draw4" and flag["seat"] == 0 and flag["penalty"] == {"seat": 0, "cards": 4}
    assert IN_MESSAGE not in r.text and "held a card of the colour in force (red)" in flag["message"]


def test_the_delayed_flags_api_gives_the_public_challenge_message(sqlite_app: Any, h: Any) -> None:
    """The same, as an anonymous reader of a table with a broadcast delay reads it (`web/api.py:_view` replays it
    with `public=False`). README: "`public_message`, which the overlay and every public stream show instead"."""
    _table(sqlite_app, h, broadcast_delay=0.5)
    time.sleep(0.7)
    r = sqlite_app.test_client().get("/api/tables/t1/flags")
    assert [f["code"] for f in r.get_json()["flags"]] == ["illegal_wild_draw4"]  # the delayed view has the flag
    assert IN_MESSAGE not in r.text


# -- finding 2: the events API -----------------------------------------------------------------------------------
@pytest.mark.parametrize("who", ["guest", "spectator"])
def test_the_events_api_gives_spectators_a_challenge_reveal_as_a_count(sqlite_app: Any, h: Any, who: str) -> None:
    """MA-CHALLENGE: "The player shows the hand to the challenger"; FA-W4: "the challenged player shows the hand to the
    referee". README: cards of "a hand still in play (a Wild Draw Four challenge's)" are kept from every public
    stream; the overlay's stream already turns a reveal into a count (`web/live.py:public_event`)."""
    _table(sqlite_app, h)
    c = _reader(sqlite_app, h, who)
    r = c.get("/api/tables/t1/events")
    reveal = next(e for e in r.get_json()["events"] if e["type"] == "reveal")
    assert reveal["seat"] == 0 and reveal["cards"] == 6
    assert IN_HAND not in r.text and IN_MESSAGE not in r.text


# -- finding 3: the stream the live page and the scoreboard page open ----------------------------------------------
def test_the_live_pages_stream_never_carries_a_hand_in_play(sqlite_app: Any, h: Any) -> None:
    """`/tables/<table>` is public (README: "the live table: ... the log"), and `UT.livePage` (web/static/app.js)
    connects to `/api/tables/<t>/stream` with no `view`, then writes each event into the page's log with
    `UT.describe`, which for a reveal prints every card ("P0 (0) reveals red-3 red-9 ..."). README: the private
    message is replaced by `public_message` "which the overlay and every public stream show instead"; MA-CHALLENGE:
    the hand is shown "to the challenger"."""
    _table(sqlite_app, h)
    c = sqlite_app.test_client()
    page = c.get("/tables/t1")
    assert page.status_code == 200 and "UT.livePage" in page.text
    ((kind, snap, raw),) = h.sse_frames(c.get("/api/tables/t1/stream", buffered=False), 1)
    assert kind == "snapshot" and snap["state"]["phase"] == "playing"
    assert IN_HAND not in raw.decode() and IN_MESSAGE not in raw.decode()


def test_the_live_pages_update_never_carries_a_hand_in_play(sqlite_app: Any, h: Any) -> None:
    """As above, for the `update` pushed while a visitor watches: the reveal arrives after the page connected."""
    token = h.add_table(sqlite_app, "t1")
    rig, visitor = sqlite_app.test_client(), sqlite_app.test_client()
    log = _log()
    assert rig.post("/api/tables/t1/events", json=log[:-1], headers=h.bearer(token)).status_code == 200
    resp = visitor.get("/api/tables/t1/stream", buffered=False)
    it = iter(resp.response)
    first = next(it)
    assert b"event: snapshot" in first
    assert rig.post("/api/tables/t1/events", json=log[-1], headers=h.bearer(token)).status_code == 201
    buf = b""
    for chunk in it:
        buf += chunk
        if b"event: update" in buf and buf.endswith(b"\n\n"):
            break
    resp.close()
    assert b'"type":"reveal"' in buf  # the update with the reveal arrived
    assert IN_HAND.encode() not in buf and IN_MESSAGE.encode() not in buf


# -- finding 4: state warnings on the overlay's public stream ------------------------------------------------------
def test_the_overlay_stream_carries_no_warning_naming_a_challenged_hands_card(sqlite_app: Any, h: Any) -> None:
    """README: the overlay "never shows a hand"; "a +4 challenge's cards never reach the overlay or the public
    tournament page". `tracker/deck.py:check_reveal` warns "P0 (seat 0) revealed yellow-0: ... more than the deck
    has" into `state.warnings`, which every stream, `?view=public` included, sends whole."""
    _table(sqlite_app, h, steps=CHALLENGE_WARNED)
    tl = sqlite_app.extensions["unotable"].live.get("t1")
    assert any("yellow-0" in w for w in tl.state["warnings"])  # the referee's view keeps the warning
    c = sqlite_app.test_client()
    ((kind, snap, raw),) = h.sse_frames(c.get("/api/tables/t1/stream?view=public", buffered=False), 1)
    assert kind == "snapshot"
    reveal = next(e for e in snap["events"] if e["type"] == "reveal")
    assert reveal["cards"] == 6  # the reveal itself is a count ...
    assert b"yellow-0" not in raw  # ... and no warning names its cards either


# -- what holds ------------------------------------------------------------------------------------------------------
def test_the_referee_still_sees_the_challenged_hand_everywhere(sqlite_app: Any, h: Any) -> None:
    """The referee rules on the flag and must read what the engine found (FA-W4: the hand is shown "to the
    referee"): the flags API, the events API, the full stream, the review queue and `/api/tournament` name the cards,
    with a broadcast delay on the table too (README: a referee reads live)."""
    _table(sqlite_app, h, broadcast_delay=600)
    ref = _reader(sqlite_app, h, "referee")
    (flag,) = ref.get("/api/tables/t1/flags").get_json()["flags"]
    assert IN_MESSAGE in flag["message"]
    reveal = next(e for e in ref.get("/api/tables/t1/events").get_json()["events"] if e["type"] == "reveal")
    assert IN_HAND in reveal["cards"]
    ((_kind, _snap, raw),) = h.sse_frames(ref.get("/api/tables/t1/stream", buffered=False), 1)
    assert IN_HAND in raw.decode() and IN_MESSAGE in raw.decode()
    queue = ref.get("/referee")
    assert queue.status_code == 200 and IN_MESSAGE in queue.text
    (newest,) = ref.get("/api/tournament").get_json()["open_flags"]["newest"]
    assert IN_MESSAGE in newest["message"]
    assert IN_MESSAGE in ref.get("/tournament/body").text


@pytest.mark.parametrize("who", ["guest", "spectator"])
def test_the_tournament_hides_the_challenged_hand_from_spectators_even_delayed(sqlite_app: Any, h: Any,
                                                                              who: str) -> None:
    """README: "a +4 challenge's cards never reach the overlay or the public tournament page"; a guest of a table with
    a broadcast delay reads a replayed view (`web/tournament.py:_view`, `public=not referee`)."""
    _table(sqlite_app, h, broadcast_delay=0.5)
    time.sleep(0.7)
    c = _reader(sqlite_app, h, who)
    data = c.get("/api/tournament").get_json()
    (newest,) = data["open_flags"]["newest"]
    assert newest["code"] == "illegal_wild_draw4" and IN_MESSAGE not in newest["message"]
    assert IN_MESSAGE not in json.dumps(data) and IN_HAND not in json.dumps(data)
    body = c.get("/tournament/body").text
    assert "held a card of the colour in force" in body and IN_MESSAGE not in body


def test_the_delayed_overlay_stream_hides_the_challenged_hand(sqlite_app: Any, h: Any) -> None:
    """The overlay with the table's broadcast delay (`web/api.py:_delayed_stream`, a replayed snapshot): README, the
    overlay "never shows a hand"; the flag shows its `public_message`."""
    _table(sqlite_app, h, broadcast_delay=0.5)
    time.sleep(0.7)
    c = sqlite_app.test_client()
    assert 'data-delay="0.5"' in c.get("/overlay/t1").text
    ((kind, snap, raw),) = h.sse_frames(c.get("/api/tables/t1/stream?view=public", buffered=False), 1)
    assert kind == "snapshot" and snap["seq"] == len(_log())
    assert [f["code"] for f in snap["flags"]] == ["illegal_wild_draw4"]
    assert IN_HAND.encode() not in raw and IN_MESSAGE.encode() not in raw


def test_the_scoreboard_csv_names_no_card(sqlite_app: Any, h: Any) -> None:
    """The public CSV export counts flags per seat; it carries no flag message."""
    _table(sqlite_app, h)
    text = sqlite_app.test_client().get("/scoreboard/t1.csv").text
    assert "flags upheld" in text and IN_MESSAGE not in text and IN_HAND not in text


def _evidence(app: Any, h: Any, token: str) -> list[int]:
    c = app.test_client()
    ids = []
    for kind, data, name in (("frame", b"\xff\xd8\xff\xe0" + bytes(32), "f.jpg"),
                             ("clip", b"\x00\x00\x00\x18ftypmp42" + bytes(32), "c.mp4"),
                             ("audio", b"RIFF" + bytes(40), "a.wav")):
        r = c.post("/api/tables/t1/evidence", headers=h.bearer(token),
                   data={"kind": kind, "t": "3.0", "file": (io.BytesIO(data), name)})
        assert r.status_code == 201, r.get_json()
        ids.append(r.get_json()["id"])
    return ids


def test_evidence_and_clips_are_the_referees_alone(sqlite_app: Any, h: Any) -> None:
    """Frames, clips and audio are the referee's (README: `/referee` shows "frames before and after, clip and audio");
    a guest is sent to log in, a spectator refused, and the rig's own bearer token opens no referee door."""
    token = _table(sqlite_app, h)
    ids = _evidence(sqlite_app, h, token)
    guest = sqlite_app.test_client()
    fan = _reader(sqlite_app, h, "spectator")
    rig = sqlite_app.test_client()
    ref = _reader(sqlite_app, h, "referee")
    for ev_id in ids:
        url = f"/referee/evidence/{ev_id}"
        assert guest.get(url).status_code == 302
        assert rig.get(url, headers=h.bearer(token)).status_code == 302
        assert fan.get(url).status_code == 403
        assert ref.get(url).status_code == 200
    for url in ("/referee/clip/t1.mjpg?t=3", "/referee", "/referee/audit.json", "/referee/audit.csv"):
        assert guest.get(url).status_code == 302, url
        assert rig.get(url, headers=h.bearer(token)).status_code == 302, url
        assert fan.get(url).status_code == 403, url
    # no public route lists the evidence files: the API's answers name none of their paths
    store = sqlite_app.extensions["unotable"].store
    paths = [store.evidence_item(i)["path"] for i in ids]
    for url in ("/api/tables/t1/state", "/api/tables/t1/flags", "/api/tables/t1/events", "/api/tournament",
                "/api/tables", "/tournament", "/tables/t1", "/"):
        text = guest.get(url).text
        assert not any(p in text for p in paths), url
    assert token not in json.dumps(guest.get("/api/tables").get_json())  # nor the rig's token


def test_a_spectator_can_not_correct_insert_or_change_the_delay(sqlite_app: Any, h: Any) -> None:
    """Only a referee corrects a line or sets a broadcast delay (`referee_required`: "a spectator gets 403"); the
    spectator's own valid CSRF token makes no difference. (Ruling is covered by test_security.py.)"""
    _table(sqlite_app, h)
    fan = _reader(sqlite_app, h, "spectator")
    csrf = h.csrf_from(fan.get("/").text)
    posts = [("/referee/correct", {"table": "t1", "line": "6", "strike": "on"}),
             ("/referee/tables/t1/delay", {"delay": "0"})]
    if any(r.rule == "/referee/insert" for r in sqlite_app.url_map.iter_rules()):
        posts.append(("/referee/insert", {"table": "t1", "after": "3", "event": '{"type": "draw", "seat": 1}'}))
    svc = sqlite_app.extensions["unotable"]
    before = svc.store.event_count(svc.store.table("t1").id)
    for url, form in posts:
        r = fan.post(url, data={**form, "csrf_token": csrf})
        assert r.status_code == 403 and "only a referee" in r.text, url
    assert svc.store.event_count(svc.store.table("t1").id) == before
    assert svc.store.table("t1").broadcast_delay == 0


def test_a_rig_can_not_slip_a_referees_event_into_a_batch(sqlite_app: Any, h: Any) -> None:
    """EVENTS.md: a `ruling` is "a referee's decision", a `correction` is how "a referee corrects what a sense got
    wrong"; a rig's batch holding one, after an ordinary draw, is refused whole and changes nothing."""
    token = _table(sqlite_app, h)
    c = sqlite_app.test_client()
    svc = sqlite_app.extensions["unotable"]
    before = svc.store.event_count(svc.store.table("t1").id)
    draw = {"t": 9.0, "type": "draw", "seat": 0, "count": 4}
    for referee_event in ({"t": 9.0, "type": "ruling", "flag": "4-illegal_wild_draw4-0", "decision": "dismissed"},
                          {"t": 9.0, "type": "correction", "line": 6, "event": None},
                          {"t": 9.0, "type": "insert", "after": 3, "event": {"type": "draw", "seat": 1}}):
        r = c.post("/api/tables/t1/events", json=[draw, referee_event], headers=h.bearer(token))
        assert r.status_code in (400, 403), (referee_event["type"], r.get_json())  # 400: a type this build lacks
        if r.status_code == 403:
            assert "only a referee" in r.get_json()["error"]
    assert svc.store.event_count(svc.store.table("t1").id) == before
    assert svc.live.get("t1").flags[0]["status"] == "open"


def test_a_rigs_token_writes_only_its_own_tables_frames_and_evidence(sqlite_app: Any, h: Any) -> None:
    """A table's token may write to that table only (`web/api.py:_require_token`); frames, which become the referee's
    evidence once a second, included."""
    tok_a = h.add_table(sqlite_app, "a")
    h.add_table(sqlite_app, "b")
    c = sqlite_app.test_client()
    frame = b"\xff\xd8\xff\xe0" + bytes(32)
    r = c.post("/api/tables/b/frames", headers=h.bearer(tok_a), data={"t": "1", "frame": (io.BytesIO(frame), "f.jpg")})
    assert r.status_code == 403
    r = c.post("/api/tables/b/frames", data={"t": "1", "frame": (io.BytesIO(frame), "f.jpg")})
    assert r.status_code == 401
    store = sqlite_app.extensions["unotable"].store
    assert store.evidence(store.table("b").id, 0, 10) == []
