"""A tournament referee's evening, end to end, in headless Chromium (stop 63 audit, h6).

Logging in and out, roles (a spectator, a rig's token) and CSRF on every form; the queue while flags arrive from
several tables; a flag upheld, dismissed and upheld again; two referees ruling at once; a correction made in the
browser and what every view shows after it; a note with markup on every page and export that shows it; evidence for
a table with no camera; the tournament page with 20 tables; the queue by keyboard alone; and the server restarting
under open pages. Tests commented "finding N" are what the code got wrong before stop 63's fixes.
"""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tracker.engine import replay
from tracker.log import event_to_dict, parse_event
from tracker.script import script

PASSWORD = "correct horse battery"
NASTY_NOTE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> & "q" \u2028 Аня'


# -- helpers ----------------------------------------------------------------------------------------------------
def _req(url: str, body: Any = None, token: str | None = None, method: str | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw[:1] in (b"{", b"[") else raw.decode()
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, json.loads(raw) if raw[:1] in (b"{", b"[") else raw.decode()


def post(base: str, table: str, token: str, body: Any) -> Any:
    status, out = _req(f"{base}/api/tables/{table}/events", body, token)
    assert status in (200, 201), out
    return out


def api(base: str, path: str) -> Any:
    status, out = _req(f"{base}{path}")
    assert status == 200, out
    return out


def open_flags(base: str, table: str) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in api(base, f"/api/tables/{table}/flags?status=open")["flags"]}


def events(base: str, table: str) -> list[dict[str, Any]]:
    return api(base, f"/api/tables/{table}/events")["events"]  # type: ignore[no-any-return]


def replay_of(evs: list[dict[str, Any]]) -> Any:
    return replay([parse_event({k: v for k, v in e.items() if k != "log_line"}, e["log_line"]) for e in evs])


def frame(bgr: tuple[int, int, int]) -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((180, 320, 3), bgr, np.uint8))
    assert ok
    return bytes(buf)


def upload(base: str, table: str, token: str, path: str, fields: dict[str, str], files: dict[str, bytes]) -> Any:
    boundary = "----h6evening"
    parts = []
    for k, v in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    for k, data in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; filename="{k}.bin"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(f"{base}/api/tables/{table}/{path}", data=body, method="POST",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.loads(resp.read())


def login(page: Any, base: str, user: str = "ref", password: str = PASSWORD, path: str = "/referee") -> None:
    page.goto(f"{base}/login?next={path}")
    page.fill("#username", user)
    page.fill("#password", password)
    with page.expect_navigation():
        page.click("#login-submit")


def card(table: str, flag: str) -> str:
    return f'article[data-table="{table}"][data-flag="{flag}"]'


def rule_in(page: Any, table: str, flag: str, decision: str, note: str = "") -> None:
    sel = card(table, flag)
    if note:
        page.fill(f'{sel} input[name="note"]', note)
    with page.expect_navigation():
        page.click(f"{sel} button.{'uphold' if decision == 'upheld' else 'dismiss'}")


def new_context(browser: Any, **kw: Any) -> Any:
    ctx = browser.new_context(**kw)
    ctx.set_default_timeout(8000)
    return ctx


START4 = [
    {"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob", "Cy", "Dan"]},
    {"t": 1.0, "type": "hand_start", "dealer": 0},
    {"t": 2.0, "type": "starter", "card": "red-5"},
]


