"""The speech-embedding front end and the embedded training recordings."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from speech.audio import RATE
from speech.embed_data import IGNORE_AFTER_S, POSITIVE_S, label_embeddings, table_recording
from speech.embedding import (
    EMB_DIM,
    FIRST_END,
    HOP_SAMPLES,
    EmbeddingStream,
    FrontEndMissingError,
    SpeechEmbedder,
    end_sample,
    model_dir,
    warp_bins,
)
from speech.head import CONTEXT, gather, window_index
from speech.kwsdata import Banks, Utt
from speech.vocab import CLASSES


@pytest.fixture(scope="module")
def embedder() -> SpeechEmbedder:
    return SpeechEmbedder()


def test_framing_matches_the_onnx_graphs(embedder: SpeechEmbedder) -> None:
    x = (np.random.default_rng(1).standard_normal(5 * RATE) * 0.05).astype(np.float32)
    mel = embedder.mel(x)
    assert mel.shape == (1 + (len(x) - 512) // 160, 32)
    emb = embedder.embed(x)
    # one embedding per 1280 samples once the first 12,512 samples are there
    assert emb.shape == (1 + (len(x) - FIRST_END) // HOP_SAMPLES, EMB_DIM)
    assert end_sample(len(emb) - 1) <= len(x) < end_sample(len(emb))


def test_streaming_gives_the_batch_embeddings(embedder: SpeechEmbedder) -> None:
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(6 * RATE) * 0.05).astype(np.float32)
    batch = embedder.embed(x, block_s=1.7)  # blocks give the same as one pass
    assert np.allclose(batch, embedder.embed(x), atol=1e-3)
    stream = EmbeddingStream(embedder)
    got, ends, i = [], [], 0
    while i < len(x):
        k = int(rng.integers(50, 4000))  # odd chunk sizes, some shorter than a frame
        e, en = stream.push(x[i:i + k])
        got.append(e)
        ends.append(en)
        i += k
    assert np.allclose(np.concatenate(got), batch, atol=1e-3)
    assert list(np.concatenate(ends)) == [end_sample(j) for j in range(len(batch))]


def test_the_streamed_network_gives_the_shipped_networks_windows(embedder: SpeechEmbedder) -> None:
    """The rewritten graph (each frame through each layer once) against the network as shipped, window by window:
    the same numbers, fed in one call or in pieces of any size, after a reset too."""
    rng = np.random.default_rng(5)
    t = np.arange(4 * RATE) / RATE
    x = (0.2 * np.sin(2 * np.pi * 220 * t * (1 + t / 4)) + rng.standard_normal(len(t)) * 0.03).astype(np.float32)
    mel = embedder.mel(x)
    n = 1 + (len(mel) - 76) // 8
    windows = np.stack([mel[8 * i:8 * i + 76] for i in range(n)])
    shipped = embedder.embed_windows(windows)
    stream = embedder.streaming()
    assert np.allclose(stream.push(mel), shipped, atol=1e-4)
    for _ in range(2):
        stream.reset()
        got, i = [], 0
        while i < len(mel):
            k = int(rng.integers(1, 40))
            got.append(stream.push(mel[i:i + k]))
            i += k
        assert np.allclose(np.concatenate(got), shipped, atol=1e-4)
    assert np.allclose(embedder.embed_mel(mel, block=37), shipped, atol=1e-4)  # blocks of any size


def test_a_graph_of_another_shape_is_refused() -> None:
    from speech.embedding_stream import streaming_model

    with pytest.raises(ValueError, match="not the speech-embedding graph"):
        streaming_model(model_dir() / "melspectrogram.onnx")


def test_speech_and_silence_embed_differently(embedder: SpeechEmbedder) -> None:
    t = np.arange(2 * RATE) / RATE
    vowel = (0.3 * np.sin(2 * np.pi * 150 * t) * (1 + np.sin(2 * np.pi * 700 * t))).astype(np.float32)
    quiet = np.zeros(2 * RATE, np.float32)
    a, b = embedder.embed(vowel)[-1], embedder.embed(quiet)[-1]
    assert np.linalg.norm(a - b) > 1.0


def test_warp_moves_energy_up_or_down_the_bins() -> None:
    mel = np.zeros((3, 32), np.float32)
    mel[:, 10] = 1.0
    assert np.array_equal(warp_bins(mel, 1.0), mel)
    assert int(np.argmax(warp_bins(mel, 1.15)[0])) > 10  # a shorter tract: formants higher
    assert int(np.argmax(warp_bins(mel, 0.87)[0])) < 10


def test_missing_package_names_the_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "openwakeword" else real(name, *a))
    with pytest.raises(FrontEndMissingError, match="openwakeword==0.4.0"):
        model_dir()


def test_labels_fire_after_the_word_and_wait_for_all_of_it() -> None:
    uno = CLASSES.index("uno")
    s, e = 30_000, 38_000  # a word of 0.5 s
    lab = label_embeddings(60, [(uno, s, e)])
    te = np.asarray(end_sample(np.arange(60)))
    assert np.all(lab[(te >= e) & (te <= e + POSITIVE_S * RATE)] == uno)
    assert np.all(lab[te < s + (e - s) // 2] == 0)  # the first half of the word: not yet
    assert np.all(lab[(te >= s + (e - s) // 2) & (te < e)] == -1)
    assert np.all(lab[(te > e + POSITIVE_S * RATE) & (te <= e + IGNORE_AFTER_S * RATE)] == -1)
    assert np.all(lab[te > e + IGNORE_AFTER_S * RATE] == 0)


def _tone(f: float, seconds: float, cls: str) -> Utt:
    t = np.arange(int(seconds * RATE)) / RATE
    return Utt(cls, cls, "en", "test", (0.4 * np.sin(2 * np.pi * f * t)).astype(np.float32))


def test_a_table_recording_places_its_keywords() -> None:
    banks = Banks(keywords=[_tone(440, 0.4, "uno"), _tone(660, 0.5, "red")],
                  negatives=[_tone(300, 0.3, "other")], sentences=[_tone(200, 1.5, "other")] * 3)
    rec = table_recording(banks, np.random.default_rng(3), seconds=20)
    assert len(rec.audio) == 20 * RATE and rec.keywords
    for c, s, e in rec.keywords:
        assert CLASSES[c] in ("uno", "red") and 0 <= s < e <= len(rec.audio)
        assert e - s in (int(0.4 * RATE), int(0.5 * RATE))


def test_windows_stay_inside_their_recording() -> None:
    lab = np.zeros(40, np.int8)
    lab[5] = -1
    idx = window_index(lab, np.array([20, 20]))
    assert idx.min() == CONTEXT - 1 and 20 not in idx and 20 + CONTEXT - 1 in idx and 5 not in idx
    emb = np.arange(40, dtype=np.float32)[:, None].repeat(EMB_DIM, 1)
    w = gather(emb, np.array([CONTEXT - 1]))
    assert w.shape == (1, CONTEXT, EMB_DIM) and w[0, 0, 0] == 0 and w[0, -1, 0] == CONTEXT - 1
