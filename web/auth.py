"""Referee and spectator accounts: login with hashed passwords, a signed session cookie, and a login rate limit.

Passwords are hashed by Werkzeug (scrypt); the session holds only the user name and role. Five wrong passwords for
one account, or from one address, within 15 minutes lock logins for that account/address for 15 minutes, so that a
referee's password can't be guessed from the venue's Wi-Fi.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlparse

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

bp = Blueprint("auth", __name__)

F = TypeVar("F", bound=Callable[..., Any])


class LoginLimiter:
    """Counts failed logins per key (user name, client address) in a sliding window."""

    def __init__(self, max_failures: int = 5, window_s: float = 900.0) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self._lock = threading.Lock()
        self._fails: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float]:
        q = self._fails.setdefault(key, deque())
        while q and q[0] <= now - self.window_s:
            q.popleft()
        return q

    def retry_after(self, *keys: str) -> float:
        """Seconds until any of `keys` may try again (0 when none is locked)."""
        now = time.time()
        wait = 0.0
        with self._lock:
            for key in keys:
                q = self._recent(key, now)
                if len(q) >= self.max_failures:
                    wait = max(wait, q[-self.max_failures] + self.window_s - now)
        return wait

    def fail(self, *keys: str) -> None:
        now = time.time()
        with self._lock:
            for key in keys:
                self._recent(key, now).append(now)

    def clear(self, key: str) -> None:
        with self._lock:
            self._fails.pop(key, None)


def current_user() -> dict[str, str] | None:
    if "user" not in g:
        name, role = session.get("user"), session.get("role")
        g.user = {"username": name, "role": role} if name and role else None
    return g.user  # type: ignore[no-any-return]


def referee_required(view: F) -> F:
    """Only a logged-in referee gets through; a guest is sent to log in, a spectator gets 403."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        user = current_user()
        if user is None:
            if request.method == "GET":
                return redirect(url_for("auth.login", next=request.full_path))
            abort(401, description="log in as a referee first")
        if user["role"] != "referee":
            abort(403, description=f"user {user['username']!r} is a {user['role']}: only a referee can do this")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def _safe_next(target: str | None) -> str:
    """Only a local path: never redirect a referee to another site after login."""
    if target and target.startswith("/") and not target.startswith("//") and not urlparse(target).netloc:
        return target
    return url_for("referee.queue")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    if request.method == "GET":
        return render_template("login.html", next=request.args.get("next", ""))
    services = current_app.extensions["unotable"]
    limiter: LoginLimiter = services.limiter
    username = request.form.get("username", "").strip()
    password = request.form.get("password", "")
    keys = (f"user:{username.lower()}", f"ip:{request.remote_addr}")
    wait = limiter.retry_after(*keys)
    if wait > 0:
        flash(f"Too many failed logins: try again in {int(wait) + 1} s.", "error")
        return render_template("login.html", next=request.form.get("next", "")), 429
    user = services.store.check_password(username, password)
    if user is None:
        limiter.fail(*keys)
        flash("Wrong user name or password.", "error")
        return render_template("login.html", next=request.form.get("next", "")), 401
    limiter.clear(keys[0])
    session.clear()
    session["user"] = user["username"]
    session["role"] = user["role"]
    session.permanent = True
    return redirect(_safe_next(request.form.get("next")))


@bp.route("/logout", methods=["POST"])
def logout() -> Any:
    session.clear()
    return redirect(url_for("tables.index"))
