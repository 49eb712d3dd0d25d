"""Offline speech synthesis: text + voice -> 16 kHz mono int16.

Why: the keyword model is trained only on speech made here (no downloads), and the demo maker needs table audio
with players calling "UNO" and colours at given times. Every Debian TTS the project found is wrapped behind one
function, `synthesize`, so both the training-data generator and the demo mixer use the same voices.

Engines (all offline; Debian packages, and one PyPI package):
- `espeak-ng` (package espeak-ng): every language voice crossed with every voice variant (`+f3`, `+klatt2`, ...).
- `flite` (package flite): English voices kal, kal16, awb, rms, slt.
- `festival` (packages festival, festvox-kallpc16k, festvox-kdlpc16k, festvox-us-slt-hts, festvox-ru): English kal,
  ked, slt (HTS) and the Russian msu_ru_nsh voice.
- festival's voices of other languages (`ACCENT_VOICES`: Czech, Italian, Finnish, Catalan, Hindi, Marathi, Telugu;
  packages festvox-czech-*, festvox-ita*, festvox-suopuhe-*, festvox-*-nsk, festvox-ca-ona-hts). Each is a real
  speaker recorded for diphone or HTS synthesis, so they add speakers (a woman, a child, older and younger men) where
  English and Russian have a handful; they say the keywords as those speakers would (`speech.accents`).
- SVOX Pico (`pico`; PyPI package ttspico, Apache-2.0, its six voices inside the package): English (en-US,
  en-GB) and the voices of German, Spanish, French and Italian (`PICO_VOICES`), each an HMM voice of a real speaker.
  Kept out of `list_voices` so that every seed renders the banks it always rendered; `speech.pico` uses them.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

import numpy as np

RATE = 16000

#: espeak-ng language voices used for each language; the accents differ in vowels, which matters for "uno".
ESPEAK_LANG_VOICES: dict[str, tuple[str, ...]] = {
    "en": ("en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd", "en-029",
           "en-us-nyc"),
    "ru": ("ru", "ru-lv"),
}
FLITE_VOICES = ("kal", "kal16", "awb", "rms", "slt")
FESTIVAL_VOICES: dict[str, tuple[str, ...]] = {
    "en": ("voice_kal_diphone", "voice_ked_diphone", "voice_cmu_us_slt_arctic_hts"),
    "ru": ("voice_msu_ru_nsh_clunits",),
}

#: festival voices of other languages: voice -> (language, script its text must be written in)
ACCENT_VOICES: dict[str, tuple[str, str]] = {
    "voice_czech_dita": ("cs", "latin"),
    "voice_czech_krb": ("cs", "latin"),
    "voice_czech_machac": ("cs", "latin"),
    "voice_czech_ph": ("cs", "latin"),
    "voice_lp_diphone": ("it", "latin"),
    "voice_pc_diphone": ("it", "latin"),
    "voice_hy_fi_mv_diphone": ("fi", "latin"),
    "voice_suo_fi_lj_diphone": ("fi", "latin"),
    "voice_upc_ca_ona_hts": ("ca", "latin"),
    "voice_hindi_NSK_diphone": ("hi", "deva"),
    "voice_marathi_NSK_diphone": ("mr", "deva"),
    "voice_telugu_NSK_diphone": ("te", "telu"),
}

#: SVOX Pico's voices (the languages its package ships): voice -> the language it speaks
PICO_VOICES: dict[str, str] = {"en-US": "en", "en-GB": "en", "de-DE": "de", "es-ES": "es", "fr-FR": "fr",
                               "it-IT": "it"}

#: festival's voices of these languages read text in a legacy 8-bit encoding (UTF-8 letters come out spelled)
FESTIVAL_TEXT_ENCODING: dict[str, str] = {"cs": "iso-8859-2", "it": "latin-1", "fi": "latin-1", "ca": "latin-1"}

#: the Indic diphone voices carry a recording hiss 20-40 dB below their peak: trim their silence at -22 dB
TRIM_DB: dict[str, float] = {"hi": -22.0, "mr": -22.0, "te": -22.0}


class SynthError(RuntimeError):
    """A TTS engine is missing or failed; the message names the engine and the Debian package to install."""


@dataclass(frozen=True)
class Voice:
    """One synthetic speaker: an engine, its voice name, the language it speaks and (espeak-ng) a variant."""

    engine: str  # "espeak", "flite", "festival" or "pico"
    name: str
    lang: str  # "en" or "ru"
    variant: str = ""
    #: espeak-ng only: a folder holding a copy of espeak-ng-data with extra variants (speech.fresh_voices); "" for
    #: the installed data
    data: str = ""

    @property
    def id(self) -> str:
        """Stable id used to split voices between training and the held-out test corpus."""
        v = f"+{self.variant}" if self.variant else ""
        return f"{self.engine}:{self.name}{v}"


#: words an engine's voices must be given respelt to say them as players do, keyed by (engine, voice name) where
#: one voice needs its own, else by (engine, language); whole words, any case. Why: every keyword a voice says wrongly
#: teaches the model a word no player says, and a held-out voice tests it on that word.
#: - flite's and festival's English voices read "uno" with their CMU lexicon as /ə'noʊ/ ("a-NO": a schwa, the stress
#:   on "no", `flite -ps` "ax n ow"), not the /'u:noʊ/ that espeak-ng and every player say; "oono" gives /'u:noʊ/
#:   ("uw n ow") (stop 54). Other languages' voices read "uno" their own way.
#: - SVOX Pico's English voices read "uno" /'ju:noU/ ("you-no", the near miss "you know": its "uno" lies nearer its
#:   own "you know" than anything else it says, stop 56). No spelling gives /'u:noU/ reliably, so they get the sounds
#:   in Pico's phoneme markup (X-SAMPA, each locale's own vowel).
RESPELL: dict[tuple[str, str], dict[str, str]] = {
    ("flite", "en"): {"uno": "oono"},
    ("festival", "en"): {"uno": "oono"},
    ("pico", "en-US"): {"uno": '<phoneme alphabet="xsampa" ph="\'u:noU"/>'},
    ("pico", "en-GB"): {"uno": '<phoneme alphabet="xsampa" ph="\'u:n@U"/>'},
}


def engine_text(text: str, voice: Voice) -> str:
    """The text to hand `voice`'s engine so it says the words of `text` as players say them (`RESPELL`)."""
    words = RESPELL.get((voice.engine, voice.name)) or RESPELL.get((voice.engine, voice.lang), {})
    for word, spelling in words.items():
        text = re.sub(rf"\b{word}\b", lambda _m, spelling=spelling: spelling, text, flags=re.IGNORECASE)
    return text


