"""Rulesets as data: a TOML file of knobs read by the one engine.

The four rulebooks differ in a few dozen knobs (RULESETS.md, "The knobs that separate them"). A tournament can ship its
own variant as a TOML file: start from a built-in one with `base = "mattel"` and change only what differs. An unknown
knob or a value out of range is an error that names the knob and what it accepts, so a typo can't silently change the
rules a table plays by.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

RULESET_NAMES = ("chempiunat", "falsonal", "mattel", "olympic")
FLAG_CODES = (
    "illegal_card", "out_of_turn", "illegal_jump_in", "illegal_stack", "too_many_cards", "wrong_draw", "missed_uno",
    "early_uno", "illegal_wild_draw4", "failed_challenge", "no_color", "turn_timeout", "bad_starter",
    "count_mismatch", "no_target", "wrong_dealer",
)


class RulesetError(ValueError):
    """A ruleset that can't be loaded: unknown name, unknown knob, bad value."""


# knob -> allowed values (a tuple of choices) or a type with a range
CHOICES: dict[str, tuple[Any, ...]] = {
    "starter": ("number_only", "mattel", "dealer_play"),
    "w4_restriction": ("none", "no_current_color", "no_playable"),
    "w4_on_w4": ("forbid", "pass_on", "sum"),
    "jump_in": ("none", "identical_numbers", "identical_non_wild"),
    "multi_play": ("none", "same_color_actions", "identical"),
    "uno_call_deadline": ("release", "next_turn"),
    "color_deadline": ("as_uno", "release", "next_turn"),
    "scoring": ("winner_takes", "lowest_wins"),
    "restock": ("shuffle", "shuffle_keep_top", "no_shuffle"),
}
RANGES: dict[str, tuple[float, float]] = {
    "hand_size": (1, 20), "target": (1, 100000), "players_min": (2, 10), "players_max": (2, 10),
    "w4_guilty_draw": (0, 20), "w4_wrong_draw": (0, 20), "multi_max": (1, 4), "uno_penalty": (0, 10),
    "early_uno_penalty": (0, 10), "mistake_penalty": (0, 10), "turn_timer_s": (0, 600), "timer_penalty": (0, 10),
    "timer_warnings": (0, 10), "max_penalties_per_turn": (0, 10), "uno_call_lead_s": (0, 60),
    "uno_call_grace_s": (0, 30), "color_grace_s": (0, 30),
}


@dataclass(frozen=True)
class Ruleset:
    """Every knob the engine reads. Defaults are Mattel's official rules; each file overrides what differs."""

    name: str = "mattel"
    title: str = "Mattel official rules"
    hand_size: int = 7
    target: int = 500
    players_min: int = 2
    players_max: int = 10
    starter: str = "mattel"  # how the turned card acts: number_only / mattel / dealer_play
    w4_restriction: str = "no_current_color"
    w4_challenge: bool = True
    w4_guilty_draw: int = 4  # cards the +4 player draws when a challenge finds it guilty
    w4_guilty_loses_turn: bool = False  # OL-W4-CHALLENGE: guilty player misses a turn
    w4_guilty_takes_back: bool = False  # OL-W4-CHALLENGE: the Wild Draw Four goes back into the hand
    w4_wrong_draw: int = 6  # what a wrong challenger draws in all
    w4_on_w4: str = "forbid"  # a +4 laid on a pending +4: forbidden, passed on (not summed), or summed
    d2_chain: bool = False  # Draw Two on Draw Two sums the penalty
    d2_costs_turn: bool = True
    jump_in: str = "none"
    multi_play: str = "none"
    multi_max: int = 1
    seven_zero: bool = False
    uno_call_deadline: str = "next_turn"  # release: say it while laying the card; next_turn: before the next turn
    uno_call_lead_s: float = 5.0  # a call this long before the play still counts for it
    uno_call_grace_s: float = 1.5  # sensing tolerance after the card comes to rest, for "release" deadlines
    uno_penalty: int = 2
    early_uno_penalty: int = 0  # 0: an early call is not punished
    color_must_announce: bool = False
    w4_color_must_announce: bool = False  # CH-W4: a colour must be named with the +4 (not with a plain Wild)
    # when a black card's colour must be named by: as the UNO call (as_uno), on laying it (release: OL-WILD "before
    # releasing"), or before the next turn begins (next_turn: CH-WILD sets no moment)
    color_deadline: str = "as_uno"
    color_grace_s: float = 1.5
    turn_timer_s: float = 0.0  # 0: no timer
    timer_penalty: int = 1
    timer_warnings: int = 1  # timeouts a seat gets as warnings before one costs
    mistake_penalty: int = 0  # OL-PENALTY: any mistake costs this many cards
    max_penalties_per_turn: int = 0  # 0: no limit
    two_player_reverse_skips: bool = True
    dealer_rotates: bool = False  # the deal passes left each hand (CH-ORDER, FA-TABLE, OL-DEALER; Mattel is silent)
    last_card_draw_counts: bool = True  # MA-LAST
    draw_until_playable: bool = False  # MA-DRAWMATCH variant
    restock: str = "shuffle"
    scoring: str = "winner_takes"
    clauses: dict[str, str] = field(default_factory=dict)  # flag code or topic -> clause id cited
    # not a knob: the knobs a house ruleset file set itself (an organiser's `target` beats a rig's match_start)
    file_knobs: frozenset[str] = frozenset()

    def clause(self, code: str, detail: str | None = None) -> str:
        """The clause id a flag of this kind cites under this ruleset: `code.detail` first, when given, then the
        detail's shorter prefixes (`wrong_draw.pending.w4`, `wrong_draw.pending`), then `code`, then the default."""
        parts = detail.split(".") if detail else []
        for k in range(len(parts), 0, -1):
            key = ".".join([code, *parts[:k]])
            if key in self.clauses:
                return self.clauses[key]
        return self.clauses.get(code) or self.clauses.get("default", "")

    @property
    def color_release(self) -> bool:
        """Whether a black card's colour must be named as it is laid (a short grace for the senses), else before
        the next turn begins."""
        if self.color_deadline == "as_uno":
            return self.uno_call_deadline == "release"
        return self.color_deadline == "release"

    def penalty_for(self, code: str) -> int:
        """Penalty cards a flag costs under this ruleset (0: none set)."""
        if code == "missed_uno":
            return self.uno_penalty
        if code == "early_uno":
            return self.early_uno_penalty
        if code == "turn_timeout":
            return self.timer_penalty
        if code == "illegal_wild_draw4":
            return self.w4_guilty_draw
        if code == "failed_challenge":
            return self.w4_wrong_draw
        if code in ("count_mismatch", "wrong_dealer"):
            return 0
        return self.mistake_penalty


