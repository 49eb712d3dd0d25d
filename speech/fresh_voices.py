"""Fresh espeak-ng speakers, made here: variant files that are in neither the training voices nor the test's.

Why: the firing rule and the choice between candidate models were made on validation streams spoken by *training*
voices, and those streams favour whatever has learnt those voices. In stop 45 two candidates won on them and lost on
held-out and real voices (more false alarms). A validation is only a guide if its speakers are new to the model, and
every installed voice is already in training or in the test. espeak-ng's variants are text files (pitch, formant
frequencies, heights and widths, breathiness, flutter, roughness), so new speakers can be written: each fresh variant
starts from a *training* variant (never a held-out one, so nothing of the test's voices leaks into the choice) and
moves its vocal tract as a whole (every formant by one factor, 0.84-1.2, as between a man, a woman and a child), each
formant a little more, its pitch, and its voice quality. They live in a copy of espeak-ng's data folder, passed to
espeak-ng with `--path` (`speech.synth.Voice.data`); the installed data is never touched.

    from speech.fresh_voices import fresh_voices, render_fresh_bank
    voices = fresh_voices(Path("data/speech/fresh"), n=16, seed=4650)   # {"en": [...], "ru": [...]}
    bank = render_fresh_bank(Path("data/speech/fresh"), 16, 40, 3, 250, seed=4650)   # the stop-45 dev bank

What was measured with them (stop 45, `models/KWS_MODEL_CARD.md`): the shipped model finds far fewer keywords said by
fresh speakers than by training voices (72.8% against 85.0% at 10 dB), so they do test new speakers; but they did not
rank candidates' false alarms as the held-out test did, so they are one more guide, not a stand-in for the test.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from speech.kwsdata import Banks, bank_jobs, render_banks
from speech.synth import ESPEAK_LANG_VOICES, SynthError, Voice, available_engines, espeak_variants
from speech.vocab import NEGATIVE_WORDS, held_out_variants

#: the whole vocal tract's scale, and each formant's own extra move (factors)
TRACT_SCALE = (0.84, 1.2)
FORMANT_JITTER = (0.95, 1.05)
HEIGHT_JITTER = (0.8, 1.2)
#: pitch: the variant's base and range (Hz) scaled by one factor, kept within a human voice
PITCH_SCALE = (0.75, 1.45)
PITCH_HZ = (55, 330)


def espeak_data_dir() -> Path:
    """The installed espeak-ng data folder, as espeak-ng itself reports it ("Data at: ..." in `--version`)."""
    out = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"Data at:\s*(\S+)", out)
    if not found or not (Path(found.group(1)) / "voices" / "!v").is_dir():
        raise SynthError("espeak-ng's data folder (voices/!v) was not found: install Debian's espeak-ng")
    return Path(found.group(1))


def perturb_variant(text: str, name: str, rng: np.random.Generator) -> str:
    """A new variant file from an existing one's text: its name replaced, its formants, pitch and voice quality
    moved (see the module's docstring); lines it does not know are kept as they are."""
    scale = rng.uniform(*TRACT_SCALE)
    out, seen = [], set()
    for line in text.splitlines():
        parts = line.split()
        key = parts[0] if parts else ""
        if key == "name":
            out.append(f"name {name}")
        elif key == "pitch" and len(parts) >= 3:
            f = rng.uniform(*PITCH_SCALE)
            lo = int(np.clip(float(parts[1]) * f, *PITCH_HZ))
            hi = int(np.clip(float(parts[2]) * f, lo + 20, PITCH_HZ[1] + 80))
            out.append(f"pitch {lo} {hi}")
        elif key == "formant" and len(parts) >= 5 and parts[1].isdigit():
            k, freq, height, width = int(parts[1]), float(parts[2]), float(parts[3]), float(parts[4])
            if 1 <= k <= 5:
                freq *= scale * rng.uniform(*FORMANT_JITTER)
                height *= rng.uniform(*HEIGHT_JITTER)
            out.append(f"formant {k} {int(round(freq))} {int(round(height))} {int(round(width))}")
        elif key in ("breath", "breathw", "flutter", "roughness"):
            continue  # set below, freshly
        else:
            out.append(line)
        seen.add(key)
    if "name" not in seen:
        out.insert(0, f"name {name}")
    if "pitch" not in seen:
        lo = int(rng.uniform(70, 200))
        out.append(f"pitch {lo} {lo + int(rng.uniform(30, 120))}")
    if rng.random() < 0.35:
        out.append("breath " + " ".join(str(int(rng.uniform(0, 60))) for _ in range(4)))
    out.append(f"flutter {int(rng.uniform(0, 25))}")
    if rng.random() < 0.25:
        out.append(f"roughness {int(rng.uniform(0, 6))}")
    return "\n".join(out) + "\n"


def write_fresh_variants(root: Path, n: int, seed: int) -> list[str]:
    """Copy espeak-ng's data under `root` (once) and write `n` fresh variants into it; returns their names."""
    src = espeak_data_dir()
    data = root / "espeak-ng-data"
    if not data.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, data)
    # the training variants, exactly as speech.vocab.split_voices splits them
    held = held_out_variants()
    bases = [b for v in espeak_variants() if v not in held and (b := src / "voices" / "!v" / v).is_file()]
    if not bases:
        raise SynthError(f"no training variants found in {src / 'voices' / '!v'}")
    rng = np.random.default_rng(seed)
    names = []
    for i in range(n):
        base = bases[int(rng.integers(len(bases)))]
        name = f"fresh{seed}_{i:02d}"
        if name in espeak_variants():
            raise SynthError(f"a fresh variant may not take an installed variant's name: {name}")
        text = base.read_text(encoding="utf-8", errors="replace")
        (data / "voices" / "!v" / name).write_text(perturb_variant(text, name, rng), encoding="utf-8")
        names.append(name)
    return names


def fresh_voices(root: Path, n: int, seed: int) -> dict[str, list[Voice]]:
    """{"en": [...], "ru": [...]}: every espeak-ng accent of each language with each of `n` fresh variants."""
    if not available_engines()["espeak"]:
        raise SynthError("espeak-ng is not installed (Debian package espeak-ng)")
    names = write_fresh_variants(root, n, seed)
    return {lang: [Voice("espeak", base, lang, var, data=str(root)) for base in ESPEAK_LANG_VOICES[lang]
                   for var in names] for lang in ("en", "ru")}


def render_fresh_bank(root: Path, n_variants: int, n_kw: int, n_neg: int, n_sent: int, seed: int,
                      neg_words: Mapping[str, Sequence[str]] | None = None, workers: int = 2) -> Banks:
    """A bank (keywords, near misses, table talk) spoken only by `n_variants` fresh variants of seed `seed`, laid
    out like the validation and test banks (`speech.kwsdata.bank_jobs`); its voices' folder is `root`."""
    voices = fresh_voices(root, n_variants, seed)
    words = NEGATIVE_WORDS if neg_words is None else neg_words
    return render_banks(bank_jobs(voices, n_kw, words, n_neg, n_sent, np.random.default_rng(seed + 1)), workers)
