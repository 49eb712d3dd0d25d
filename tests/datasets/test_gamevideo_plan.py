"""The game video's timing (`datasets.gamevideo_plan`): what the hands do when, from a simulated log."""

from __future__ import annotations

import numpy as np

from datasets.gamevideo_plan import LEAVE, REVEAL_GAP, VISUAL, plan_actions, retime
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