class Venue:
    """A dashboard on a data folder served by cheroot on a fixed port, which can be stopped and started again (a
    server restart: a fresh process' app on the same database, secret key file and port)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        with socket.socket() as s:  # a fixed port from the start, so that cheroot binds it with SO_REUSEADDR
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.app: Any = None
        self.server: Any = None

    def start(self) -> Venue:
        from web import create_app
        from web.server import Server

        self.app = create_app({"DATA_DIR": str(self.data_dir), "TOURNAMENT_REFRESH_S": 0.3})
        self.server = Server(self.app, "127.0.0.1", self.port, threads=64).start()
        self.port = self.server.port
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.app.extensions["unotable"].store.dispose()
            self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def store(self) -> Any:
        return self.app.extensions["unotable"].store


@pytest.fixture
def venue(data_dir: Path) -> Any:
    v = Venue(data_dir).start()
    yield v
    v.stop()


@pytest.fixture
def evening(live_server: Any, sqlite_app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> Any:
    """t1 playing the flagged log, t2 and t3 registered, referees ref and ref2, spectator fan."""
    sqlite_app.config["TOURNAMENT_REFRESH_S"] = 0.3
    tokens = {name: h.add_table(sqlite_app, name) for name in ("t1", "t2", "t3")}
    for name, role in (("ref", "referee"), ("ref2", "referee"), ("fan", "spectator")):
        h.add_user(sqlite_app, name, role=role)
    post(live_server.url, "t1", tokens["t1"], flagged_log)
    live_server.tokens = tokens
    live_server.app = sqlite_app
    return live_server


def _flag_of(base: str, table: str, code: str) -> dict[str, Any]:
    return next(f for f in open_flags(base, table).values() if f["code"] == code)


# -- logging in and out, roles, CSRF ---------------------------------------------------------------------------
@pytest.mark.browser
def test_login_next_logout_and_a_page_left_open_after_logout(browser: Any, evening: Any) -> None:
    base = evening.url
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{base}/referee?table=t1")
        assert "/login" in page.url  # a guest is sent to log in, and comes back where it asked to go
        page.fill("#username", "ref")
        page.fill("#password", "wrong password!")
        page.click("#login-submit")
        assert "Wrong user name or password" in page.inner_text("main")
        page.fill("#username", "ref")
        page.fill("#password", PASSWORD)
        with page.expect_navigation():
            page.click("#login-submit")
        assert page.url.endswith("/referee?table=t1")
        assert page.inner_text("#whoami") == "ref (referee)"
        n = page.locator("#queue article").count()
        assert n == len(open_flags(base, "t1")) == 4
        # a second tab of the same referee keeps the queue open while the first logs out
        stale = ctx.new_page()
        stale.goto(f"{base}/referee")
        with page.expect_navigation():
            page.click(".who button")
        assert page.query_selector("#whoami") is None
        page.go_back()  # Back after logging out fetches the queue again: the login page, not a cached queue
        assert "/login" in page.url and page.locator("#queue article").count() == 0
        page.goto(f"{base}/referee")
        assert "/login" in page.url
        flag = next(iter(open_flags(base, "t1")))
        stale.click(f'{card("t1", flag)} button.uphold')
        stale.wait_for_load_state()
        # the session is gone, so the forged-looking post is refused before anything is written
        assert "refused" in stale.inner_text("main") or "log in" in stale.inner_text("main")
        assert all(e["type"] != "ruling" for e in events(base, "t1"))
    finally:
        ctx.close()


@pytest.mark.browser
def test_a_spectator_and_a_rig_token_can_not_rule(browser: Any, evening: Any) -> None:
    base, tok = evening.url, evening.tokens["t1"]
    flag = next(iter(open_flags(base, "t1")))
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        login(page, base, "fan", path="/")
        assert page.inner_text("#whoami") == "fan (spectator)"
        resp = page.goto(f"{base}/referee")
        assert resp.status == 403 and "only a referee" in page.inner_text("#error-message")
        assert page.goto(f"{base}/referee/audit.csv").status == 403
        # the spectator's own CSRF token does not make a ruling theirs to make
        page.goto(f"{base}/")
        token = page.get_attribute('input[name="csrf_token"]', "value")
        r = ctx.request.post(f"{base}/referee/rule", form={"table": "t1", "flag": flag, "decision": "upheld",
                                                          "csrf_token": token or ""})
        assert r.status == 403
        # a rig's bearer token opens none of the referee's doors, and the API refuses its rulings
        rig = browser.new_context()
        try:
            for url, form in (("/referee/rule", {"table": "t1", "flag": flag, "decision": "upheld"}),
                              ("/referee/correct", {"table": "t1", "line": "3", "strike": "on"}),
                              ("/referee/tables/t1/delay", {"delay": "30"})):
                r = rig.request.post(f"{base}{url}", form=form, headers={"Authorization": f"Bearer {tok}"})
                assert r.status in (400, 401), (url, r.status)  # no session: CSRF or login refuses it
            assert rig.request.get(f"{base}/referee/audit.json",
                                   headers={"Authorization": f"Bearer {tok}"}, max_redirects=0).status == 302
        finally:
            rig.close()
        status, out = _req(f"{base}/api/tables/t1/events",
                           {"t": 99, "type": "ruling", "flag": flag, "decision": "dismissed"}, tok)
        assert status == 403 and "only a referee" in out["error"]
        assert all(e["type"] != "ruling" for e in events(base, "t1"))
        assert evening.app.extensions["unotable"].store.table("t1").broadcast_delay == 0
    finally:
        ctx.close()


@pytest.mark.browser
def test_every_form_carries_csrf_and_a_forged_or_foreign_token_is_refused(browser: Any, evening: Any) -> None:
    base = evening.url
    a, b = new_context(browser), new_context(browser)
    try:
        pa, pb = a.new_page(), b.new_page()
        login(pa, base, "ref")
        login(pb, base, "ref2")
        for path in ("/referee", "/login", "/", "/tournament"):
            pa.goto(f"{base}{path}")
            forms = pa.eval_on_selector_all(
                "form", "fs => fs.map(f => [f.method, f.action, !!(f.querySelector('input[name=csrf_token]') "
                        "&& f.querySelector('input[name=csrf_token]').value)])")
            assert forms and all(has for method, _a, has in forms if method == "post"), (path, forms)
        pa.goto(f"{base}/referee")
        flag = next(iter(open_flags(base, "t1")))
        sel = card("t1", flag)
        # another referee's token, then a made-up one, then none at all
        pb.goto(f"{base}/referee")
        foreign = pb.get_attribute(f'{sel} input[name="csrf_token"]', "value")
        for value in (foreign, "forged", None):
            pa.goto(f"{base}/referee")
            if value is None:
                pa.eval_on_selector(sel, "a => a.querySelectorAll('input[name=csrf_token]').forEach(i => i.remove())")
            else:
                pa.eval_on_selector(f'{sel} input[name="csrf_token"]', "(i, v) => { i.value = v; }", value)
            with pa.expect_navigation():
                pa.click(f"{sel} button.uphold")
            assert "CSRF" in pa.inner_text("#error-message"), value
        # a page on another site posting the referee's form: SameSite=Lax keeps the cookie home, CSRF the rest
        evil = a.new_page()
        evil.route("http://evil.test/**", lambda route: route.fulfill(content_type="text/html", body=(
            f'<form id=f method=post action="{base}/referee/rule"><input name=table value=t1>'
            f'<input name=flag value="{flag}"><input name=decision value=dismissed></form>'
            "<script>document.getElementById('f').submit()</script>")))
        evil.goto("http://evil.test/prize")
        evil.wait_for_url(f"{base}/referee/rule")
        assert "refused" in evil.inner_text("main") or "log in" in evil.inner_text("main")
        assert all(e["type"] != "ruling" for e in events(base, "t1"))
    finally:
        a.close()
        b.close()


# -- the queue while flags arrive from several tables ------------------------------------------------------------
@pytest.mark.browser
# finding 1: the referee queue is a static page: flags raised on other tables after it loaded never appear, and its count stays stale, until the referee reloads (fixed at stop 63)
def test_the_queue_shows_flags_arriving_from_other_tables_without_a_reload(
    browser: Any, evening: Any, flagged_log: list[dict[str, Any]]
) -> None:
    base = evening.url
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        login(page, base)
        assert page.locator("#queue article").count() == 4
        post(base, "t2", evening.tokens["t2"], flagged_log)
        page.wait_for_selector('article[data-table="t2"]', timeout=4000)
    finally:
        ctx.close()


@pytest.mark.browser
def test_after_a_reload_the_queue_counts_every_tables_flags_and_filters_by_table(
    browser: Any, evening: Any, flagged_log: list[dict[str, Any]]
) -> None:
    base = evening.url
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        login(page, base)
        post(base, "t2", evening.tokens["t2"], flagged_log)  # the same log: the same flag ids on another table
        post(base, "t3", evening.tokens["t3"], [*START4, {"t": 3.0, "type": "play", "seat": 2, "cards": ["red-7"]}])
        page.reload()
        want = {t: set(open_flags(base, t)) for t in ("t1", "t2", "t3")}
        assert [len(want[t]) for t in ("t1", "t2", "t3")] == [4, 4, 1]
        shown = page.eval_on_selector_all("#queue article", "as => as.map(a => [a.dataset.table, a.dataset.flag])")
        assert sorted(map(tuple, shown)) == sorted((t, f) for t, ids in want.items() for f in ids)
        assert page.inner_text("h1 small") == "(9)"
        # ruling t2's copy of a flag id leaves t1's copy open
        shared = sorted(want["t1"] & want["t2"])[0]
        rule_in(page, "t2", shared, "upheld")
        assert page.query_selector(card("t1", shared)) is not None and page.query_selector(card("t2", shared)) is None
        assert open_flags(base, "t1")[shared]["status"] == "open"
        assert page.inner_text("h1 small") == "(8)"
        for t in ("t1", "t2", "t3"):
            page.goto(f"{base}/referee?table={t}")
            assert set(page.eval_on_selector_all("#queue article", "as => as.map(a => a.dataset.table)")) == {t}
            assert page.locator("#queue article").count() == len(open_flags(base, t))
        # ?status= is not a filter of the queue (only /api/.../flags has one): the open queue, unharmed
        resp = page.goto(f"{base}/referee?status=upheld")
        assert resp.status == 200 and page.locator("#queue article").count() == 8
        assert page.goto(f"{base}/referee?table=nope").status == 404
    finally:
        ctx.close()


# -- one flag ruled on again and again, and by two referees at once -----------------------------------------------
@pytest.mark.browser
def test_uphold_dismiss_uphold_the_same_flag_and_every_view_follows(browser: Any, evening: Any) -> None:
    base = evening.url
    uno = _flag_of(base, "t1", "missed_uno")
    seat, cards = uno["seat"], uno["penalty"]["cards"]
    before = api(base, "/api/tables/t1/state")["state"]["counts"][seat]
    ctx = new_context(browser, viewport={"width": 1920, "height": 1080})
    try:
        overlay, board, live = ctx.new_page(), ctx.new_page(), ctx.new_page()
        overlay.goto(f"{base}/overlay/t1")
        board.goto(f"{base}/scoreboard/t1")
        live.goto(f"{base}/tables/t1")
        count_sel = f'#ov-seats [data-seat="{seat}"] .count'
        overlay.wait_for_selector(count_sel)
        board.wait_for_selector("#flags-upheld")
        live.wait_for_function("document.getElementById('open-flags').textContent === '4'")
        # the queue rules once; the Decided list changes the decision (stop 63: a stale tab is told another
        # referee ruled meanwhile, see the next test, so the list is how a referee rules again)
        tab = ctx.new_page()
        login(tab, base)
        seen = []
        for k, decision in enumerate(("upheld", "dismissed", "upheld")):
            if k == 0:
                rule_in(tab, "t1", uno["id"], decision)
            else:
                with tab.expect_navigation():
                    tab.click(f'#decided form.change[data-ruled-flag="{uno["id"]}"] button')
            assert f"{uno['id']} on t1 {decision}" in tab.inner_text(".flash.ok")
            want = before if decision == "upheld" else before - cards
            overlay.wait_for_function("([s, n]) => Number(document.querySelector(s).textContent) === n",
                                      arg=[count_sel, want])
            seen.append(api(base, "/api/tables/t1/state")["state"]["counts"][seat])
        assert seen == [before, before - cards, before]
        board.wait_for_function(f"document.querySelector('#flags-upheld td[data-seat=\"{seat}\"]').textContent === '1'")
        assert board.inner_text(f'#flags-dismissed td[data-seat="{seat}"]') == "0"
        assert board.inner_text(f'#penalty-cards td[data-seat="{seat}"]') == str(cards)
        live.wait_for_function("document.getElementById('open-flags').textContent === '3'")
        assert live.locator("#log li.referee").count() == 3
        # the overlay put up a banner for each uphold it saw, none for the dismissal
        assert overlay.locator(f'.ov-banner[data-flag="{uno["id"]}"]').count() == 2
        decided = tab.eval_on_selector_all("#decided tbody tr", "rs => rs.map(r => r.cells[4].textContent)")
        assert decided == ["upheld", "dismissed", "upheld"]
        evs = events(base, "t1")
        assert replay_of(evs).state.to_dict() == api(base, "/api/tables/t1/state")["state"]
        audit = tab.request.get(f"{base}/referee/audit.json").json()["rulings"]
        assert [(r["flag_id"], r["decision"]) for r in audit] == [(uno["id"], d) for d in ("upheld", "dismissed", "upheld")]
    finally:
        ctx.close()


@pytest.mark.browser
# finding 2: a second referee's ruling from a queue loaded before the first referee ruled silently overrides it: nothing tells either referee, and the flag ends as the stale page said (fixed at stop 63)
def test_a_ruling_from_a_stale_queue_does_not_silently_override_another_referees(browser: Any, evening: Any) -> None:
    base = evening.url
    flag = _flag_of(base, "t1", "illegal_card")["id"]
    a, b = new_context(browser), new_context(browser)
    try:
        pa, pb = a.new_page(), b.new_page()
        login(pa, base, "ref")
        login(pb, base, "ref2")
        pb.fill(f'{card("t1", flag)} input[name="note"]', "dismiss")  # ref2 is typing: its queue is not refreshed
        rule_in(pa, "t1", flag, "upheld", note="saw it on camera")
        rule_in(pb, "t1", flag, "dismissed", note="dismiss")  # ref2's page still offers the flag as open
        status = {f["id"]: f for f in api(base, "/api/tables/t1/flags")["flags"]}[flag]["status"]
        told = "already" in pb.inner_text("main").lower()
        assert status == "upheld" and told, (status, pb.inner_text("main")[:300])
        # ref2, now knowing, may still rule the other way: one click on the page that told it
        with pb.expect_navigation():
            pb.click("#rule-anyway")
        assert {f["id"]: f for f in api(base, "/api/tables/t1/flags")["flags"]}[flag]["status"] == "dismissed"
    finally:
        a.close()
        b.close()


@pytest.mark.browser
def test_two_referees_submitting_at_the_same_moment_leave_a_log_that_replays_to_the_page(
    browser: Any, evening: Any
) -> None:
    base = evening.url
    flags = sorted(open_flags(base, "t1"))
    a, b = new_context(browser), new_context(browser)
    try:
        pa, pb = a.new_page(), b.new_page()
        login(pa, base, "ref")
        login(pb, base, "ref2")
        # same flag from both, then two different flags from both, each pair submitted without waiting: on the
        # same flag the second to arrive is told the first ruled meanwhile (stop 63), and nothing of it is stored
        conflicts = 0
        for fa, fb in ((flags[0], flags[0]), (flags[1], flags[2])):
            for p, f, d in ((pa, fa, "upheld"), (pb, fb, "dismissed")):
                p.eval_on_selector(f'{card("t1", f)} button.{"uphold" if d == "upheld" else "dismiss"}',
                                   "b => b.form.requestSubmit(b)")
            for p in (pa, pb):
                p.wait_for_selector(".flash.ok, #conflict")
                conflicts += p.locator("#conflict").count()
            pa.goto(f"{base}/referee")
            pb.goto(f"{base}/referee")
        evs = events(base, "t1")
        rulings = [e for e in evs if e["type"] == "ruling"]
        assert conflicts == 1
        assert len(rulings) == 3 and [e["log_line"] for e in evs] == list(range(1, len(evs) + 1))
        assert {(e["flag"], e["by"]) for e in rulings} - {(flags[0], "ref"), (flags[0], "ref2")} == {
            (flags[1], "ref"), (flags[2], "ref2")}
        assert sum(e["flag"] == flags[0] for e in rulings) == 1
        assert replay_of(evs).state.to_dict() == api(base, "/api/tables/t1/state")["state"]
        audit = api(base, "/api/tables/t1/flags")["flags"]
        assert {f["id"]: f["status"] for f in audit}[flags[1]] == "upheld"
        assert pa.locator("#queue article").count() == 1 == len(open_flags(base, "t1"))
    finally:
        a.close()
        b.close()


# -- a correction made in the browser ------------------------------------------------------------------------------
@pytest.mark.browser
def test_a_correction_in_the_browser_and_what_every_view_shows_after(browser: Any, evening: Any) -> None:
    base = evening.url
    bad = _flag_of(base, "t1", "illegal_card")
    line = bad["line"]
    original = next(e for e in events(base, "t1") if e["log_line"] == line)
    assert original["type"] == "play"
    ctx = new_context(browser, viewport={"width": 1920, "height": 1080})
    try:
        live, board, overlay, ref = ctx.new_page(), ctx.new_page(), ctx.new_page(), ctx.new_page()
        live.goto(f"{base}/tables/t1")
        board.goto(f"{base}/scoreboard/t1")
        overlay.goto(f"{base}/overlay/t1")
        live.wait_for_function("document.getElementById('open-flags').textContent === '4'")
        n_lines = live.locator("#log li").count()
        login(ref, base)
        sel = card("t1", bad["id"])
        ref.click(f"{sel} details.correct summary")
        shown = json.loads(ref.input_value(f"{sel} textarea[name=event]"))
        assert shown == {k: v for k, v in original.items() if k != "log_line"}
        # the sense misread the colour: the card was the colour in force, the same value
        colour = re.search(r"with (\w+) in force", bad["message"]).group(1)  # type: ignore[union-attr]
        fixed = dict(shown, cards=[f"{colour}-{shown['cards'][0].split('-', 1)[1]}"])
        ref.fill(f"{sel} textarea[name=event]", json.dumps(fixed))
        ref.fill(f'{sel} details input[name="note"]', NASTY_NOTE)
        with ref.expect_navigation():
            ref.click(f"{sel} button.correct-btn")
        assert f"Line {line} on t1 corrected" in ref.inner_text(".flash.ok")
        assert ref.query_selector(sel) is None  # the flag is withdrawn
        now_open = open_flags(base, "t1")  # the corrected card makes the next play the odd one out: a new flag
        assert bad["id"] not in now_open and f"({len(now_open)})" == ref.inner_text("h1 small")
        assert ref.locator("#queue article").count() == len(now_open)
        row = ref.eval_on_selector("#decided tbody tr:last-child", "r => [...r.cells].map(c => c.textContent)")
        assert row[2:5] == ["correction", f"line {line}", "corrected"] and row[6] == NASTY_NOTE.strip()
        # every view: the live page, the scoreboard, the overlay, the API and a replay of the exported log agree
        live.wait_for_function(f"document.getElementById('open-flags').textContent === '{len(now_open)}'")
        assert live.locator("#log li").count() == n_lines + 1
        assert f"line {line} corrected" in live.inner_text("#log li:last-child")
        state = api(base, "/api/tables/t1/state")["state"]
        evs = events(base, "t1")
        rep = replay_of(evs)
        assert rep.state.to_dict() == state and bad["id"] not in {f.id for f in rep.flags}
        overlay.wait_for_function("([s, n]) => document.querySelectorAll(s).length === n",
                                  arg=["#ov-seats .ov-seat", len(state["players"])])
        counts = overlay.eval_on_selector_all("#ov-seats .count", "els => els.map(e => Number(e.textContent))")
        assert counts == state["counts"]
        board.wait_for_function("([s, n]) => document.querySelector(s).textContent === n", arg=[
            f'#flags-open td[data-seat="{bad["seat"]}"]', str(sum(1 for f in now_open.values() if f["seat"] == bad["seat"]))])
        # the corrected line itself still reads as the sense saw it (only a struck line is marked)
        print("live page, line", line, "after its correction:", live.inner_text(f'#log li[data-line="{line}"]'))
        store = evening.app.extensions["unotable"].store
        assert {f["id"]: f["status"] for f in store.flags()}[bad["id"]] == "withdrawn"
        # the tournament page counts the flags the queue shows
        ref.goto(f"{base}/tournament")
        assert ref.inner_text("#n-flags") == str(len(now_open))
    finally:
        ctx.close()


# -- a note with markup on every page and export that shows it ------------------------------------------------------
@pytest.mark.browser
def test_a_note_with_markup_is_text_on_every_page_and_in_the_exports(browser: Any, evening: Any) -> None:
    base = evening.url
    flags = sorted(open_flags(base, "t1"))
    formula = '=HYPERLINK("http://evil.example/","prize")'
    ctx = new_context(browser, viewport={"width": 1920, "height": 1080}, accept_downloads=True)
    dialogs: list[str] = []
    ctx.on("page", lambda p: p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss())))
    try:
        live, overlay, ref = ctx.new_page(), ctx.new_page(), ctx.new_page()
        live.goto(f"{base}/tables/t1")
        overlay.goto(f"{base}/overlay/t1")
        live.wait_for_selector("#log li")
        login(ref, base)
        rule_in(ref, "t1", flags[0], "upheld", note=NASTY_NOTE)
        rule_in(ref, "t1", flags[1], "dismissed", note=formula)
        # a bad correction whose JSON carries markup comes back on the error page as text
        sel = card("t1", flags[2])
        ref.click(f"{sel} details.correct summary")
        ref.fill(f"{sel} textarea[name=event]", json.dumps({"t": 1, "type": "<img src=x onerror=alert(7)>"}))
        with ref.expect_navigation():
            ref.click(f"{sel} button.correct-btn")
        assert "<img src=x onerror=alert(7)>" in ref.inner_text("#error-message")
        assert ref.query_selector("main img") is None
        ref.goto(f"{base}/referee")
        notes = ref.eval_on_selector_all("#decided tbody tr", "rs => rs.map(r => r.cells[6].textContent)")
        assert notes == [formula, NASTY_NOTE.strip()]  # newest first
        assert ref.query_selector("#decided img, #decided script") is None
        live.wait_for_function("document.querySelectorAll('#log li.referee').length === 2")
        assert NASTY_NOTE.strip() in live.inner_text("#log")
        assert live.query_selector("#log img, #log script") is None
        for p in (ref, live, overlay):
            assert p.evaluate("window.__pwned") is None
        assert dialogs == []
        with ref.expect_download() as dl:
            ref.click("#audit-csv")
        rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
        assert [r["note"] for r in rows] == [NASTY_NOTE.strip(), "'" + formula]
        assert [r["decision"] for r in rows] == ["upheld", "dismissed"]
        audit = ref.request.get(f"{base}/referee/audit.json").json()
        assert [r["note"] for r in audit["rulings"]] == [NASTY_NOTE.strip(), formula]
    finally:
        ctx.close()


# -- evidence for a table with no camera ----------------------------------------------------------------------------
@pytest.mark.browser
def test_evidence_belongs_to_its_own_table_and_a_table_without_a_camera_says_so(
    browser: Any, evening: Any, flagged_log: list[dict[str, Any]]
) -> None:
    base, tokens = evening.url, evening.tokens
    post(base, "t2", tokens["t2"], flagged_log)  # t2 plays the same game, flag for flag, with no camera
    uno = _flag_of(base, "t1", "missed_uno")
    t = uno["t"]
    for dt in (-2.0, -1.0, 1.0, 2.0):
        upload(base, "t1", tokens["t1"], "frames", {"t": f"{t + dt:.3f}", "overlay": "{}"}, {"frame": frame((0, 0, 200))})
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        login(page, base)
        with_cam, no_cam = card("t1", uno["id"]), card("t2", uno["id"])
        assert page.locator(f"{with_cam} .frames img").count() == 4
        page.wait_for_function(f"[...document.querySelectorAll('{with_cam} .frames img')].every(i => i.naturalWidth > 0)")
        assert "No evidence uploaded near" in page.inner_text(f"{no_cam} .evidence")
        assert page.query_selector(f"{no_cam} .evidence img, {no_cam} .evidence a, {no_cam} .evidence video") is None
        # t1's frames played as a clip; t2's "clip" (no frames) is an empty stream, not another table's frames
        href = page.get_attribute(f"{with_cam} .evidence a", "href")
        assert href and href.startswith("/referee/clip/t1.mjpg")
        clip = ctx.request.get(f"{base}{href}")
        assert clip.status == 200 and clip.body().count(b"\xff\xd8\xff") == 4
        empty = ctx.request.get(f"{base}/referee/clip/t2.mjpg?t={t}")
        assert empty.status == 200 and b"\xff\xd8\xff" not in empty.body()
        assert ctx.request.get(f"{base}/referee/clip/t2.mjpg?t=nan").status == 400
    finally:
        ctx.close()


# finding 3: a clip or audio recording that began more than 36 s before a flag is not offered with it though it covers the flag's moment: the evidence query stops at t - window - 30 s (fixed at stop 63)
def test_a_long_recording_covering_the_flag_is_offered_with_it(sqlite_app: Any, h: Any,
                                                              flagged_log: list[dict[str, Any]]) -> None:
    token = h.add_table(sqlite_app)
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    assert c.post("/api/tables/t1/events", json=flagged_log, headers=h.bearer(token)).status_code == 200
    uno = next(f for f in c.get("/api/tables/t1/flags").get_json()["flags"] if f["code"] == "missed_uno")
    n = 16000 * 2
    pcm = (np.sin(np.arange(n) * 0.1) * 8000).astype("<i2").tobytes()
    wav = (b"RIFF" + (36 + len(pcm)).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
           + (1).to_bytes(2, "little") + (1).to_bytes(2, "little") + (16000).to_bytes(4, "little")
           + (32000).to_bytes(4, "little") + (2).to_bytes(2, "little") + (16).to_bytes(2, "little")
           + b"data" + len(pcm).to_bytes(4, "little") + pcm)
    start = max(0.0, uno["t"] - 40.0)  # the rig's whole-minute recording, running past the flag
    r = c.post("/api/tables/t1/evidence", headers=h.bearer(token),
               data={"kind": "audio", "t": str(start), "duration": "60", "file": (io.BytesIO(wav), "a.wav")})
    assert r.status_code == 201
    h.login(c)
    page = c.get("/referee").text
    block = page[page.index(f'data-flag="{uno["id"]}"'):]
    block = block[:block.index("</article>")]
    assert f'/referee/evidence/{r.get_json()["id"]}' in block


# -- the tournament page with 20 tables -----------------------------------------------------------------------------
@pytest.mark.browser
def test_the_tournament_page_with_twenty_tables_and_its_links_to_the_queue(
    browser: Any, evening: Any, flagged_log: list[dict[str, Any]]
) -> None:
    base, app = evening.url, evening.app
    tokens = dict(evening.tokens)
    for i in range(4, 21):
        tokens[f"t{i}"] = app.extensions["unotable"].store.add_table(f"t{i}")[1]
    flagged = ["t1", "t5", "t9", "t13", "t17"]
    for name, tok in tokens.items():
        if name != "t1":
            post(base, name, tok, flagged_log if name in flagged else START4)
    ctx = new_context(browser, viewport={"width": 1600, "height": 1000})
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        login(page, base)
        t0 = time.perf_counter()
        page.goto(f"{base}/tournament")
        load_s = time.perf_counter() - t0
        assert page.locator("article.tcard").count() == 20 and page.inner_text("#n-tables") == "20"
        assert page.inner_text("#n-flags") == "20" and page.locator("#newest-flags tbody tr").count() == 12
        for name in tokens:
            link = page.query_selector(f'article[data-table="{name}"] a.flags-link')
            assert (link is not None) == (name in flagged), name
        with page.expect_navigation():
            page.click('article[data-table="t9"] a.flags-link')
        assert page.url.endswith("/referee?table=t9")
        assert page.locator("#queue article").count() == 4
        assert set(page.eval_on_selector_all("#queue article", "as => as.map(a => a.dataset.table)")) == {"t9"}
        t0 = time.perf_counter()
        page.goto(f"{base}/referee")
        queue_s = time.perf_counter() - t0
        assert page.locator("#queue article").count() == 20
        flag = next(iter(open_flags(base, "t9")))
        rule_in(page, "t9", flag, "dismissed")
        assert page.url.endswith("/referee")  # back to the queue it came from
        page.goto(f"{base}/tournament")
        assert page.inner_text("#n-flags") == "19"
        assert page.inner_text('article[data-table="t9"] a.flags-link') == "⚑ 3"
        # the page refreshes itself: a rig's new flag shows within a few refreshes
        post(base, "t20", tokens["t20"], {"t": 3.0, "type": "play", "seat": 3, "cards": ["red-9"]})
        page.wait_for_function("document.getElementById('n-flags').textContent === '20'", timeout=5000)
        assert not errors and "failed" not in page.inner_text("#updated")
        print(f"tournament page with 20 tables: {load_s:.2f} s; referee queue with 20 flags: {queue_s:.2f} s")
    finally:
        ctx.close()


@pytest.mark.browser
# finding 4: the public tournament page lists a Wild Draw Four challenge's flag with its private message, naming cards of a hand still in play, where the overlay shows the public_message (fixed at stop 63)
def test_the_public_tournament_page_never_names_cards_of_a_hand_in_play(browser: Any, evening: Any) -> None:
    base = evening.url
    log = [event_to_dict(e) for e in script(
        "mattel", "H3; T red-5; P0 wild-draw4 blue; X1; R0 red-3,red-9,green-1,blue-2,yellow-4,green-6", players=4)]
    post(base, "t2", evening.tokens["t2"], log)
    (flag,) = open_flags(base, "t2").values()  # anyone's view (stop 64): the public message in the message's place
    assert "red-3" not in flag["message"] and "public_message" not in flag
    status, rig = _req(f"{base}/api/tables/t2/flags", token=evening.tokens["t2"])  # the table's own rig: all of it
    assert status == 200
    (full,) = rig["flags"]
    assert "red-3" in full["message"] and "red-3" not in full["public_message"]
    ctx = new_context(browser)  # anyone in the hall: no login
    try:
        page = ctx.new_page()
        page.goto(f"{base}/overlay/t2")
        page.wait_for_selector("#ov-seats .ov-seat")
        assert "red-3" not in page.content()
        page.goto(f"{base}/tournament")
        assert page.query_selector('#newest-flags tr[data-table="t2"]') is not None
        assert "red-3" not in page.inner_text("#newest-flags")
    finally:
        ctx.close()


# -- the queue by keyboard alone ------------------------------------------------------------------------------------
def _focused(page: Any) -> str:
    return page.evaluate("""() => { const e = document.activeElement;
        return [e.tagName.toLowerCase(), e.name || '', e.value || '', e.className || '',
                (e.closest('article') || {dataset: {}}).dataset.flag || ''].join('|'); }""")


@pytest.mark.browser
def test_the_queue_by_keyboard_alone(browser: Any, evening: Any) -> None:
    base = evening.url
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{base}/login?next=/referee")
        page.focus("#username")
        page.keyboard.type("ref")
        page.keyboard.press("Tab")
        page.keyboard.type(PASSWORD)
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.inner_text("#whoami") == "ref (referee)"
        first = page.eval_on_selector("#queue article", "a => a.dataset.flag")
        order = []
        for _ in range(60):
            page.keyboard.press("Tab")
            f = _focused(page)
            order.append(f)
            if f.startswith("button|decision|dismissed|") and f.endswith(first):
                break
        mine = [o for o in order if o.endswith("|" + first)]
        kinds = [o.split("|")[0] + ":" + (o.split("|")[1] or o.split("|")[2]) for o in mine]
        assert kinds[-3:] == ["input:note", "button:decision", "button:decision"], order
        assert mine[-2].split("|")[2] == "upheld"
        # the focused control is visibly marked (the browser's focus ring is not taken away)
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
        # Dismiss by keyboard
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert open_flags(base, "t1").get(first) is None
        # the correction form opens from the keyboard too
        page.focus("#queue article details.correct summary")
        page.keyboard.press("Enter")
        assert page.is_visible("#queue article details.correct textarea")
    finally:
        ctx.close()


def _unnamed_controls(page: Any) -> list[str]:
    """The form controls of the page's main part that a screen reader announces by role alone (no name)."""
    out = []
    for role in ("textbox", "button", "checkbox", "spinbutton", "link"):
        loc = page.locator("main").get_by_role(role)
        for i in range(loc.count()):
            snap = loc.nth(i).aria_snapshot()
            if snap.split(":")[0].strip().lstrip("- ").strip() == role:
                out.append(f"{role} {loc.nth(i).evaluate('e => e.outerHTML')[:90]}")
    return out


