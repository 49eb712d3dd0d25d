"""Real voices from Debian packages (`speech.realvoices`): which recordings count as what, reading them as the packages
lay them out (a miniature file tree written here with sox), and the windows made from them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from speech.features import RATE
from speech.kwsdata import Banks, Utt, save_banks
from speech.realvoices import (
    REAL_SOURCES,
    RealSource,
    build_real_examples,
    clip_label,
    decode,
    dev_stream,
    load_real,
    make_real_example,
    telephone,
    with_real_voices,
)
from speech.vocab import CLASSES

needs_sox = pytest.mark.skipif(shutil.which("sox") is None, reason="sox is not installed (make system-deps)")

ES = next(s for s in REAL_SOURCES if s.speaker == "asterisk:es_MX_f_Allison")
IT = next(s for s in REAL_SOURCES if s.speaker == "asterisk:it_IT_m_Carlo")
EN = next(s for s in REAL_SOURCES if s.speaker == "asterisk:en_US_f_Allison")


@pytest.mark.parametrize(("src", "rel", "label"), [
    (ES, "digits/1.wav", "uno"),  # Spanish "uno": a real keyword
    (IT, "digits/1.wav", "uno"),
    (IT, "digits/21.wav", None),  # "ventuno" ends in "uno": neither keyword nor fair negative
    (ES, "digits/21.wav", None),  # "veintiuno"
    (ES, "digits/1F.wav", "other"),  # "una": a near miss
    (EN, "digits/1.wav", "other"),  # "one": the nearest English miss
    (EN, "vm-password.wav", None),  # holds "pass"
    (EN, "agent-pass.wav", None),
    (EN, "silence/1.wav", None),
    (EN, "vm-goodbye.wav", "other"),
])
def test_clip_labels(src: RealSource, rel: str, label: str | None) -> None:
    assert clip_label(src, Path("/usr/share/asterisk/sounds") / src.speaker.split(":")[1] / rel) == label


def test_speakers_are_split_whole() -> None:
    speakers = {s.speaker: s.split for s in REAL_SOURCES}
    assert len(speakers) == len(REAL_SOURCES)  # no speaker in both splits
    assert {s for s, split in speakers.items() if split == "dev"} == {
        "asterisk:en_US_f_Allison", "asterisk:fr_CA_f_June", "asterisk:ru_RU_f_IvrvoiceRU", "klettres:en_GB"}


def _write(path: Path, rate: int, seconds: float, seed: int) -> None:
    """A voiced-like signal (a 150 Hz buzz with formant-ish noise) written by sox in the format the path names."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    t = np.arange(int(rate * seconds)) / rate
    x = 0.3 * np.sign(np.sin(2 * np.pi * 150 * t)) * np.hanning(len(t)) + 0.02 * rng.standard_normal(len(t))
    raw = path.with_suffix(".raw")
    raw.write_bytes(x.astype(np.float32).tobytes())
    subprocess.run(["sox", "-t", "raw", "-r", str(rate), "-e", "floating-point", "-b", "32", "-c", "1", str(raw),
                    str(path)], check=True)
    raw.unlink()


@needs_sox
def test_load_real_reads_the_packages_layout(tmp_path: Path) -> None:
    snd = tmp_path / "usr/share/asterisk/sounds"
    _write(snd / "es_MX_f_Allison/digits/1.wav", 8000, 0.5, 1)
    _write(snd / "es_MX_f_Allison/digits/21.wav", 8000, 0.6, 2)
    _write(snd / "en_US_f_Allison/vm-goodbye.wav", 8000, 0.8, 3)
    _write(snd / "es/vm-intro.gsm", 8000, 1.0, 4)  # Colombian Spanish: raw GSM
    _write(tmp_path / "usr/share/klettres/ru/syllab/ba.ogg", 44100, 0.4, 5)
    _write(snd / "fr_CA_f_June/vm-goodbye.wav", 8000, 0.7, 6)
    train = load_real("train", tmp_path, workers=1)
    assert [(u.voice, u.cls) for u in train.keywords] == [("asterisk:es_MX_f_Allison", "uno")]
    assert sorted(u.voice for u in train.negatives) == ["asterisk:es_CO", "klettres:ru"]
    by_voice = {u.voice: u for u in train.negatives}
    assert abs(len(by_voice["klettres:ru"].audio) - 0.4 * RATE) < 0.02 * RATE  # 44.1 kHz -> 16 kHz
    assert all(abs(float(np.max(np.abs(u.audio))) - 0.5) < 1e-3 for u in train.negatives)
    dev = load_real("dev", tmp_path, workers=1)
    assert sorted(u.voice for u in dev.negatives) == ["asterisk:en_US_f_Allison", "asterisk:fr_CA_f_June"]
    assert not dev.keywords
    en = next(u for u in dev.negatives if u.voice == "asterisk:en_US_f_Allison")
    assert abs(len(en.audio) - 0.8 * RATE) < 0.02 * RATE  # 8 kHz -> 16 kHz


