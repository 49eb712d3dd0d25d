"""`unotable eval-speech`: recall, false alarms per hour, latency and a DET curve on held-out voices and real speech.

Why streams: a keyword spotter's errors show up only in continuous audio (double fires, fires on the middle of a
sentence, late fires), so the test corpus is laid out as long recordings, played through the same streaming
detector as `unotable listen`, and the network's posteriors are recorded once per stream so that the threshold sweep
for the DET curve replays only the firing rule.

Corpora (all built from data/speech/banks_test.pkl, voices held out of training, see speech/vocab.py):
- keyword streams: every held-out keyword rendition, some after a near-miss word, 0.8-1.5 s apart, in babble of
  held-out voices at each SNR;
- other speech: held-out sentences of table talk back to back (with near-miss words), babble at 10 dB, for false
  alarms per hour;
- unheard speakers (data/speech/banks_accent_test.pkl, when built): the festival voices of other languages held out
  of training (speech/accents.py) saying the keywords in clean speech and in 10 dB babble of the held-out English
  and Russian voices, and their own sentences for false alarms;
- unheard real speakers (data/speech/banks_pico_test.pkl, rendered when SVOX Pico is installed): Pico's British
  English and French voices, HMM voices of real speakers that no part is trained on (speech/pico.py), scored as the
  unheard speakers above;
- real speech: the 3,000 recordings of ../shared/datasets/spoken-digits-en, one after another, for false alarms on
  real voices ("one" is the nearest word to "uno").
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speech import augment
from speech.audio import RATE, ArraySource
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import Banks, Utt, babble, load_banks
from speech.vocab import CLASSES

REPO = Path(__file__).resolve().parents[1]
DIGITS = REPO / ".." / "shared" / "datasets" / "spoken-digits-en"
HIT_BEFORE, HIT_AFTER = 0.25, 1.0  # an event counts for a word if emitted within [end - 0.25 s, end + 1 s]


def _active_rms(x: np.ndarray) -> float:
    a = x[np.abs(x) > 0.02 * (np.max(np.abs(x)) + 1e-9)]
    return augment.rms(a) if a.size else augment.rms(x)


def lay_keywords(kws: Sequence[Utt], negatives: Sequence[Utt], rng: np.random.Generator
                 ) -> tuple[np.ndarray, list[tuple[Utt, int, int]]]:
    """The keyword stream's layout, shared with the mined training streams (`speech.mining`): keywords in the
    given order, 0.8-1.5 s apart, half of them 0.2-0.6 s after a near-miss word; returns the audio and each
    keyword with its first and last sample."""
    pieces: list[tuple[int, np.ndarray]] = []
    placed: list[tuple[Utt, int, int]] = []
    pos = int(1.5 * RATE)
    for u in kws:
        if negatives and rng.random() < 0.5:
            p = negatives[int(rng.integers(len(negatives)))].audio
            pieces.append((pos, p))
            pos += len(p) + int(rng.uniform(0.2, 0.6) * RATE)
        pieces.append((pos, u.audio))
        placed.append((u, pos, pos + len(u.audio)))
        pos += len(u.audio) + int(rng.uniform(0.8, 1.5) * RATE)
    y = np.zeros(pos + RATE, np.float32)
    for p0, x in pieces:
        y[p0:p0 + len(x)] += x
    return y, placed


def lay_back_to_back(utts: Sequence[Utt], gaps: Sequence[int]) -> np.ndarray:
    """Utterances one after another from 0.5 s, each followed by its gap (samples): continuous speech."""
    y = np.zeros(sum(len(u.audio) for u in utts) + sum(gaps) + RATE, np.float32)
    pos = RATE // 2
    for u, g in zip(utts, gaps, strict=True):
        y[pos:pos + len(u.audio)] += u.audio
        pos += len(u.audio) + g
    return y


def keyword_stream(banks: Banks, snr: float | None, seed: int, limit: int | None = None
                   ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Held-out keywords in a stream with babble at `snr` dB (None: clean); returns audio and the truth."""
    rng = np.random.default_rng(seed)
    kws = list(banks.keywords)
    rng.shuffle(kws)  # type: ignore[arg-type]
    kws = kws[:limit] if limit else kws
    y, placed = lay_keywords(kws, banks.negatives, rng)
    truth = [{"cls": u.cls, "lang": u.lang, "voice": u.voice, "text": u.text, "start": a / RATE, "end": b / RATE}
             for u, a, b in placed]
    if snr is not None:
        ref = float(np.median([_active_rms(u.audio) for u in kws]))
        y = augment.mix_snr(y, babble(len(y), rng, banks.sentences, talkers=4), snr, ref_rms=ref)
    return _normalise(y), truth