@pytest.mark.browser
# finding 5: the correction's event textarea and every table's broadcast delay field have no label: a screen reader announces 'edit text' and 'spin button' with no name (fixed at stop 63)
def test_every_control_of_the_queue_has_an_accessible_name(browser: Any, evening: Any) -> None:
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        login(page, evening.url)
        for d in page.query_selector_all("details.correct"):
            d.evaluate("d => { d.open = true; }")
        unnamed = _unnamed_controls(page)
        print("queue controls without an accessible name:", unnamed)
        assert unnamed == []
    finally:
        ctx.close()


@pytest.mark.browser
# finding 6: pressing Enter in a flag's note field upholds the flag (the form's first button is Uphold): a referee typing the reason for a dismissal rules the opposite way (fixed at stop 63)
def test_enter_in_the_note_field_does_not_rule(browser: Any, evening: Any) -> None:
    base = evening.url
    flag = _flag_of(base, "t1", "missed_uno")["id"]
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        login(page, base)
        page.focus(f'{card("t1", flag)} input[name="note"]')
        page.keyboard.type("camera missed the call: dismiss")
        page.keyboard.press("Enter")
        page.wait_for_load_state()
        time.sleep(0.3)
        ruled = [(e["flag"], e["decision"], e.get("note")) for e in events(base, "t1") if e["type"] == "ruling"]
        assert ruled == [], ruled
    finally:
        ctx.close()