def test_missing_packages_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="asterisk-core-sounds-en-wav"):
        load_real("train", tmp_path, workers=1)


@needs_sox
def test_an_unreadable_recording_names_its_path(tmp_path: Path) -> None:
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF not a wave")
    with pytest.raises(ValueError, match="broken.wav"):
        decode(bad)


def test_telephone_removes_the_top_octave() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(RATE).astype(np.float32)
    y = telephone(x)
    spec_x, spec_y = np.abs(np.fft.rfft(x)), np.abs(np.fft.rfft(y))
    f = np.fft.rfftfreq(len(x), 1 / RATE)
    assert len(y) == len(x)
    assert spec_y[f > 4300].mean() < 0.05 * spec_x[f > 4300].mean()
    assert spec_y[(f > 300) & (f < 3000)].mean() > 0.8 * spec_x[(f > 300) & (f < 3000)].mean()


def _banks(rng: np.random.Generator) -> tuple[Banks, Banks]:
    def utt(cls: str, n: float, voice: str) -> Utt:
        return Utt(cls, cls, "en", voice, (0.3 * rng.standard_normal(int(n * RATE))).astype(np.float32))

    real = Banks(keywords=[utt("uno", 0.4, "real")], negatives=[utt("other", s, "real") for s in (0.3, 2.5)],
                 sentences=[])
    synth = Banks(keywords=[utt(c, 0.4, "synth") for c in CLASSES[1:]], negatives=[utt("other", 0.3, "synth")],
                  sentences=[utt("other", 3.0, "synth")])
    return real, synth


def test_real_windows_are_labelled_and_levelled() -> None:
    rng = np.random.default_rng(1)
    real, synth = _banks(rng)
    by_class = {c: [u for u in synth.keywords if u.cls == c] for c in CLASSES[1:]}
    labels = []
    for _ in range(300):
        y, lab = make_real_example(rng, real, synth, by_class)
        assert y.shape == (int(1.2 * RATE),) and np.all(np.isfinite(y))
        assert 10 ** (-41 / 20) < float(np.max(np.abs(y))) <= 10 ** (-1 / 20) + 1e-6
        labels.append(lab)
    counts = np.bincount(labels, minlength=len(CLASSES))
    assert 0.5 < counts[0] / 300 < 0.8  # real speech and babble alone are "other"
    assert np.all(counts[1:] > 0)  # every keyword, "uno" from both synthetic and real voices


def test_build_real_examples_writes_log_mel_windows(tmp_path: Path) -> None:
    real, synth = _banks(np.random.default_rng(2))
    save_banks(real, tmp_path / "real.pkl")
    save_banks(synth, tmp_path / "synth.pkl")
    x, y = build_real_examples(tmp_path / "real.pkl", tmp_path / "synth.pkl", 60, seed=3, workers=1)
    assert x.shape == (60, 118, 40) and x.dtype == np.float16 and y.shape == (60,)
    x2, y2 = build_real_examples(tmp_path / "real.pkl", tmp_path / "synth.pkl", 60, seed=3, workers=1)
    assert np.array_equal(y, y2) and np.array_equal(x, x2)  # a seed rebuilds the same windows


def test_dev_stream_lays_every_recording_at_peak_0_7() -> None:
    real, _ = _banks(np.random.default_rng(4))
    y = dev_stream(real)
    assert abs(float(np.max(np.abs(y))) - 0.7) < 1e-4
    assert len(y) >= sum(len(u.audio) for u in real.negatives) + 2 * int(0.2 * RATE)


def test_with_real_voices_puts_short_recordings_beside_near_misses_and_long_ones_in_the_talk() -> None:
    def utt(text: str, cls: str, seconds: float) -> Utt:
        return Utt(text, cls, "es", "asterisk:es_CO", np.zeros(int(seconds * RATE), np.float32))

    syn = Banks(keywords=[utt("uno", "uno", 0.5)], negatives=[utt("Juno", "other", 0.5)],
                sentences=[utt("talk", "other", 3.0)])
    real = Banks(keywords=[utt("1", "uno", 0.4)],
                 negatives=[utt("s1", "other", 1.0), utt("s2", "other", 1.5)] +
                           [utt(f"l{i}", "other", 2.0 + i) for i in range(5)])
    bank = with_real_voices(syn, real, seed=1, n_long=3)
    assert [u.text for u in bank.keywords] == ["uno", "1"]
    assert [u.text for u in bank.negatives] == ["Juno", "s1", "s2"]  # up to 1.5 s: beside the near misses
    long_texts = [u.text for u in bank.sentences[1:]]
    assert bank.sentences[0].text == "talk" and len(long_texts) == 3 and len(set(long_texts)) == 3
    assert all(t.startswith("l") for t in long_texts)
    assert [u.text for u in with_real_voices(syn, real, seed=1, n_long=3).sentences] == ["talk", *long_texts]
    assert [u.text for u in with_real_voices(syn, real, seed=1, n_long=9, real_keywords=False).keywords] == ["uno"]
    assert len(with_real_voices(syn, real, seed=1, n_long=9).sentences) == 6  # never more than there are
