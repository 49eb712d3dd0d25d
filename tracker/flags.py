"""Flags: the engine's answer to a log (EVENTS.md, "Flags")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def flag_id(line: int, code: str, seat: int) -> str:
    """A flag's id, `<line>-<code>-<seat>`: what rulings name, stable across replays of the same log."""
    return f"{line}-{code}-{seat}"


@dataclass(slots=True)
class Flag:
    """One violation. `id` is `<line>-<code>-<seat>`, stable across replays of the same log.

    `status` (open / upheld / dismissed) and `ruled_by` are extensions of EVENTS.md that the dashboard reads.
    """

    id: str
    t: float
    code: str
    seat: int
    rule: str
    message: str
    line: int
    penalty: int = 0
    status: str = "open"
    ruled_at: float | None = None
    note: str | None = None
    hand: int = 0  # the hand it was raised in: a ruling after that hand changes no cards of a later one
    public: str | None = None  # the message for spectators where `message` names cards of a hand still in play


    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "t": round(self.t, 3), "code": self.code, "seat": self.seat, "rule": self.rule,
            "message": self.message, "line": self.line, "status": self.status,
        }
        if self.penalty and self.status != "dismissed":  # a dismissed flag's penalty was taken back (EVENTS.md)
            out["penalty"] = {"seat": self.seat, "cards": self.penalty}
        if self.ruled_at is not None:
            out["ruled_at"] = self.ruled_at
        if self.note:
            out["note"] = self.note
        if self.public is not None:
            out["public_message"] = self.public  # an extension of EVENTS.md: what an overlay may show
        return out