@functools.cache
def espeak_variants() -> tuple[str, ...]:
    """The variant files espeak-ng knows (`espeak-ng --voices=variant`), without ones whose name has a space."""
    if shutil.which("espeak-ng") is None:
        return ()
    out = subprocess.run(["espeak-ng", "--voices=variant"], capture_output=True, text=True, check=False).stdout
    names = []
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5 and parts[4].startswith("!v/"):
            names.append(parts[4][3:])
    return tuple(sorted(set(names)))


@functools.cache
def available_engines() -> dict[str, bool]:
    """Which TTS engines are installed on this machine."""
    fest = shutil.which("text2wave") is not None
    return {"espeak": shutil.which("espeak-ng") is not None, "flite": shutil.which("flite") is not None,
            "festival": fest, "pico": importlib.util.find_spec("ttspico") is not None}


def _festival_voice_installed(name: str) -> bool:
    short = name.removeprefix("voice_")
    for root in ("/usr/share/festival/voices",):
        if os.path.isdir(root):
            for lang in os.listdir(root):
                if os.path.isdir(os.path.join(root, lang, short)):
                    return True
    return False


def list_voices(lang: str | None = None) -> list[Voice]:
    """Every installed voice (espeak-ng language x variant, flite, festival), optionally for one language."""
    eng = available_engines()
    voices: list[Voice] = []
    for lg in ("en", "ru"):
        if lang and lg != lang:
            continue
        if eng["espeak"]:
            for base in ESPEAK_LANG_VOICES[lg]:
                voices.append(Voice("espeak", base, lg))
                for var in espeak_variants():
                    voices.append(Voice("espeak", base, lg, var))
        if eng["flite"] and lg == "en":
            voices += [Voice("flite", v, "en") for v in FLITE_VOICES]
        if eng["festival"]:
            voices += [Voice("festival", v, lg) for v in FESTIVAL_VOICES[lg] if _festival_voice_installed(v)]
    return voices


