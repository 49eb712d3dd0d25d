"""The cache of rendered eval games: a game made by another renderer (a redrawn face, a changed simulator) is
rendered again; a game made by this one is reused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import datasets.gamevideo as gamevideo
from datasets import gamevideo_set
from datasets.gamevideo_set import game_specs, renderer_stamp


@pytest.fixture
def fake_render(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []

    def render_game(events: Any, video: Path, seed: int, fps: float, progress: bool) -> None:
        calls.append(video)
        video.write_bytes(b"video")
        log, meta, table = gamevideo.truth_paths(video)
        log.write_text("")
        meta.write_text(json.dumps({"frames": 10}))
        table.write_text("")

    monkeypatch.setattr(gamevideo, "render_game", render_game)
    monkeypatch.setattr(gamevideo_set, "simulate", lambda spec: [])
    return calls


def test_a_game_is_rendered_once_and_stamped(tmp_path: Path, fake_render: list[Path]) -> None:
    spec = game_specs(1, 3000)[0]
    video = gamevideo_set.ensure_game(spec, folder=tmp_path)
    assert json.loads(gamevideo.truth_paths(video)[1].read_text())["renderer"] == renderer_stamp()
    assert gamevideo_set.ensure_game(spec, folder=tmp_path) == video
    assert fake_render == [video]


def test_a_game_from_another_renderer_is_rendered_again(tmp_path: Path, fake_render: list[Path]) -> None:
    spec = game_specs(1, 3000)[0]
    video = gamevideo_set.ensure_game(spec, folder=tmp_path)
    meta_path = gamevideo.truth_paths(video)[1]
    meta_path.write_text(json.dumps({"frames": 10, "renderer": "an-old-one"}))
    gamevideo_set.ensure_game(spec, folder=tmp_path)
    assert len(fake_render) == 2
    meta_path.write_text(json.dumps({"frames": 10}))  # cached before stamps existed
    gamevideo_set.ensure_game(spec, folder=tmp_path)
    assert len(fake_render) == 3


def test_the_stamp_covers_the_faces_and_the_simulator() -> None:
    assert "datasets/faces.py" in gamevideo_set.RENDER_SOURCES and "tracker/simulate.py" in gamevideo_set.RENDER_SOURCES
    assert len(renderer_stamp()) == 12
