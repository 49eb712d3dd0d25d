"""The scoreboard: points hand by hand, totals, the target and the winner, as a page and as CSV.

Scores are the engine's (`Replay.scores`), so the Olympic ruleset's lowest-wins and every ruling are already in
them; the page follows the table's event stream and redraws on every update.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template

from .live import game_lines

bp = Blueprint("scoreboard", __name__, url_prefix="/scoreboard")


def _table(table: str) -> Any:
    tl = current_app.extensions["unotable"].live.get(table)
    if tl is None:
        abort(404, description=f"no table named {table!r}")
    return tl


@bp.get("/<table>")
def page(table: str) -> Any:
    _table(table)
    return render_template("scoreboard.html", table=table)


def score_rows(players: list[str], scores: dict[str, Any], flags: list[dict[str, Any]] | None = None) -> list[list[Any]]:
    """The CSV body: a header, one row a hand, the totals, the flags upheld per seat, the target and the winner.
    It is the sheet of the match now in force: `flags` are that match's (see `csv_export`)."""
    n = max(len(players), len(scores.get("totals") or []))
    names = [players[i] if i < len(players) else f"seat {i}" for i in range(n)]
    rows: list[list[Any]] = [["hand", *names]]
    for i, hand in enumerate(scores.get("hands") or [], start=1):
        rows.append([i, *list(hand) + [""] * (n - len(hand))])
    rows.append(["total", *(scores.get("totals") or [0] * n)])
    upheld = [f for f in flags or [] if f.get("status") == "upheld"]
    rows.append(["flags upheld", *(sum(1 for f in upheld if f.get("seat") == i) for i in range(n))])
    rows.append(["target", scores.get("target", "")])
    rows.append(["lowest wins", "yes" if scores.get("lowest_wins") else "no"])
    winner = scores.get("winner")
    over = "none: the match is over, level (no tie-break)" if scores.get("over") else ""
    rows.append(["winner", names[winner] if isinstance(winner, int) and winner < n else over])
    return rows


def spreadsheet_safe(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage return:
    player names and flag messages come from rigs) is written with a leading apostrophe, as OWASP advises."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


@bp.get("/<table>.csv")
def csv_export(table: str) -> Any:
    tl = _table(table)
    with tl.lock:
        # the sheet is the current match's (its hands, totals, target and winner): after a second match_start, the
        # earlier match's upheld flags were another player's in that seat (EVENTS.md: "seat numbers stay fixed for
        # the match"), so only the flags raised in this match are counted
        lines = game_lines(tl)
        now = max((m for m, _ in lines.matches.values()), default=-1)
        flags = [f for f in tl.flags if lines.matches.get(f.get("line"), (None,))[0] == now]
        rows = score_rows(list(tl.state.get("players", [])), tl.scores, flags)
    buf = io.StringIO()
    csv.writer(buf).writerows([[spreadsheet_safe(v) for v in row] for row in rows])
    return Response(buf.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename={table}-scores.csv"})