KNOBS = {f.name: f for f in fields(Ruleset) if f.name != "file_knobs"}


def _validate(data: dict[str, Any], origin: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "base":
            continue
        if key not in KNOBS:
            raise RulesetError(f"{origin}: unknown knob {key!r}; known knobs: {', '.join(sorted(KNOBS))}")
        default = getattr(Ruleset(), key) if key != "clauses" else {}
        if key == "clauses":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise RulesetError(f"{origin}: 'clauses' must be a table of flag code = clause id")
            unknown = {k for k in value if k.split(".")[0] not in FLAG_CODES and k != "default"}
            if unknown:
                raise RulesetError(f"{origin}: 'clauses' names unknown flag codes {sorted(unknown)}")
        elif key in CHOICES:
            if value not in CHOICES[key]:
                raise RulesetError(f"{origin}: {key} = {value!r} is not allowed; choose one of {list(CHOICES[key])}")
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise RulesetError(f"{origin}: {key} must be true or false, got {value!r}")
        elif isinstance(default, int | float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise RulesetError(f"{origin}: {key} must be a number, got {value!r}")
            if isinstance(default, int) and not isinstance(default, bool) and not float(value).is_integer():
                raise RulesetError(f"{origin}: {key} must be a whole number, got {value!r}")
            low, high = RANGES.get(key, (0, 1e9))
            if not low <= value <= high:
                raise RulesetError(f"{origin}: {key} = {value!r} is out of range {low:g}..{high:g}")
            value = type(default)(value)
        elif isinstance(default, str) and not isinstance(value, str):
            raise RulesetError(f"{origin}: {key} must be text, got {value!r}")
        out[key] = value
    return out


def _read_toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{origin}: not valid TOML ({exc})") from None


def _builtin_data(name: str) -> dict[str, Any]:
    text = resources.files("tracker.rulesets").joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return _read_toml(text, f"built-in ruleset {name!r}")


def _knob_clauses(base: dict[str, Any], knobs: dict[str, Any], clauses: dict[str, str],
                  named_here: set[str]) -> dict[str, str]:
    """The clauses a house ruleset cites: its base's, except where a knob it changed brings in a rule the base's
    clauses don't state (a timer on a Mattel base is FA-TIMER, not "match the top card"; jump-ins on a Falsonal
    base are not FA-NOSTACK's "no jumping in"). The file's own `[clauses]` always win."""
    out = dict(clauses)
    default = Ruleset()

    def changed(knob: str) -> bool:
        return bool(knobs.get(knob, getattr(default, knob)) != base.get(knob, getattr(default, knob)))

    def cite(code: str, clause: str) -> None:
        if code not in named_here:
            out[code] = clause

    def get(knob: str) -> Any:
        return knobs.get(knob, getattr(default, knob))

    if changed("turn_timer_s") and get("turn_timer_s"):
        cite("turn_timeout", "FA-TIMER")
    if changed("early_uno_penalty") and get("early_uno_penalty"):
        cite("early_uno", "FA-EARLY")
    if changed("color_must_announce") and get("color_must_announce"):
        release = get("uno_call_deadline") == "release"
        cite("no_color", "OL-WILD" if release else "FA-ACTION")
    if changed("w4_color_must_announce") and get("w4_color_must_announce") and not get("color_must_announce"):
        cite("no_color", "CH-W4")
    if changed("seven_zero") and get("seven_zero"):
        cite("no_target", "OL-SEVEN")
        cite("missed_uno.receive", "OL-70-UNO")
        cite("too_many_cards.seven_zero", "OL-70-ONE")
    if changed("jump_in") and get("jump_in") != "none":
        cite("illegal_jump_in", "CH-JUMP" if get("jump_in") == "identical_numbers" else "OL-INTERCEPT")
    olympic = get("w4_restriction") == "no_playable"
    if (changed("w4_challenge") or changed("w4_restriction")) and get("w4_challenge"):
        cite("illegal_wild_draw4", "OL-W4" if olympic else "MA-W4")  # the restriction broken
    if changed("w4_challenge") and get("w4_challenge"):
        cite("failed_challenge", "OL-W4-CHALLENGE" if olympic else "MA-CHALLENGE")  # the challenge itself
        cite("count_mismatch.challenge", "OL-W4-CHALLENGE" if olympic else "MA-CHALLENGE")
    return out


_CACHE: dict[Any, Ruleset] = {}  # built-ins by name; files by (resolved path, modification time, size)


def load_ruleset(spec: str | Path | Ruleset, base_dir: str | Path | None = None) -> Ruleset:
    """A ruleset by built-in name (`falsonal`) or from a TOML file path; a file may say `base = "mattel"` (a file
    naming no base changes Mattel's official rules, the defaults, and cites their clauses).

    A relative path is looked up in `base_dir` (the folder of the log naming it: the same log means the same file
    wherever it is replayed), then in the working directory. A file edited since it was read is read again (a
    dashboard runs for a whole tournament).
    """
    if isinstance(spec, Ruleset):
        return spec
    key = str(spec)
    if base_dir is not None and key not in RULESET_NAMES and not Path(key).is_absolute():
        candidate = Path(base_dir) / key
        if candidate.exists():
            key = str(candidate)
    cache_key: Any = key
    if key not in RULESET_NAMES:
        try:
            st = Path(key).stat()
            cache_key = (str(Path(key).resolve()), st.st_mtime_ns, st.st_size)
        except OSError:
            cache_key = None
    if cache_key is not None and cache_key in _CACHE:
        return _CACHE[cache_key]
    if key in RULESET_NAMES:
        data = _builtin_data(key)
        origin = f"built-in ruleset {key!r}"
    else:
        path = Path(key)
        if path.suffix != ".toml" and not path.exists():
            raise RulesetError(
                f"unknown ruleset {key!r}: use one of {', '.join(RULESET_NAMES)} or a path to a .toml ruleset file"
            )
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (a Windows editor's) is not TOML
        except OSError as exc:
            raise RulesetError(f"can't read ruleset file {key!r}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise RulesetError(f"ruleset file {key!r} is not UTF-8 text") from None
        origin = f"ruleset file {key!r}"
        data = _read_toml(text, origin)
        data.setdefault("name", path.stem)
    base_name = data.get("base", None if key in RULESET_NAMES else "mattel")
    merged: dict[str, Any] = {}
    if base_name is not None:
        if base_name not in RULESET_NAMES:
            raise RulesetError(f"{origin}: base = {base_name!r} is not a built-in ruleset ({', '.join(RULESET_NAMES)})")
        merged.update(_validate(_builtin_data(base_name), f"built-in ruleset {base_name!r}"))
    own = _validate(data, origin)
    named_here = set(own.get("clauses", {}))
    if "clauses" in own and "clauses" in merged:
        own["clauses"] = {**merged["clauses"], **own["clauses"]}
    base_knobs = {k: v for k, v in merged.items() if k != "clauses"}
    merged.update(own)
    merged["clauses"] = _knob_clauses(base_knobs, merged, dict(merged.get("clauses", {})), named_here)
    if key not in RULESET_NAMES:
        merged["file_knobs"] = frozenset(k for k in own if k not in ("name", "title", "clauses"))
    ruleset = Ruleset(**merged)
    if ruleset.players_min > ruleset.players_max:
        raise RulesetError(f"{origin}: players_min {ruleset.players_min} is above players_max {ruleset.players_max}")
    if ruleset.multi_play != "none" and ruleset.multi_max < 2:
        raise RulesetError(f"{origin}: multi_play = {ruleset.multi_play!r} lays cards together, but multi_max = "
                           f"{ruleset.multi_max} allows one card a turn; set multi_max to 2 or more, or multi_play "
                           "to 'none'")
    if ruleset.hand_size * ruleset.players_max > 107:
        raise RulesetError(f"{origin}: {ruleset.players_max} players x {ruleset.hand_size} cards is more than a "
                           "108-card deck can deal with a card left to turn; lower hand_size or players_max")
    if cache_key is not None:
        _CACHE[cache_key] = ruleset
    return ruleset
