"""Standings of a table and the progression of a ChempiUNat tournament (RULESETS.md CH-TABLE), as pure functions.

CH-TABLE: six players a table; group tables drawn by lot, then a semifinal of the top 2 (or 3) of each table, then
a final; those out in round 1 play a consolation tournament. The organiser of ~20 tables needs, at a glance, who
leads each table, who has qualified so far, and a seating for the next stage. Nothing here touches Flask or the
store, so that every rule (ranking, ties, the cut, the lot) is a table of cases in `tests/web/test_standings.py`.

A player is named by table and seat, never by name alone: two tables may well both have an "Anna".
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

STAGES = ("group", "semifinal", "final", "consolation")
DEFAULT_STAGE = "group"
TABLE_SIZE = 6  # CH-TABLE: 6 players a table
MAX_QUALIFIERS = TABLE_SIZE - 1  # a cut that lets everybody through is not a cut


def check_stage(stage: str | None) -> str:
    """The stage, or a ValueError naming the choices; None (a row from before stages existed) is a group table."""
    if stage is None:
        return DEFAULT_STAGE
    if stage not in STAGES:
        raise ValueError(f"bad stage {stage!r}: expected one of {', '.join(STAGES)}")
    return stage


@dataclass(frozen=True)
class Standing:
    """One seat of a table, ranked. `rank` is shared by equal totals (1, 2, 2, 4)."""

    table: str
    seat: int
    player: str
    total: int
    rank: int
    winner: bool = False


@dataclass(frozen=True)
class TableStandings:
    table: str
    stage: str
    rows: tuple[Standing, ...]
    started: bool  # a match_start named the players
    finished: bool  # the match is over: the engine named its winner, or it ended level (OL-GOAL names no tie-break)
    lowest_wins: bool
    target: int | None
    hands: int  # hands scored so far

    @property
    def leader(self) -> Standing | None:
        return self.rows[0] if self.rows and self.hands else None

    @property
    def winner(self) -> Standing | None:
        """The match's winner, as the engine named it under the ruleset; None while it plays, and for a match that
        is over with no winner (level at the top, or a lowest-wins match decided by a hand nobody revealed)."""
        return next((r for r in self.rows if r.winner), None)

    @property
    def undecided(self) -> bool:
        """Over with no winner: OL-GOAL names no tie-break, and a hand nobody saw can't decide it. Nobody is the
        winner (nor a champion) here, whatever the order of the rows (seat number among level seats)."""
        return self.finished and self.winner is None

    @property
    def level(self) -> tuple[Standing, ...]:
        """The seats level at the top of an undecided match (empty when it is not one, or when its winner can't
        be told but the points counted are not level)."""
        top = tuple(r for r in self.rows if r.rank == 1) if self.undecided else ()
        return top if len(top) > 1 else ()

    @property
    def status(self) -> str:
        return "finished" if self.finished else "playing" if self.started else "not started"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["rows"] = [asdict(r) for r in self.rows]
        out["status"] = self.status
        out["leader"] = asdict(self.leader) if self.leader else None
        return out


def table_standings(
    table: str, scores: dict[str, Any], players: Sequence[str], stage: str = DEFAULT_STAGE
) -> TableStandings:
    """Rank a table's seats by total: highest first when the hand's winner scores the others' cards (CH-GAME),
    lowest first under lowest-wins (Olympic). Equal totals share a rank, except that a finished match's winner
    (the engine's call under the ruleset) is always first alone: the match is theirs."""
    totals = [int(x) for x in scores.get("totals") or []]
    n = max(len(players), len(totals))
    names = [players[i] if i < len(players) else f"seat {i}" for i in range(n)]
    totals = totals + [0] * (n - len(totals))
    lowest = bool(scores.get("lowest_wins"))
    winner = scores.get("winner")
    winner = winner if isinstance(winner, int) and not isinstance(winner, bool) and 0 <= winner < n else None

    def key(seat: int) -> tuple[int, int, int]:
        return (0 if seat == winner else 1, totals[seat] if lowest else -totals[seat], seat)

    order = sorted(range(n), key=key)
    rows: list[Standing] = []
    for pos, seat in enumerate(order):
        prev = rows[-1] if rows else None
        tied = prev is not None and not prev.winner and seat != winner and prev.total == totals[seat]
        rank = prev.rank if tied and prev is not None else pos + 1
        rows.append(Standing(table, seat, names[seat], totals[seat], rank, seat == winner))
    target = scores.get("target")
    return TableStandings(
        table=table, stage=check_stage(stage), rows=tuple(rows), started=n > 0,
        finished=winner is not None or bool(scores.get("over")),
        lowest_wins=lowest, target=int(target) if isinstance(target, int | float) else None,
        hands=len(scores.get("hands") or []),
    )


# -- progression ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tie:
    """Players level on points across the cut of a table, and the order the lot put them in."""

    table: str
    rank: int
    players: tuple[str, ...]
    drawn: tuple[str, ...]
    places: int  # how many of them go through

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Round:
    """One step of the tournament: from the finished tables of `source`, who goes on to `target`, who drops to
    `dropped_to` (the consolation bracket after round 1, else nowhere), and a seating for the next stage once
    every table of `source` has finished (a seating drawn from half the results would change under the players)."""

    source: str
    target: str
    per_table: int
    qualified: tuple[Standing, ...]
    dropped: tuple[Standing, ...]
    dropped_to: str | None
    finished_tables: tuple[str, ...]
    playing: tuple[str, ...]  # tables of `source` still playing (or not started): they feed nothing yet
    seatings: tuple[tuple[Standing, ...], ...] = ()
    dropped_seatings: tuple[tuple[Standing, ...], ...] = ()
    ties: tuple[Tie, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def complete(self) -> bool:
        return bool(self.finished_tables) and not self.playing

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "target": self.target, "per_table": self.per_table,
            "complete": self.complete, "finished_tables": list(self.finished_tables), "playing": list(self.playing),
            "qualified": [asdict(s) for s in self.qualified],
            "dropped": [asdict(s) for s in self.dropped], "dropped_to": self.dropped_to,
            "seatings": [_seating_dict(self.target, i, s) for i, s in enumerate(self.seatings, 1)],
            "dropped_seatings": [_seating_dict(self.dropped_to or "", i, s)
                                 for i, s in enumerate(self.dropped_seatings, 1)],
            "ties": [t.to_dict() for t in self.ties], "notes": list(self.notes),
        }


def _seating_dict(stage: str, number: int, players: Sequence[Standing]) -> dict[str, Any]:
    return {"name": f"{stage}-{number}", "players": [{"player": p.player, "from_table": p.table, "seat": p.seat,
                                                      "rank": p.rank, "total": p.total} for p in players]}


def _lot(seed: int | str, *salt: str) -> random.Random:
    """A lot that is the same for the same seed and the same draw (str seeds hash with SHA-512, not hash())."""
    return random.Random(":".join([str(seed), *salt]))


def cut(st: TableStandings, k: int, seed: int | str = 0) -> tuple[list[Standing], list[Standing], Tie | None]:
    """The top `k` of a finished table and the rest. Players level on points across the cut are put in order by a
    seeded lot (CH-DISPUTE leaves disputes to the organisers: the tie is reported so that they can overrule it)."""
    rows = list(st.rows)
    if len(rows) <= k:
        return rows, [], None
    edge = rows[k - 1]
    level = [r for r in rows if r.rank == edge.rank and not r.winner]
    if edge.winner or len(level) < 2 or rows[k].rank != edge.rank:
        return rows[:k], rows[k:], None
    above = [r for r in rows[:k] if r.rank < edge.rank or r.winner]
    drawn = sorted(level, key=lambda r: r.seat)
    _lot(seed, "tie", st.table, str(edge.rank)).shuffle(drawn)
    places = k - len(above)
    ordered = above + drawn + [r for r in rows if r.rank > edge.rank]
    tie = Tie(st.table, edge.rank, tuple(r.player for r in sorted(level, key=lambda r: r.seat)),
              tuple(r.player for r in drawn), places)
    return ordered[:k], ordered[k:], tie


def seat_by_lot(players: Iterable[Standing], seed: int | str, stage: str, size: int = TABLE_SIZE) -> list[list[Standing]]:
    """Deal players to as few tables of at most `size` as hold them, table sizes differing by one at most, in an
    order drawn by a seeded lot (the same seed and players give the same seating, whatever order they came in)."""
    if size < 2:
        raise ValueError(f"bad table size {size}: a table needs at least 2 players")
    pool = sorted(players, key=lambda s: (s.table, s.seat))
    if not pool:
        return []
    _lot(seed, "seat", stage).shuffle(pool)
    n_tables = -(-len(pool) // size)
    base, extra = divmod(len(pool), n_tables)
    out, at = [], 0
    for i in range(n_tables):
        take = base + (1 if i < extra else 0)
        out.append(sorted(pool[at:at + take], key=lambda s: (s.table, s.seat)))
        at += take
    return out


def advance(
    standings: Iterable[TableStandings], source: str, target: str, k: int, seed: int | str = 0,
    dropped_to: str | None = None, size: int = TABLE_SIZE,
) -> Round:
    """Who of the finished `source` tables goes on to `target` (the top `k` of each), who drops to `dropped_to`,
    and, once no `source` table is still playing, a seating of both by lot."""
    if not 1 <= k <= MAX_QUALIFIERS:
        raise ValueError(f"bad number of qualifiers per table {k}: expected 1-{MAX_QUALIFIERS}")
    tables = sorted((s for s in standings if s.stage == source), key=lambda s: s.table)
    finished = [s for s in tables if s.finished]
    qualified: list[Standing] = []
    dropped: list[Standing] = []
    ties: list[Tie] = []
    notes: list[str] = []
    for st in finished:
        top, rest, tie = cut(st, k, seed)
        qualified += top
        dropped += rest
        if tie is not None:
            ties.append(tie)
            notes.append(f"{st.table}: {', '.join(tie.players)} level on {top[-1].total if top else 0} points "
                         f"for {tie.places} place(s); drawn by lot: {', '.join(tie.drawn[:tie.places])}")
        if len(st.rows) <= k:
            notes.append(f"{st.table}: only {len(st.rows)} players, all go through")
    playing = tuple(s.table for s in tables if not s.finished)
    seatings: list[list[Standing]] = []
    dropped_seatings: list[list[Standing]] = []
    if finished and not playing:
        seatings = seat_by_lot(qualified, seed, target, size)
        if dropped_to is not None:
            dropped_seatings = seat_by_lot(dropped, seed, dropped_to, size)
        if len(seatings) > 1 and target == "final":
            notes.append(f"the final has {len(qualified)} players: {len(seatings)} tables; "
                         f"a smaller cut (or another round) gives one final table")
    elif playing:
        notes.append(f"seating drawn when {len(playing)} {source} table(s) finish: {', '.join(playing)}")
    return Round(
        source=source, target=target, per_table=k, qualified=tuple(qualified), dropped=tuple(dropped),
        dropped_to=dropped_to, finished_tables=tuple(s.table for s in finished), playing=playing,
        seatings=tuple(tuple(s) for s in seatings), dropped_seatings=tuple(tuple(s) for s in dropped_seatings),
        ties=tuple(ties), notes=tuple(notes),
    )


def progression(
    standings: Sequence[TableStandings], k: int = 2, final_k: int = 2, seed: int | str = 0, size: int = TABLE_SIZE
) -> dict[str, Any]:
    """ChempiUNat's two rounds: group → semifinal (+ consolation for the rest), semifinal → final; the champions
    of the final and consolation tables the engine named a winner of, and those over with no winner (`undecided`:
    level at the top with no tie-break, or a winner that can't be told), which crown nobody."""
    semi = advance(standings, "group", "semifinal", k, seed, dropped_to="consolation", size=size)
    final = advance(standings, "semifinal", "final", final_k, seed, size=size)
    ordered = sorted(standings, key=lambda s: s.table)
    champions: dict[str, list[dict[str, Any]]] = {}
    undecided: dict[str, list[dict[str, Any]]] = {}
    for stage in ("final", "consolation"):
        # a champion is the winner the engine named; a table over with no winner crowns nobody, and its level
        # players are listed for the organisers to settle (CH-DISPUTE)
        champions[stage] = [{"table": s.table, "player": w.player, "total": w.total}
                            for s in ordered if s.stage == stage and (w := s.winner) is not None]
        undecided[stage] = [{"table": s.table, "level": [r.player for r in s.level],
                             "total": s.level[0].total if s.level else None}
                            for s in ordered if s.stage == stage and s.undecided]
    return {"semifinal": semi.to_dict(), "final": final.to_dict(), "champions": champions, "undecided": undecided}
