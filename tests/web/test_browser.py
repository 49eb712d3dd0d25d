"""Real headless Chromium (Debian's, driven by Playwright) against a real cheroot server on loopback."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

pytestmark = pytest.mark.browser



def post(server: Any, table: str, token: str, body: Any) -> dict[str, Any]:
    req = urllib.request.Request(f"{server.url}/api/tables/{table}/events", data=json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


def flags(server: Any, table: str = "t1") -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(f"{server.url}/api/tables/{table}/flags", timeout=10) as resp:
        return {f["id"]: f for f in json.loads(resp.read())["flags"]}


def test_referee_rules_and_scoreboard_and_overlay_follow(
    browser: Any, live_server: Any, sqlite_app: Any, h: Any, flagged_log: list[dict[str, Any]]
) -> None:
    token = h.add_table(sqlite_app)
    h.add_user(sqlite_app)
    post(live_server, "t1", token, flagged_log)
    open_flags = flags(live_server)
    uno = next(f for f in open_flags.values() if f["code"] == "missed_uno")
    other = next(f for f in open_flags.values() if f["id"] != uno["id"])

    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    overlay, board, ref = ctx.new_page(), ctx.new_page(), ctx.new_page()
    overlay.goto(f"{live_server.url}/overlay/t1")
    board.goto(f"{live_server.url}/scoreboard/t1")
    seat_count = f'#ov-seats [data-seat="{uno["seat"]}"] .count'
    overlay.wait_for_selector(seat_count)
    count_before = int(overlay.inner_text(seat_count))
    board.wait_for_selector("#flags-upheld")
    upheld_cell = f'#flags-upheld td[data-seat="{other["seat"]}"]'
    dismissed_cell = f'#flags-dismissed td[data-seat="{uno["seat"]}"]'
    upheld_before = int(board.inner_text(upheld_cell))
    assert board.inner_text(dismissed_cell) == "0"

    # the referee logs in through the form (CSRF token and all) and lands on the queue
    ref.goto(f"{live_server.url}/referee")
    ref.fill("#username", "ref")
    ref.fill("#password", h.PASSWORD)
    ref.click("#login-submit")
    ref.wait_for_selector(f'article[data-flag="{other["id"]}"]')
    assert "ref (referee)" in ref.inner_text("#whoami")
    with ref.expect_navigation():
        ref.click(f'article[data-flag="{other["id"]}"] button.uphold')
    with ref.expect_navigation():
        ref.click(f'article[data-flag="{uno["id"]}"] button.dismiss')
    assert ref.query_selector(f'article[data-flag="{uno["id"]}"]') is None
    assert "dismissed" in ref.inner_text("#decided")

    # the overlay: a banner for the upheld flag, and the dismissed penalty's two cards taken back
    overlay.wait_for_selector(f'.ov-banner[data-flag="{other["id"]}"]', timeout=3000)
    assert other["message"] in overlay.inner_text("#ov-banners")
    overlay.wait_for_function(
        "([sel, n]) => document.querySelector(sel) && Number(document.querySelector(sel).textContent) === n",
        arg=[seat_count, count_before - uno["penalty"]["cards"]], timeout=3000)
    # the scoreboard: one more flag upheld for the seat at fault, one dismissed
    board.wait_for_function("([sel, n]) => document.querySelector(sel).textContent === String(n)",
                            arg=[upheld_cell, upheld_before + 1], timeout=3000)
    board.wait_for_function("(sel) => document.querySelector(sel).textContent === '1'", arg=dismissed_cell,
                            timeout=3000)
    after = flags(live_server)
    assert after[other["id"]]["status"] == "upheld" and after[uno["id"]]["status"] == "dismissed"
    ctx.close()


START = [
    {"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob", "Cy"]},
    {"t": 1.0, "type": "hand_start", "dealer": 0},
    {"t": 2.0, "type": "starter", "card": "red-5"},
]


def test_the_overlay_shows_a_posted_play_within_one_second(browser: Any, live_server: Any, sqlite_app: Any, h: Any) -> None:
    token = h.add_table(sqlite_app)
    post(live_server, "t1", token, START)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/overlay/t1")
    page.wait_for_selector('#ov-top-card[data-card="red-5"]')
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"  # transparent
    delays = []
    for i, (code, seat) in enumerate([("red-7", 1), ("blue-7", 2), ("blue-skip", 0)]):
        t0 = time.perf_counter()
        post(live_server, "t1", token, {"t": 3.0 + i, "type": "play", "seat": seat, "cards": [code]})
        page.wait_for_selector(f'#ov-top-card[data-card="{code}"]', timeout=1000)
        delays.append(time.perf_counter() - t0)
    assert max(delays) < 1.0, delays
    assert page.inner_text("#ov-color") == "BLUE" or page.inner_text("#ov-color").lower() == "blue"
    assert "turn" in (page.get_attribute('#ov-seats [data-seat="2"]', "class") or "")  # skip passed over seat 1
    post(live_server, "t1", token, {"t": 7.0, "type": "uno", "seat": 2})
    page.wait_for_selector("#ov-uno:not([hidden])", timeout=1000)
    page.close()


def test_the_live_page_follows_the_game(browser: Any, live_server: Any, sqlite_app: Any, h: Any) -> None:
    token = h.add_table(sqlite_app)
    post(live_server, "t1", token, START)
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(f"{live_server.url}/tables/t1")
    page.wait_for_selector('#top-card[data-card="red-5"]')
    assert page.inner_text("#turn") == "Bob (1)"
    assert page.locator("#log li").count() == 3
    post(live_server, "t1", token, {"t": 3.0, "type": "play", "seat": 1, "cards": ["red-reverse"]})
    page.wait_for_selector('#top-card[data-card="red-reverse"]', timeout=1000)
    assert "counter-clockwise" in page.inner_text("#direction")
    assert page.inner_text("#turn") == "Ann (0)"
    assert page.inner_text('#seats tr[data-seat="1"] td.count') == "6"
    assert page.locator("#log li").count() == 4 and "plays red-reverse" in page.inner_text("#log")
    page.wait_for_function("document.querySelector('#camera').naturalWidth > 0", timeout=3000)  # the camera view renders
    page.close()


def test_the_live_page_shows_the_turn_timer_where_the_ruleset_has_one(
    browser: Any, live_server: Any, sqlite_app: Any, h: Any
) -> None:
    timed = h.add_table(sqlite_app, "timed")
    plain = h.add_table(sqlite_app, "plain")
    for table, token, ruleset in (("timed", timed, "falsonal"), ("plain", plain, "mattel")):
        post(live_server, table, token, [dict(START[0], ruleset=ruleset, players=["Ann", "Bob", "Cy", "Dan"]),
                                         *START[1:]])
    page = browser.new_page()
    page.goto(f"{live_server.url}/tables/timed")
    page.wait_for_selector("#timer-row:not([hidden])", timeout=3000)
    first = float(page.inner_text("#timer").split()[0])
    assert 0 < first <= 15  # FA-TIMER: 15 s a turn
    time.sleep(0.5)
    assert float(page.inner_text("#timer").split()[0]) < first  # it counts down
    page.goto(f"{live_server.url}/tables/plain")
    page.wait_for_selector('#top-card[data-card="red-5"]')
    assert page.is_hidden("#timer-row")
    page.close()