def other_stream(sentences: list[Utt], snr: float | None, seed: int) -> np.ndarray:
    """Continuous non-keyword speech (sentences back to back), babble at `snr` dB."""
    rng = np.random.default_rng(seed)
    gaps = [int(rng.uniform(0.1, 0.5) * RATE) for _ in sentences]
    y = lay_back_to_back(sentences, gaps)
    if snr is not None:
        ref = float(np.median([_active_rms(s.audio) for s in sentences[:200]]))
        y = augment.mix_snr(y, babble(len(y), rng, sentences, talkers=4), snr, ref_rms=ref)
    return _normalise(y)


def isolated_words(clips: Sequence[np.ndarray], gap_s: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Words said one at a time, as the real digits are recorded: each clip at peak 0.5 followed by `gap_s` of
    silence, the whole at peak 0.7; returns the audio and each clip's start in seconds (to say which word an alarm
    followed)."""
    parts, starts, pos = [], [], 0
    gap = np.zeros(int(gap_s * RATE), np.float32)
    for x in clips:
        starts.append(pos / RATE)
        parts += [x / (np.max(np.abs(x)) + 1e-9) * 0.5, gap]
        pos += len(x) + len(gap)
    return _normalise(np.concatenate(parts) if parts else np.zeros(RATE, np.float32)), np.array(starts)


def digits_clips(folder: Path, limit: int | None = None) -> tuple[list[np.ndarray], list[str]]:
    """The real spoken digits' recordings, resampled to 16 kHz mono, and their file names (sorted)."""
    import soundfile as sf

    from speech.synth import resample

    files = sorted(folder.glob("*.wav"))[:limit] if limit else sorted(folder.glob("*.wav"))
    clips = []
    for f in files:
        x, sr = sf.read(str(f), dtype="float32", always_2d=True)
        clips.append(resample(x.mean(axis=1), int(sr), RATE))
    return clips, [f.name for f in files]


def digits_stream(folder: Path, limit: int | None = None) -> tuple[np.ndarray, list[str]]:
    """The real spoken digits one after another (resampled to 16 kHz), with 0.3 s gaps; returns audio and names."""
    clips, names = digits_clips(folder, limit)
    return isolated_words(clips)[0], names


def _normalise(y: np.ndarray) -> np.ndarray:
    return (y / (np.max(np.abs(y)) + 1e-9) * 0.7).astype(np.float32)