def accent_voices() -> list[Voice]:
    """The installed festival voices of other languages (`ACCENT_VOICES`); `Voice.lang` is their own language."""
    if not available_engines()["festival"]:
        return []
    return [Voice("festival", v, lang) for v, (lang, _script) in ACCENT_VOICES.items() if _festival_voice_installed(v)]


def _read_wav_bytes(data: bytes) -> tuple[np.ndarray, int]:
    import soundfile as sf

    if not data:
        raise SynthError("the TTS engine produced no audio")
    x, sr = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    return x.mean(axis=1), int(sr)


def resample(x: np.ndarray, sr_in: int, sr_out: int = RATE) -> np.ndarray:
    """Polyphase resampling (scipy) to `sr_out`; float in, float out."""
    if sr_in == sr_out:
        return x.astype(np.float32, copy=False)
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(sr_in, sr_out)
    return resample_poly(x, sr_out // g, sr_in // g).astype(np.float32)


def trim_silence(x: np.ndarray, rel_db: float = -40.0, pad_s: float = 0.02) -> np.ndarray:
    """Cut leading/trailing silence (below `rel_db` of the peak, in 10 ms frames), keeping a short pad."""
    if x.size == 0:
        return x
    f = 160
    n = len(x) // f
    if n == 0:
        return x
    e = np.sqrt(np.mean(x[: n * f].astype(np.float64).reshape(n, f) ** 2, axis=1) + 1e-12)
    thr = e.max() * 10 ** (rel_db / 20)
    idx = np.nonzero(e > thr)[0]
    if idx.size == 0:
        return x[:0]
    pad = int(pad_s * RATE)
    a = max(0, idx[0] * f - pad)
    b = min(len(x), (idx[-1] + 1) * f + pad)
    return x[a:b]


def pico_voices() -> list[Voice]:
    """SVOX Pico's voices (`PICO_VOICES`) when the package ttspico is installed; `Voice.lang` is their language."""
    if not available_engines()["pico"]:
        return []
    return [Voice("pico", name, lang) for name, lang in PICO_VOICES.items()]


@functools.cache
def _pico_engine(name: str) -> object:
    """One Pico engine per voice and process, loaded on first use (a voice is two files to load; engines are not
    shared between the worker processes that render banks)."""
    import ttspico  # optional: the training extra installs it

    try:
        return ttspico.TtsEngine(name)
    except RuntimeError as exc:
        raise SynthError(f"SVOX Pico has no voice {name!r} (package ttspico: {', '.join(PICO_VOICES)})") from exc


def _pico(text: str, voice: Voice, speed: float, pitch: int) -> np.ndarray:
    """Pico's speech at its 16 kHz: `speed` sets its rate (percent), espeak-ng's 0-99 `pitch` maps to Pico's pitch
    scale 70-140% (50 -> 100%), the range where its voices still sound like a person."""
    if not available_engines()["pico"]:
        raise SynthError("SVOX Pico is not installed (PyPI package ttspico, in the training extra)")
    eng = _pico_engine(voice.name)
    eng.rate = int(np.clip(round(100 * speed), 20, 500))  # type: ignore[attr-defined]
    eng.pitch = int(np.clip(round(100 * 2 ** ((pitch - 50) / 100)), 50, 200))  # type: ignore[attr-defined]
    pcm = eng.speak(text)  # type: ignore[attr-defined]
    if not pcm:
        raise SynthError(f"SVOX Pico voice {voice.name} said nothing for {text!r}")
    return np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0


def synthesize_float(text: str, voice: Voice, speed: float = 1.0, pitch: int = 50, trim: bool = True) -> np.ndarray:
    """Speak `text` with `voice`; returns float32 in [-1, 1] at 16 kHz, peak-normalised to 0.5.

    `speed` is a factor (1.0 = the engine's normal rate; festival gets it by resampling, which shifts pitch too);
    `pitch` is espeak-ng's 0-99 scale (other engines ignore it: callers shift pitch by resampling).
    """
    if voice.engine == "espeak":
        if not available_engines()["espeak"]:
            raise SynthError("espeak-ng is not installed (Debian package espeak-ng)")
        v = voice.name + (f"+{voice.variant}" if voice.variant else "")
        path = []
        if voice.data:
            # espeak-ng would fall back to the plain voice without a word: a fresh speaker must not turn into another
            if not os.path.isfile(os.path.join(voice.data, "espeak-ng-data", "voices", "!v", voice.variant)):
                raise SynthError(f"variant {voice.variant!r} is not in {voice.data}/espeak-ng-data/voices/!v "
                                 "(written by speech.fresh_voices)")
            path = [f"--path={voice.data}"]
        cmd = ["espeak-ng", *path, "-v", v, "-s", str(int(175 * speed)), "-p", str(int(pitch)), "--stdout", text]
        res = subprocess.run(cmd, capture_output=True, check=False)
        if res.returncode != 0:
            raise SynthError(f"espeak-ng failed for voice {v}: {res.stderr.decode(errors='replace').strip()}")
        x, sr = _read_wav_bytes(res.stdout)
    elif voice.engine == "pico":
        x, sr = _pico(engine_text(text, voice), voice, speed, pitch), RATE
    elif voice.engine in ("flite", "festival"):
        text = engine_text(text, voice)
        with tempfile.TemporaryDirectory(prefix="unotable-tts-") as tmp:
            out = os.path.join(tmp, "o.wav")
            if voice.engine == "flite":
                if not available_engines()["flite"]:
                    raise SynthError("flite is not installed (Debian package flite)")
                cmd = ["flite", "-voice", voice.name, "--setf", f"duration_stretch={1.0 / speed:.3f}", "-t", text,
                       "-o", out]
                res = subprocess.run(cmd, capture_output=True, check=False)
            else:
                if not available_engines()["festival"]:
                    raise SynthError("festival is not installed (Debian packages festival, festvox-*)")
                cmd = ["text2wave", "-eval", f"({voice.name})", "-o", out]
                enc = FESTIVAL_TEXT_ENCODING.get(voice.lang, "utf-8")
                try:
                    data = text.encode(enc)
                except UnicodeEncodeError as exc:
                    raise SynthError(f"festival voice {voice.name} reads {enc}; cannot write {text!r} in it") from exc
                res = subprocess.run(cmd, input=data, capture_output=True, check=False)
            if res.returncode != 0 or not os.path.exists(out):
                raise SynthError(f"{voice.engine} failed for voice {voice.name}: "
                                 f"{res.stderr.decode(errors='replace').strip()[:300]}")
            with open(out, "rb") as fh:
                x, sr = _read_wav_bytes(fh.read())
    else:
        raise SynthError(f"unknown TTS engine {voice.engine!r}")
    if voice.engine == "festival" and abs(speed - 1.0) > 1e-3:
        sr = int(round(sr * speed))  # festival ignores duration settings from text2wave: speed up by resampling
    x = resample(x, sr, RATE)
    if trim:
        x = trim_silence(x, rel_db=TRIM_DB.get(voice.lang, -40.0))
    peak = float(np.max(np.abs(x))) if x.size else 0.0
    if peak > 0:
        x = x * (0.5 / peak)
    return x.astype(np.float32)


def to_int16(x: np.ndarray) -> np.ndarray:
    """float [-1, 1] -> int16, clipping."""
    return (np.clip(x, -1.0, 1.0) * 32767.0).astype(np.int16)


def synthesize(text: str, voice: Voice, speed: float = 1.0, pitch: int = 50) -> np.ndarray:
    """Speak `text` with `voice`: a 16 kHz mono int16 array (the format every audio source delivers)."""
    return to_int16(synthesize_float(text, voice, speed=speed, pitch=pitch))


def mix_at(track: np.ndarray, clip: np.ndarray, t: float, gain_db: float = 0.0) -> np.ndarray:
    """Add `clip` into `track` (both 16 kHz int16 or float) starting at `t` seconds; returns a new array.

    The demo maker uses this to place calls ("UNO", "красный") at chosen times in a table recording; the track
    grows if the clip runs past its end.
    """
    start = int(round(t * RATE))
    if start < 0:
        raise ValueError(f"mix_at: negative time {t}")
    is_int = track.dtype == np.int16
    base = track.astype(np.float32) / (32767.0 if is_int else 1.0)
    c = clip.astype(np.float32) / (32767.0 if clip.dtype == np.int16 else 1.0)
    c = c * (10 ** (gain_db / 20))
    end = start + len(c)
    if end > len(base):
        base = np.concatenate([base, np.zeros(end - len(base), np.float32)])
    base[start:end] += c
    return to_int16(base) if is_int else base
