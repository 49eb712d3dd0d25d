"""`unotable eval-speech` on a fresh machine: the held-out corpus is rendered first when it is missing (the seeds are
fixed, so it is the corpus the model card's figures came from), and a corpus that can't be rendered says why."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import speech.train
from speech import commands
from speech.audio import SpeechInputError


def _args(bank: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(bank=bank, threshold=None, model=None, quick=True, png=None, json=None)


def test_a_missing_default_corpus_is_rendered_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rendered: list[Path] = []
    monkeypatch.setattr(speech.train, "DATA", tmp_path)
    monkeypatch.setattr(speech.train, "build_test_banks", lambda data: rendered.append(data))
    assert commands._eval(_args()) == 2  # the stand-in rendered nothing: still missing, said plainly
    assert rendered == [tmp_path]
    err = capsys.readouterr().err
    assert "rendering the held-out test corpus" in err and "banks_test.pkl is missing" in err


def test_a_corpus_that_cannot_be_rendered_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def fail(data: Path) -> None:
        raise SpeechInputError("espeak-ng is not installed")

    monkeypatch.setattr(speech.train, "DATA", tmp_path)
    monkeypatch.setattr(speech.train, "build_test_banks", fail)
    assert commands._eval(_args()) == 2
    assert "can't render the test corpus: espeak-ng is not installed" in capsys.readouterr().err


def test_a_named_corpus_that_is_missing_is_not_rendered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(speech.train, "build_test_banks", lambda data: pytest.fail("rendered a named corpus"))
    assert commands._eval(_args(tmp_path / "mine.pkl")) == 2
    assert "mine.pkl is missing" in capsys.readouterr().err
