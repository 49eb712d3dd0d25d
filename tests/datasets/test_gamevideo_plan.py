"""The game video's timing (`datasets.gamevideo_plan`): what the hands do when, from a simulated log."""

from __future__ import annotations

import numpy as np

from datasets.gamevideo_plan import LEAVE, REACH, RETURN_GAP, REVEAL_GAP, VISUAL, plan_actions, retime
from tracker.simulate import SimConfig, simulate_match


def _log(seed: int) -> list:
    return simulate_match(SimConfig(ruleset="falsonal", players=4, seed=seed, max_hands=1)).events


def test_visual_events_are_a_second_apart_and_a_revealed_hand_lies_open_longer() -> None:
    for seed in range(6):
        log = retime(_log(seed))
        visual = [d for d in log if d["type"] in VISUAL]
        assert [d["t"] for d in log] == sorted(d["t"] for d in log)
        for a, b in zip(visual, visual[1:], strict=False):
            assert b["t"] - a["t"] >= (REVEAL_GAP if a["type"] == "reveal" else 1.0) - 1e-6


def test_a_challenge_reveal_stays_in_view_well_after_the_hand_has_left() -> None:
    """Seen before: a challenged hand picked up 0.45 s after it was laid, while the hand still covered it."""
    shown = []
    for seed in range(40):
        actions, _, _ = plan_actions(retime(_log(seed)), np.random.default_rng(seed), np.array([600.0, 280.0]))
        shown += [a.hide_at - a.t for a in actions if a.kind == "reveal" and a.hide_at is not None]
    assert shown, "no challenge in 40 games"
    assert min(shown) >= LEAVE + 1.0


SENT_BACK = [
    {"t": 0.0, "type": "match_start", "ruleset": "chempiunat", "players": ["A", "B", "C", "D"]},
    {"t": 0.2, "type": "hand_start", "dealer": 2},
    {"t": 1.0, "type": "starter", "card": "yellow-skip"},
    {"t": 2.0, "type": "starter", "card": "yellow-2"},
    {"t": 3.0, "type": "play", "seat": 3, "cards": ["yellow-7"]},
]


def test_a_starter_sent_back_leaves_the_pile_before_the_next_is_turned() -> None:
    """CH-START (and MA-START's Wild Draw Four): the dealer carries the first starter back into the draw pile, then
    turns the next; the pile is empty in between, as at a real table, so the camera can tell a re-turn from a play."""
    from tracker.log import parse_event

    log = retime([parse_event(d, i + 1) for i, d in enumerate(SENT_BACK)])
    first, second = (d for d in log if d["type"] == "starter")
    assert second["t"] - first["t"] >= RETURN_GAP - 1e-6
    actions, _, _ = plan_actions(log, np.random.default_rng(0), np.array([600.0, 280.0]))
    a, b = (x for x in actions if x.kind == "starter")
    assert a.seat == b.seat == 2  # the dealer turns both
    assert b.takes is not None and b.takes[0] == "yellow-skip"
    assert a.taken_at is not None and a.t + LEAVE < b.start < a.taken_at < b.t
    assert b.t - a.taken_at == 2 * REACH  # carried to the draw pile, then the next card turned
    assert b.taken_at is None


def test_the_pile_is_gathered_before_the_next_deal() -> None:
    log = retime(simulate_match(SimConfig(ruleset="mattel", players=4, seed=3, max_hands=2)).events)
    starts = [d["t"] for d in log if d["type"] == "hand_start"]
    assert len(starts) == 2
    actions, _, _ = plan_actions(log, np.random.default_rng(0), np.array([600.0, 280.0]))
    clears = [a.t for a in actions if a.kind == "clear"]
    assert clears == [starts[1]]  # the first deal finds the pile empty already


def test_a_long_pile_keeps_every_card_laid_since_it_was_gathered() -> None:
    """The renderer drew only the pile's last 14 plays, so the 15th made the first vanish: a change far from the
    card just laid, which no real pile makes (fresh 77009 of stop 40: an old red card's corner turned blue as a
    pair was laid, and the pair's lower card was looked for there). Every card laid since the last gathering is
    drawn, in the order laid."""
    from datasets.gamevideo import GameRenderer

    log: list[dict[str, object]] = [
        {"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B", "C", "D"]},
        {"t": 0.2, "type": "hand_start", "dealer": 0},
        {"t": 1.0, "type": "starter", "card": "red-1"},
    ]
    plays = [f"{c}-{v}" for v in range(2, 6) for c in ("red", "blue", "green", "yellow")]  # 16 plays
    log += [{"t": 2.0 + i, "type": "play", "seat": (i + 1) % 4, "cards": [code]} for i, code in enumerate(plays)]
    g = GameRenderer(log, seed=5)
    _, drawn = g._static(g.duration)
    laid = [code for code, _ in drawn if code != "back"]
    assert laid == ["red-1", *plays]