# -- the server restarting under open pages -------------------------------------------------------------------------
def _restart_setup(venue: Any, log: list[dict[str, Any]]) -> str:
    _info, token = venue.store.add_table("t1")
    venue.store.add_user("ref", PASSWORD)
    post(venue.url, "t1", token, log)
    return token  # type: ignore[no-any-return]


@pytest.mark.browser
def test_pages_open_across_a_server_restart_reconnect_without_duplicates(
    browser: Any, venue: Any, flagged_log: list[dict[str, Any]]
) -> None:
    token = _restart_setup(venue, flagged_log)
    base = venue.url
    uno = _flag_of(base, "t1", "missed_uno")
    n = len(flagged_log)
    ctx = new_context(browser, viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    try:
        live, board, overlay, ref, tour = (ctx.new_page() for _ in range(5))
        for p in (live, board, overlay, ref, tour):
            p.on("pageerror", lambda exc: errors.append(str(exc)))
        live.goto(f"{base}/tables/t1")
        board.goto(f"{base}/scoreboard/t1")
        overlay.goto(f"{base}/overlay/t1")
        login(ref, base)
        tour.goto(f"{base}/tournament")
        live.wait_for_function(f"document.querySelectorAll('#log li').length === {n}")
        overlay.wait_for_selector("#ov-seats .ov-seat")
        board.wait_for_selector("#flags-open")
        venue.stop()
        live.wait_for_function("document.getElementById('conn').textContent.startsWith('reconnecting')")
        tour.wait_for_function("document.getElementById('updated').textContent.startsWith('failed')")
        venue.start()  # the same port, database and secret key file
        last_t = events(base, "t1")[-1]["t"]
        post(base, "t1", token, {"t": last_t + 1, "type": "draw", "seat": 0})
        live.wait_for_function(f"document.querySelectorAll('#log li').length === {n + 1}", timeout=10000)
        assert live.inner_text("#conn") == "live"
        lines = live.eval_on_selector_all("#log li", "ls => ls.map(l => Number(l.dataset.line))")
        assert lines == list(range(1, n + 2))
        # the referee's page from before the restart still rules: the session and its CSRF token survive
        rule_in(ref, "t1", uno["id"], "upheld")
        assert f"{uno['id']} on t1 upheld" in ref.inner_text(".flash.ok")
        live.wait_for_function(f"document.querySelectorAll('#log li').length === {n + 2}")
        overlay.wait_for_selector(f'.ov-banner[data-flag="{uno["id"]}"]', timeout=10000)
        assert overlay.locator(".ov-banner").count() == 1
        assert overlay.locator("#ov-seats .ov-seat").count() == 4
        board.wait_for_function(
            f"document.querySelector('#flags-upheld td[data-seat=\"{uno['seat']}\"]').textContent === '1'",
            timeout=10000)
        assert board.locator("#scores tfoot tr").count() == 5 and board.locator("#flags-upheld").count() == 1
        tour.wait_for_function("!document.getElementById('updated').textContent.startsWith('failed')", timeout=10000)
        # the page refreshes itself every few seconds: the ruling shows at the first refresh after it
        tour.wait_for_function("document.getElementById('n-flags').textContent === '3'", timeout=15000)
        assert not errors
    finally:
        ctx.close()


@pytest.mark.browser
# finding 7: the live page's camera view (an MJPEG <img>) ends with the server and never reconnects: after a restart it shows the old frame until the page is reloaded, while the rest of the page is live again (fixed at stop 63)
def test_the_live_pages_camera_comes_back_after_a_server_restart(
    browser: Any, venue: Any, flagged_log: list[dict[str, Any]]
) -> None:
    token = _restart_setup(venue, flagged_log[:3])
    base = venue.url
    upload(base, "t1", token, "frames", {"t": "2.0", "overlay": "{}"}, {"frame": frame((0, 0, 220))})  # red
    center = """() => { const i = document.getElementById('camera'); if (!i.naturalWidth) return null;
        const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight;
        const x = c.getContext('2d'); x.drawImage(i, 0, 0);
        return Array.from(x.getImageData(c.width >> 1, c.height >> 1, 1, 1).data.slice(0, 3)); }"""
    ctx = new_context(browser)
    try:
        live = ctx.new_page()
        live.goto(f"{base}/tables/t1")
        live.wait_for_function(f"(() => {{ const p = ({center})(); return p && p[0] > 150 && p[2] < 80; }})()")
        venue.stop()
        live.wait_for_function("document.getElementById('conn').textContent.startsWith('reconnecting')")
        venue.start()
        live.wait_for_function("document.getElementById('conn').textContent === 'live'", timeout=10000)
        upload(base, "t1", token, "frames", {"t": "3.0", "overlay": "{}"}, {"frame": frame((220, 0, 0))})  # blue
        try:
            live.wait_for_function(f"(() => {{ const p = ({center})(); return p && p[2] > 150 && p[0] < 80; }})()",
                                   timeout=6000)
        finally:
            print("camera centre pixel (RGB) 6 s after the new frame:", live.evaluate(center))
    finally:
        ctx.close()