def posteriors(det: KeywordDetector, audio: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """Run the live detector over `audio`; returns (times, raw posteriors) and the events it emitted."""
    det.reset()
    det.record = []
    # no end-of-stream flush: the figures are of the stream's own posteriors (the acceptance figures since stop 48)
    events = list(det.run(ArraySource(audio, chunk_s=0.1).chunks(), flush=False))
    times = np.array([t for t, _ in det.record])
    posts = np.stack([p for _, p in det.record]) if det.record else np.zeros((0, len(CLASSES)))
    det.record = None
    return times, posts, events


def score_keywords(fires: list[tuple[float, int, float]], truth: list[dict[str, Any]]) -> dict[str, Any]:
    """Match fires (emission time, class, conf) to words; returns hits per word, latencies, wrong fires."""
    used = set()
    hits: list[bool] = []
    lat: list[float] = []
    for w in truth:
        ok = False
        for i, (t, c, _) in enumerate(fires):
            if i in used or t < w["end"] - HIT_BEFORE or t > w["end"] + HIT_AFTER:
                continue
            if CLASSES[c] == w["cls"]:
                used.add(i)
                ok = True
                lat.append(t - w["end"])
                break
        hits.append(ok)
    wrong = len(fires) - len(used)
    return {"hits": hits, "latencies": lat, "extra_fires": wrong}


def engine_lang(word: dict[str, Any]) -> str:
    """"espeak/en", "flite/en", "festival/en": the synthesiser and language of a word of the test stream.

    Why a table of its own: the held-out flite and festival voices are the test's only speakers not made by
    espeak-ng, the nearest it has to a new human voice, and too few words each to read from the per-voice list."""
    return f"{str(word['voice']).split(':', 1)[0]}/{word['lang']}"


def recall_by_engine(truth: list[dict[str, Any]], hits: list[bool]) -> dict[str, dict[str, float]]:
    """Recall per synthesiser and language (`engine_lang`), as the report's `by_engine_lang`."""
    return _recall_table([dict(w, el=engine_lang(w)) for w in truth], hits, "el")


def _recall_table(truth: list[dict[str, Any]], hits: list[bool], key: str) -> dict[str, dict[str, float]]:
    agg: dict[str, list[bool]] = defaultdict(list)
    for w, h in zip(truth, hits, strict=True):
        agg[w[key]].append(h)
    return {k: {"recall": float(np.mean(v)), "n": len(v)} for k, v in sorted(agg.items())}


def evaluate(bank_path: Path, snrs: tuple[float | None, ...] = (None, 20.0, 10.0, 5.0, 0.0),
             threshold: float | None = None, limit: int | None = None, fa_limit: int | None = None,
             digits_limit: int | None = None, png: Path | None = None,
             model_path: Path | None = None, accent_bank: Path | None = None,
             real_digits: bool = True, pico_bank: Path | None = None) -> dict[str, Any]:
    """The whole evaluation; returns a JSON-able report (and writes the DET curve to `png`).

    `model_path`: a keyword model other than the shipped one (a candidate from a training run); `accent_bank`: the
    held-out speakers of other languages (skipped when absent); `pico_bank`: the held-out Pico voices (skipped
    when absent); `real_digits=False` leaves the shared real digits
    unread (a round's guide bank scored on its own)."""
    from tqdm import tqdm

    det = KeywordDetector(model_path, threshold=threshold)
    thr, off = det.thresholds, det.end_offset_s
    banks = load_banks(bank_path)
    per_class = {c: float(t) for c, t in zip(CLASSES[1:], thr[1:], strict=True) if t != det.threshold}
    report: dict[str, Any] = {"threshold": det.threshold, "class_thresholds": per_class, "smooth": det.smooth,
                              "persist": det.persist, "hop_s": det.hop_frames * 0.01, "snr": {}}
    cache: dict[str, tuple[np.ndarray, np.ndarray, Any]] = {}
    for snr in tqdm(snrs, desc="keyword streams"):
        name = "clean" if snr is None else f"{snr:g}dB"
        audio, truth = keyword_stream(banks, snr, seed=7, limit=limit)
        times, posts, _ = posteriors(det, audio)
        cache[name] = (times, posts, truth)
        sc = score_keywords(_fires(det, times, posts), truth)
        hits = sc["hits"]
        cls_lang = [dict(w, cl=f"{w['cls']}/{w['lang']}", kind="uno" if w["cls"] == "uno" else
                         ("pass" if w["cls"] == "pass" else "color"), kl=None) for w in truth]
        for w in cls_lang:
            w["kl"] = f"{w['kind']}/{w['lang']}"
        report["snr"][name] = {
            "recall": float(np.mean(hits)) if hits else 0.0,
            "by_kind_lang": _recall_table(cls_lang, hits, "kl"),
            "by_class_lang": _recall_table(cls_lang, hits, "cl"),
            "by_voice": _recall_table(truth, hits, "voice"),
            "by_engine_lang": recall_by_engine(truth, hits),
            "latency_median_s": float(np.median(sc["latencies"])) if sc["latencies"] else None,
            "latency_p90_s": float(np.percentile(sc["latencies"], 90)) if sc["latencies"] else None,
            "time_error_median_s": float(np.median(np.array(sc["latencies"]) - off)) if sc["latencies"] else None,
            "extra_fires": sc["extra_fires"], "words": len(truth),
        }
    if accent_bank is not None and accent_bank.is_file():
        report["unheard_speakers"] = unheard_speakers(det, load_banks(accent_bank), banks)
    if pico_bank is not None and pico_bank.is_file():
        report["unheard_pico"] = unheard_speakers(det, load_banks(pico_bank), banks)
    # false alarms on continuous other speech (10 dB babble) and on real digits
    sents = banks.sentences[:fa_limit] if fa_limit else banks.sentences
    audio = other_stream(sents, 10.0, seed=8)
    hours = len(audio) / RATE / 3600
    t_o, p_o, _ = posteriors(det, audio)
    fires = _fires(det, t_o, p_o)
    report["other_speech"] = {"hours": hours, "false_alarms": len(fires), "fa_per_hour": len(fires) / hours,
                              "by_class": dict(_count(CLASSES[c] for _, c, _ in fires))}
    dig = None
    if not real_digits:
        report["real_digits"] = {"skipped": "not asked for"}
    elif DIGITS.is_dir():
        daudio, names = digits_stream(DIGITS, digits_limit)
        dh = len(daudio) / RATE / 3600
        t_d, p_d, _ = posteriors(det, daudio)
        dfires = _fires(det, t_d, p_d)
        report["real_digits"] = {"files": len(names), "hours": dh, "false_alarms": len(dfires),
                                 "fa_per_hour": len(dfires) / dh, "by_class": dict(_count(CLASSES[c] for _, c, _
                                                                                           in dfires))}
        dig = (t_d, p_d, dh)
    else:
        report["real_digits"] = {"skipped": f"{DIGITS.resolve()} is absent"}
    if png is not None and "10dB" in cache:
        report["det_png"] = str(det_curve(cache["10dB"], (t_o, p_o, hours), dig, det, png))
    return report


def _fires(det: KeywordDetector, times: np.ndarray, posts: np.ndarray) -> list[tuple[float, int, float]]:
    """The detector's own firing rule replayed on recorded posteriors."""
    return replay_posteriors(times, posts, det.thresholds, det.release, det.smooth, det.persist)


def unheard_speakers(det: KeywordDetector, accent: Banks, test: Banks) -> dict[str, Any]:
    """Recall on held-out speakers of other languages (clean and in 10 dB babble of the held-out English and
    Russian voices) and their false alarms per hour on their own talk (10 dB)."""
    out: dict[str, Any] = {"voices": sorted({u.voice for u in accent.keywords})}
    mixed = Banks(keywords=accent.keywords, negatives=accent.negatives, sentences=test.sentences)
    for name, snr in (("clean", None), ("10dB", 10.0)):
        audio, truth = keyword_stream(mixed, snr, seed=9)
        times, posts, _ = posteriors(det, audio)
        sc = score_keywords(_fires(det, times, posts), truth)
        hits = sc["hits"]
        out[name] = {"recall": float(np.mean(hits)) if hits else 0.0, "words": len(truth),
                     "by_class": _recall_table(truth, hits, "cls"), "by_voice": _recall_table(truth, hits, "voice")}
    audio = other_stream(accent.sentences, 10.0, seed=10)
    hours = len(audio) / RATE / 3600
    t_o, p_o, _ = posteriors(det, audio)
    fires = _fires(det, t_o, p_o)
    out["talk"] = {"hours": hours, "false_alarms": len(fires), "fa_per_hour": len(fires) / hours if hours else 0.0}
    return out


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for i in items:
        out[i] += 1
    return out


def det_curve(kw: tuple[np.ndarray, np.ndarray, Any], other: tuple[np.ndarray, np.ndarray, float],
              digits: tuple[np.ndarray, np.ndarray, float] | None, det: KeywordDetector, png: Path) -> Path:
    """Miss rate against false alarms per hour over a sweep of thresholds, written as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    thrs = np.concatenate([np.linspace(0.3, 0.9, 13), np.linspace(0.92, 0.995, 8)])
    miss, fa, fa_d = [], [], []
    rule = {"release": det.release, "smooth": det.smooth, "persist": det.persist}
    for th in thrs:
        # the model's rule with every class threshold moved by the same amount (its per-class offsets kept)
        tv = np.clip(det.thresholds + (th - det.threshold), 0.01, 0.999)
        sc = score_keywords(replay_posteriors(kw[0], kw[1], tv, **rule), kw[2])
        miss.append(1 - float(np.mean(sc["hits"])))
        fa.append(len(replay_posteriors(other[0], other[1], tv, **rule)) / other[2])
        if digits:
            fa_d.append(len(replay_posteriors(digits[0], digits[1], tv, **rule)) / digits[2])
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(np.maximum(fa, 0.1), np.maximum(miss, 1e-3), "o-", label="held-out TTS, babble 10 dB")
    if digits:
        ax.plot(np.maximum(fa_d, 0.1), np.maximum(miss, 1e-3), "s--", label="FA on real spoken digits")
    i = int(np.argmin(np.abs(thrs - det.threshold)))
    ax.annotate(f"threshold {det.threshold:g}", (max(fa[i], 0.1), max(miss[i], 1e-3)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("false alarms per hour (floored at 0.1)")
    ax.set_ylabel("miss rate (all keywords)")
    ax.set_title("Keyword spotter DET curve")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
    return png


def format_report(r: dict[str, Any]) -> str:
    """A human-readable summary of `evaluate`'s report."""
    extra = (f", per class {r['class_thresholds']}" if r.get("class_thresholds") else "") + \
        f", smoothing {r.get('smooth', 3)} hops, persist {r.get('persist', 1)} hop(s)"
    lines = [f"threshold {r['threshold']}{extra}, hop {r['hop_s']:.2f} s"]
    for name, s in r["snr"].items():
        kinds = "  ".join(f"{k} {v['recall']:.1%} (n={v['n']})" for k, v in s["by_kind_lang"].items())
        lat = s["latency_median_s"]
        lines.append(f"[{name:>5}] recall {s['recall']:.1%}  {kinds}  latency median "
                     f"{lat * 1000 if lat is not None else float('nan'):.0f} ms  extra fires {s['extra_fires']}")
    key = "10dB" if "10dB" in r["snr"] else next(iter(r["snr"]), None)
    if key:
        lines.append(f"recall per voice at {key} (worst 8):")
        worst = sorted(r["snr"][key]["by_voice"].items(), key=lambda kv: kv[1]["recall"])[:8]
        lines += [f"    {v:<40} {d['recall']:.1%} (n={d['n']})" for v, d in worst]
        lines.append(f"recall per class at {key}: " + "  ".join(
            f"{k} {v['recall']:.0%}" for k, v in r["snr"][key]["by_class_lang"].items()))
        lines += _engine_lines(r["snr"])
    o = r["other_speech"]
    lines.append(f"other speech (10 dB babble): {o['false_alarms']} false alarms in {o['hours']:.2f} h = "
                 f"{o['fa_per_hour']:.2f}/h {o['by_class']}")
    d = r["real_digits"]
    if "skipped" in d:
        lines.append(f"real spoken digits: skipped ({d['skipped']})")
    else:
        lines.append(f"real spoken digits ({d['files']} files, {d['hours']:.2f} h): {d['false_alarms']} false alarms"
                     f" = {d['fa_per_hour']:.2f}/h {d['by_class']}")
    for key, title in (("unheard_speakers", "unheard speakers of other languages"),
                       ("unheard_pico", "unheard real speakers (SVOX Pico)")):
        a = r.get(key)
        if a:
            lines.append(f"{title} ({', '.join(a['voices'])}): recall clean "
                         f"{a['clean']['recall']:.1%}, 10 dB {a['10dB']['recall']:.1%} ("
                         + "  ".join(f"{k} {v['recall']:.0%}" for k, v in a["10dB"]["by_class"].items())
                         + f"); their talk: {a['talk']['false_alarms']} false alarms in {a['talk']['hours']:.2f} h")
    if "det_png" in r:
        lines.append(f"DET curve: {r['det_png']}")
    return "\n".join(lines)


def _engine_lines(snr: dict[str, Any]) -> list[str]:
    """Recall per synthesiser and language across the noise levels (reports before stop 53 have no such table)."""
    names = [n for n, s in snr.items() if "by_engine_lang" in s]
    if not names:
        return []
    kinds = sorted({k for n in names for k in snr[n]["by_engine_lang"]})
    out = [f"recall per synthesiser ({' / '.join(names)}):"]
    for k in kinds:
        cells = [snr[n]["by_engine_lang"].get(k) for n in names]
        count = max((c["n"] for c in cells if c), default=0)
        out.append(f"    {k:<14} " + " / ".join(f"{c['recall']:.1%}" if c else "-" for c in cells) + f" (n={count})")
    return out


def save_report(r: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")
