"""Synthesised table audio for the demo: calls land where asked, per-seat channels favour the caller."""

from __future__ import annotations

import numpy as np

from speech.tabletrack import Call, make_track

from .conftest import needs_espeak


@needs_espeak()
def test_calls_land_at_their_times_and_seat_channels() -> None:
    audio, truth = make_track([Call(1.0, "UNO", seat=1), Call(3.0, "красный", seat=0, lang="ru")], 5.0, seats=2,
                              noise_db=-30)
    assert audio.shape == (80000, 2) and audio.dtype == np.int16
    assert [t["text"] for t in truth] == ["UNO", "красный"]
    env = np.abs(audio.astype(np.float32))
    assert env[:14000].max() < 0.3 * env.max()  # quiet before the first call
    first = slice(16000, int(truth[0]["t_end"] * 16000))
    assert env[first, 1].mean() > 2 * env[first, 0].mean()  # seat 1 called: its channel is loudest
    second = slice(48000, int(truth[1]["t_end"] * 16000))
    assert env[second, 0].mean() > 2 * env[second, 1].mean()
