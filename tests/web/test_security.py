"""Security: tokens bind to their own table, only referees rule, every form needs CSRF, logins are rate-limited."""

from __future__ import annotations

from typing import Any

START = [
    {"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob", "Cy"]},
    {"t": 1.0, "type": "hand_start", "dealer": 0},
]


def test_a_table_token_can_only_post_to_its_own_table(sqlite_app: Any, h: Any) -> None:
    tok_a = h.add_table(sqlite_app, "a")
    h.add_table(sqlite_app, "b")
    c = sqlite_app.test_client()
    r = c.post("/api/tables/b/events", json=START[0], headers=h.bearer(tok_a))
    assert r.status_code == 403 and "may not post to table 'b'" in r.get_json()["error"]
    assert c.post("/api/tables/b/events", json=START[0]).status_code == 401
    assert c.post("/api/tables/b/events", json=START[0], headers={"Authorization": "Basic xyz"}).status_code == 401
    assert c.get("/api/tables/b/events").get_json()["events"] == []
    # evidence and frames are guarded the same way
    r = c.post("/api/tables/b/evidence", headers=h.bearer(tok_a),
               data={"kind": "frame", "t": "1", "file": (__import__("io").BytesIO(b"\xff\xd8\xff\xe0"), "f.jpg")})
    assert r.status_code == 403
    assert c.post("/api/tables/a/events", json=START[0], headers=h.bearer(tok_a)).status_code == 201


def _table_with_flag(app: Any, h: Any, log: list[dict[str, Any]]) -> str:
    token = h.add_table(app)
    c = app.test_client()
    assert c.post("/api/tables/t1/events", json=log, headers=h.bearer(token)).status_code == 200
    return str(c.get("/api/tables/t1/flags").get_json()["flags"][0]["id"])


def test_a_spectator_or_a_guest_can_not_rule(sqlite_app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    flag = _table_with_flag(sqlite_app, h, flagged_log)
    h.add_user(sqlite_app, "fan", role="spectator")
    guest = sqlite_app.test_client()
    page = guest.get("/login")
    form = {"table": "t1", "flag": flag, "decision": "upheld", "csrf_token": h.csrf_from(page.text)}
    assert guest.post("/referee/rule", data=form).status_code == 401
    assert guest.get("/referee").status_code == 302  # to the login page
    fan = sqlite_app.test_client()
    assert h.login(fan, "fan").status_code == 302
    form["csrf_token"] = h.csrf_from(fan.get("/").text)
    r = fan.post("/referee/rule", data=form)
    assert r.status_code == 403 and "only a referee" in r.text
    assert fan.get("/referee").status_code == 403
    assert fan.get("/referee/audit.csv").status_code == 403
    flags = guest.get("/api/tables/t1/flags").get_json()["flags"]
    assert all(f["status"] == "open" for f in flags)
    assert all(e["type"] != "ruling" for e in guest.get("/api/tables/t1/events").get_json()["events"])


def test_forms_without_csrf_are_refused(sqlite_app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    flag = _table_with_flag(sqlite_app, h, flagged_log)
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    # the login form itself
    r = c.post("/login", data={"username": "ref", "password": h.PASSWORD})
    assert r.status_code == 400 and "CSRF" in r.text
    assert h.login(c).status_code == 302
    for url, form in [
        ("/referee/rule", {"table": "t1", "flag": flag, "decision": "upheld"}),
        ("/referee/correct", {"table": "t1", "line": "3", "strike": "on"}),
        ("/referee/tables/t1/delay", {"delay": "5"}),
        ("/logout", {}),
    ]:
        assert c.post(url, data=form).status_code == 400, url
        assert c.post(url, data={**form, "csrf_token": "forged"}).status_code == 400, url
    events = c.get("/api/tables/t1/events").get_json()["events"]
    assert len(events) == len(flagged_log)
    assert sqlite_app.extensions["unotable"].store.table("t1").broadcast_delay == 0


def test_five_wrong_passwords_lock_the_account(sqlite_app: Any, h: Any) -> None:
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    for _ in range(5):
        assert h.login(c, "ref", "not-the-password").status_code == 401
    r = h.login(c, "ref", h.PASSWORD)  # even the right password now waits
    assert r.status_code == 429 and "Too many failed logins" in r.text
    assert c.get("/referee").status_code == 302  # not logged in


def test_a_wrong_password_from_one_address_does_not_lock_others_out_of_other_accounts(sqlite_app: Any, h: Any) -> None:
    h.add_user(sqlite_app, "ref")
    h.add_user(sqlite_app, "ref2")
    c = sqlite_app.test_client()
    for _ in range(4):
        h.login(c, "ref", "nope-nope-nope")
    assert h.login(c, "ref2", h.PASSWORD).status_code == 302


def test_login_never_redirects_off_site(sqlite_app: Any, h: Any) -> None:
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    page = c.get("/login?next=//evil.example/x")
    r = c.post("/login", data={"username": "ref", "password": h.PASSWORD, "next": "//evil.example/x",
                               "csrf_token": h.csrf_from(page.text)})
    assert r.status_code == 302 and r.headers["Location"] == "/referee"


def test_session_cookie_is_http_only(sqlite_app: Any, h: Any) -> None:
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    r = h.login(c)
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
