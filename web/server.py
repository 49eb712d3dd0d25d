"""Serving the dashboard with cheroot, a pure-Python threaded WSGI server.

Every Server-Sent Events client holds one worker thread for as long as it listens, so the pool must be larger than the
number of pages and overlays expected (300 listeners for a 20-table venue, by default 512 threads). cheroot writes
each chunk straight to the socket, which SSE needs; idle keep-alive connections wait in its selector, not a thread.
"""

from __future__ import annotations

import threading
from typing import Any

from cheroot import wsgi


class Server:
    """A cheroot server for `app` on host:port, startable in the foreground or in a background thread (tests)."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 8000, threads: int = 512) -> None:
        self.app = app
        self.server = wsgi.Server((host, port), app, numthreads=threads, max=threads,
                                  request_queue_size=1024, timeout=30, shutdown_timeout=2)
        self.server.nodelay = True
        # cheroot closes idle keep-alive connections beyond 10 by default; every rig keeps one open between posts
        self.server.keep_alive_conn_limit = max(64, threads)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server.bind_addr[1])

    @property
    def url(self) -> str:
        return f"http://{self.server.bind_addr[0]}:{self.port}"

    def serve_forever(self) -> None:
        try:
            self.server.safe_start()
        finally:
            self._close_streams()

    def start(self) -> Server:
        """Bind now (so `port` is known even for port 0) and serve in a daemon thread."""
        self.server.prepare()
        self._thread = threading.Thread(target=self.server.serve, name="unotable-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._close_streams()
        self.server.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _close_streams(self) -> None:
        svc = self.app.extensions.get("unotable") if hasattr(self.app, "extensions") else None
        if svc is not None:
            svc.close()
