"""Rendered game videos with known truth: a simulated log played out by hands and cards under a camera.

`render_game(log_events, out_video, seed)` writes:
- `out_video` (MP4, 960x540 @ 30 fps by default): a top-down view of a table with ArUco markers at its corners,
  hands carrying cards from the seats to the discard pile, drawing from the draw pile, revealing at the end;
- `<stem>.truth.jsonl`: the full log, retimed to the video (the truth to replay and to merge speech events from);
- `<stem>.truth.json`: the visual truth (plays with their true seats, draws, reveals), the camera homography, fps;
- `<stem>.table.toml`: the exact table file (the `watch` pipeline calibrates from the markers itself; this file is
  for checking calibration).

Why this matters: the vision pipeline's acceptance figures (play recall and precision, seat accuracy, latency) need
games whose every event is known to the frame. Perspective, light, noise, table top, skin and card print are drawn
at random per game with the card renderer of the detector issue, so the pipeline is not tuned to one look.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.gamevideo_draw import (
    PX_PER_MM,
    Camera,
    FaceBank,
    blit_card,
    draw_hand,
    random_skin,
    table_plane,
)
from datasets.gamevideo_plan import LEAVE, REACH, Action, plan_actions, retime, visual_truth
from tracker.events import Event
from tracker.log import parse_event
from vision.tablefile import CARD_H_MM, CARD_W_MM, Table, default_table, seat_layout, write_table

BACK = "back"


@dataclass
class FrameInfo:
    """What one frame shows, for tests: visible cards (code, corners in table mm, visible share, box of the visible
    part in table mm or None) and hand pixels."""

    t: float
    cards: list[tuple[str, np.ndarray, float, tuple[float, float, float, float] | None]] = field(default_factory=list)
    hand_mm: np.ndarray | None = None  # bool raster at 0.5 px/mm


@dataclass
class GameTruth:
    video: Path | None
    fps: float
    size: tuple[int, int]
    seats: int
    frames: int
    log: list[dict[str, Any]]
    visual: list[dict[str, Any]]
    table_to_image: np.ndarray
    table: Table

    def to_json(self) -> dict[str, Any]:
        return {"video": str(self.video) if self.video else None, "fps": self.fps, "size": list(self.size),
                "seats": self.seats, "frames": self.frames, "visual": self.visual,
                "table_to_image": self.table_to_image.tolist()}


def _ease(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


class GameRenderer:
    """Plays a retimed log out frame by frame. `frames()` yields (index, t, BGR frame, FrameInfo or None)."""

    def __init__(self, log_events: Sequence[Event | dict[str, Any]], seed: int = 0, fps: float = 30.0,
                 size: tuple[int, int] = (960, 540), min_gap: float = 1.0, feint_rate: float = 0.3,
                 collect: bool = False) -> None:
        events = [e if isinstance(e, Event) else parse_event(e, i + 1) for i, e in enumerate(log_events)]
        self.rng = np.random.default_rng(seed)
        self.fps, self.size, self.collect = fps, size, collect
        self.log = retime(events, min_gap=min_gap)
        seats = next((len(d["players"]) for d in self.log if d["type"] == "match_start"), 4)
        self.table = default_table(seats)
        self.seats = seats
        dc = self.table.discard.centre
        self.actions, initial, _ = plan_actions(self.log, self.rng, dc, feint_rate)
        self.visual = visual_truth(self.log, self.actions)
        self.bank = FaceBank(self.rng)
        self.camera = Camera(self.rng, self.table, size)
        self.table.image_to_table = np.linalg.inv(self.camera.table_to_image)
        self.table.image_size = size
        self.plane = table_plane(self.rng, self.table)
        self.skins = [random_skin(self.rng) for _ in range(seats)]
        lay = seat_layout(seats, self.table.width, self.table.height)
        self.edge = [p for p, _ in lay]
        self.inward = [np.array([np.cos(np.radians(a)), np.sin(np.radians(a))]) for _, a in lay]
        self.seat_angle = [a - 90.0 for _, a in lay]  # a card facing the player lies at this angle
        self.body = [p - d * 170 for p, d in zip(self.edge, self.inward, strict=False)]
        self.fan_centre = [p + d * 20 for p, d in zip(self.edge, self.inward, strict=False)]
        self.draw_centre = self.table.draw.centre
        dpose = [(self.draw_centre + self.rng.normal(0, 2.5, 2), float(self.rng.normal(0, 4))) for _ in range(5)]
        self.draw_stack = dpose
        last = max([a.end for a in self.actions] + [float(self.log[-1]["t"]) if self.log else 0.0])
        if any(a.hide_at is None and a.kind == "reveal" for a in self.actions):
            last = max(last, max(a.t for a in self.actions if a.kind == "reveal") + 1.5)
        self.duration = last + 1.5
        self.n_frames = int(np.ceil(self.duration * fps))
        self.held = list(initial)

    # ------------------------------------------------------------------ static layer
    def _static(self, t: float) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
        """The plane with everything at rest at time t: draw pile, discard pile, held fans, revealed rows."""
        canvas = self.plane.copy()
        drawn: list[tuple[str, np.ndarray]] = []
        for c, a in self.draw_stack:
            drawn.append((BACK, blit_card(canvas, self.bank, BACK, c, a)))
        cleared = max((a.t for a in self.actions if a.kind == "clear" and a.t <= t), default=-1.0)
        pile = [a for a in self.actions if a.kind in ("play", "starter") and cleared < a.t <= t
                and (a.taken_at is None or t < a.taken_at)]
        for a in pile:  # every card laid since the pile was gathered: a real pile never loses its bottom cards
            for code, (x, y, ang) in zip(a.cards, a.poses, strict=False):
                drawn.append((code, blit_card(canvas, self.bank, code, np.array([x, y]), ang)))
        held = self._held_at(t)
        revealed = {a.seat: a for a in self.actions if a.kind == "reveal" and a.t <= t
                    and (a.hide_at is None or t < a.hide_at)}
        for s in range(self.seats):
            if s in revealed:
                drawn += self._reveal_row(canvas, s, revealed[s].cards)
                continue
            n = min(held[s], 14)
            for i in range(n):
                k = i - (n - 1) / 2
                tang = np.array([-self.inward[s][1], self.inward[s][0]])
                pos = self.fan_centre[s] + tang * k * 11 + self.inward[s] * abs(k) * 1.2
                drawn.append((BACK, blit_card(canvas, self.bank, BACK, pos, self.seat_angle[s] + k * 4, shadow=0.15)))
        return canvas, drawn

    def _held_at(self, t: float) -> list[int]:
        """Cards in each seat's fan at t: a played card leaves the fan as the hand sets off, drawn cards join it
        when the hand comes back."""
        held = list(self.held)
        for a in self.actions:
            if a.kind == "feint" or not a.counts_after:
                continue
            change = a.start if a.kind in ("play", "starter", "reveal") else a.end
            if change <= t:
                held = list(a.counts_after)
        return held

    def _reveal_row(self, canvas: np.ndarray, s: int, cards: list[str]) -> list[tuple[str, np.ndarray]]:
        out = []
        tang = np.array([-self.inward[s][1], self.inward[s][0]])
        per_row = 7
        for i, code in enumerate(cards):
            row, col = divmod(i, per_row)
            n = min(per_row, len(cards) - row * per_row)
            k = col - (n - 1) / 2
            pos = self.edge[s] + self.inward[s] * (112 + row * 40) + tang * (k * 32 + row * 12)
            out.append((code, blit_card(canvas, self.bank, code, pos, self.seat_angle[s] + 180, shadow=0.2)))
        return out

    # ------------------------------------------------------------------ moving things
    def _moving(self, canvas: np.ndarray, t: float, hand_mask: np.ndarray | None) -> list[tuple[str, np.ndarray]]:
        drawn: list[tuple[str, np.ndarray]] = []
        for a in self.actions:
            if not (a.start <= t <= a.end + 0.02):
                continue
            s = a.seat
            body = self.body[s]
            if a.kind == "starter":
                drawn += self._turning(canvas, a, t, hand_mask)
            elif a.kind in ("play", "feint"):
                home = self.fan_centre[s] + self.inward[s] * 30
                dest = np.array(a.poses[-1][:2])
                if a.kind == "feint":
                    hover_end = a.t + 0.3
                    if t <= a.t:
                        u = _ease((t - a.start) / REACH)
                    elif t <= hover_end:
                        u = 1.0
                    else:
                        u = 1.0 - _ease((t - hover_end) / LEAVE)
                    carrying = True
                else:
                    u = _ease((t - a.start) / REACH) if t <= a.t else 1.0
                    carrying = t < a.t
                    if t > a.t + 0.05:  # the hand leaves, empty
                        u = 1.0 - _ease((t - a.t - 0.05) / (LEAVE - 0.05))
                pos = home + (dest - home) * u
                perp = np.array([-(dest - home)[1], (dest - home)[0]]) / max(np.linalg.norm(dest - home), 1e-6)
                pos = pos + perp * np.sin(np.pi * u) * 18
                direction = pos - body
                direction /= max(np.linalg.norm(direction), 1e-6)
                if carrying:
                    shift = pos - dest
                    for code, (x, y, ang) in zip(a.cards, a.poses, strict=False):
                        a0 = self.seat_angle[s] + 180
                        angle = a0 + ((ang - a0 + 180) % 360 - 180) * u
                        drawn.append((code, blit_card(canvas, self.bank, code, np.array([x, y]) + shift, angle,
                                                      shadow=0.45)))
                palm = pos - direction * (CARD_H_MM / 2 + 18) if carrying else pos - direction * 40
                draw_hand(canvas, body, palm, self.skins[s], hand_mask)
            elif a.kind == "draw":
                home = self.fan_centre[s] + self.inward[s] * 30
                dest = self.draw_centre
                if t <= a.t:
                    u = _ease((t - a.start) / REACH)
                    carrying = False
                else:
                    u = 1.0 - _ease((t - a.t) / REACH)
                    carrying = True
                pos = home + (dest - home) * u
                direction = pos - body
                direction /= max(np.linalg.norm(direction), 1e-6)
                if carrying:
                    tang = np.array([-direction[1], direction[0]])
                    ang = float(np.degrees(np.arctan2(direction[1], direction[0]))) + 90
                    for i in range(a.count):
                        k = i - (a.count - 1) / 2
                        drawn.append((BACK, blit_card(canvas, self.bank, BACK, pos + tang * k * 27, ang + k * 6,
                                                      shadow=0.45)))
                palm = pos - direction * (CARD_H_MM / 2 + 32) if carrying else pos - direction * 30
                draw_hand(canvas, body, palm, self.skins[s], hand_mask)
            elif a.kind == "reveal" and t <= a.t + LEAVE:
                target = self.edge[s] + self.inward[s] * 120
                u = _ease((t - a.start) / REACH) if t <= a.t else 1.0 - _ease((t - a.t) / LEAVE)
                palm = self.fan_centre[s] + (target - self.fan_centre[s]) * u
                draw_hand(canvas, body, palm, self.skins[s], hand_mask)
        return drawn

    def _turning(self, canvas: np.ndarray, a: Action, t: float,
                 hand_mask: np.ndarray | None) -> list[tuple[str, np.ndarray]]:
        """The dealer turns a starter: the hand reaches the draw pile and lays its top card face up on the discard
        pile. A starter the ruleset sends back (`Action.takes`) is first lifted off the discard pile and carried
        into the draw pile, so the pile is empty again before the next card is turned, as at a real table."""
        s = a.seat
        home = self.fan_centre[s] + self.inward[s] * 30
        dest = np.array(a.poses[-1][:2])
        pile = np.asarray(self.draw_centre, float)
        pile_angle = float(self.draw_stack[-1][1])
        legs: list[tuple[np.ndarray, np.ndarray, float, tuple[str, float, float] | None]] = []
        if a.takes is not None:
            code, (x, y, ang) = a.takes
            old = np.array([x, y])
            legs += [(home, old, REACH, None), (old, pile, REACH, (code, ang, pile_angle))]
        else:
            legs.append((home, pile, REACH, None))
        legs.append((pile, dest, a.t - a.start - REACH * len(legs), (a.cards[0], pile_angle, a.poses[-1][2])))
        legs.append((dest, dest, 0.05, None))
        legs.append((dest, home, LEAVE - 0.05, None))
        t0, k = a.start, 0
        while k < len(legs) - 1 and t > t0 + legs[k][2]:
            t0 += legs[k][2]
            k += 1
        src, dst, span, card = legs[k]
        u = _ease(min(max((t - t0) / max(span, 1e-6), 0.0), 1.0))
        pos = src + (dst - src) * u
        direction = pos - self.body[s]
        direction /= max(np.linalg.norm(direction), 1e-6)
        out = []
        if card is not None:
            code, a0, a1 = card
            angle = a0 + ((a1 - a0 + 180) % 360 - 180) * u
            out.append((code, blit_card(canvas, self.bank, code, pos, angle, shadow=0.45)))
            palm = pos - direction * (CARD_H_MM / 2 + 18)
        else:
            palm = pos - direction * 30
        draw_hand(canvas, self.body[s], palm, self.skins[s], hand_mask)
        return out

    # ------------------------------------------------------------------ frames
    def _change_times(self) -> list[float]:
        times = set()
        for a in self.actions:
            if a.kind == "feint":
                continue
            times.update({a.t, a.start, a.end})
            if a.hide_at is not None:
                times.add(a.hide_at)
            if a.taken_at is not None:
                times.add(a.taken_at)
        return sorted(times)

    def frames(self) -> Iterator[tuple[int, float, np.ndarray, FrameInfo | None]]:
        changes = self._change_times()
        ci = 0
        static, static_cards = self._static(0.0)
        for k in range(self.n_frames):
            t = k / self.fps
            if ci < len(changes) and changes[ci] <= t:
                while ci < len(changes) and changes[ci] <= t:
                    ci += 1
                static, static_cards = self._static(t)
            canvas = static.copy()
            hand_mask = np.zeros(canvas.shape[:2], np.uint8) if self.collect else None
            moving = self._moving(canvas, t, hand_mask)
            frame = self.camera.shoot(canvas, k, t)
            info = self._info(t, static_cards + moving, hand_mask) if self.collect else None
            yield k, t, frame, info

    def _info(self, t: float, cards: list[tuple[str, np.ndarray]], hand_mask: np.ndarray | None) -> FrameInfo:
        """Visible share of every card at 0.5 px/mm, painted in drawing order with the hands on top."""
        s = 0.5
        h, w = int(self.table.height * s), int(self.table.width * s)
        owner = np.zeros((h, w), np.int32)
        for i, (_, quad) in enumerate(cards, start=1):
            cv2.fillConvexPoly(owner, np.round(quad * s).astype(np.int32), i)
        hand = None
        if hand_mask is not None:
            hand = cv2.resize(hand_mask, (w, h), interpolation=cv2.INTER_NEAREST) > 0
            owner[hand] = 0
        counts = np.bincount(owner.ravel(), minlength=len(cards) + 1)
        area = CARD_W_MM * CARD_H_MM * s * s
        info = FrameInfo(t, hand_mm=hand)
        for i, (code, quad) in enumerate(cards, start=1):
            vis = float(min(1.0, counts[i] / area))
            box = None
            if vis > 0:
                x0, y0 = np.maximum(np.floor(quad.min(axis=0) * s).astype(int), 0)
                x1, y1 = np.ceil(quad.max(axis=0) * s).astype(int) + 1
                ys, xs = np.nonzero(owner[y0:y1, x0:x1] == i)
                box = ((x0 + xs.min()) / s, (y0 + ys.min()) / s, (x0 + xs.max() + 1) / s, (y0 + ys.max() + 1) / s)
            info.cards.append((code, quad, vis, box))
        return info


def render_game(log_events: Sequence[Event | dict[str, Any]], out_video: Path, seed: int = 0, fps: float = 30.0,
                size: tuple[int, int] = (960, 540), progress: bool = True, min_gap: float = 1.0,
                feint_rate: float = 0.3) -> GameTruth:
    """Render the game of `log_events` to `out_video` and write the truth files beside it (see module doc)."""
    out_video = Path(out_video)
    out_video.parent.mkdir(parents=True, exist_ok=True)
    r = GameRenderer(log_events, seed=seed, fps=fps, size=size, min_gap=min_gap, feint_rate=feint_rate)
    writer = cv2.VideoWriter(str(out_video), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise OSError(f"cannot open a video writer for {out_video} (is the folder writable, the suffix .mp4/.avi?)")
    it = r.frames()
    if progress:
        from tqdm import tqdm

        it = tqdm(it, total=r.n_frames, desc=f"render {out_video.name}", unit="frame")
    try:
        for _, _, frame, _ in it:
            writer.write(frame)
    finally:
        writer.release()
    truth = GameTruth(out_video, fps, size, r.seats, r.n_frames, r.log, r.visual, r.camera.table_to_image, r.table)
    stem = out_video.with_suffix("")
    with open(f"{stem}.truth.jsonl", "w") as fh:
        for d in r.log:
            fh.write(json.dumps(d) + "\n")
    Path(f"{stem}.truth.json").write_text(json.dumps(truth.to_json(), indent=1))
    write_table(Path(f"{stem}.table.toml"), r.table)
    return truth


def truth_paths(video: Path) -> tuple[Path, Path, Path]:
    """(truth log, visual truth JSON, table file) written beside `video` by `render_game`."""
    stem = Path(video).with_suffix("")
    return Path(f"{stem}.truth.jsonl"), Path(f"{stem}.truth.json"), Path(f"{stem}.table.toml")


__all__ = ["GameRenderer", "GameTruth", "FrameInfo", "Action", "render_game", "truth_paths", "PX_PER_MM"]
