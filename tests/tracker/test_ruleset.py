"""Rulesets as TOML files of knobs: the four built-ins, a tournament's own variant, and clear errors."""

from pathlib import Path

import pytest

from tracker.engine import replay
from tracker.ruleset import RULESET_NAMES, RulesetError, load_ruleset
from tracker.script import script


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_builtin_rulesets_load_and_cite_their_own_clauses(name: str) -> None:
    r = load_ruleset(name)
    assert r.name == name
    prefix = {"chempiunat": "CH-", "falsonal": "FA-", "mattel": "MA-", "olympic": "OL-"}[name]
    assert r.clauses and all(v.startswith(prefix) for v in r.clauses.values())


def test_the_knobs_that_separate_them() -> None:
    ch, fa, ma, ol = (load_ruleset(n) for n in RULESET_NAMES)
    assert (ch.d2_chain, fa.d2_chain, ma.d2_chain, ol.d2_chain) == (True, False, False, True)
    assert (ch.jump_in, fa.jump_in, ol.jump_in) == ("identical_numbers", "none", "identical_non_wild")
    assert fa.turn_timer_s == 15 and ma.turn_timer_s == 0
    assert ol.scoring == "lowest_wins" and ma.scoring == "winner_takes"
    assert ch.w4_on_w4 == "pass_on" and ol.seven_zero and not ma.seven_zero


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tournament_variant_changes_only_what_it_names(tmp_path: Path) -> None:
    path = _write(tmp_path, 'base = "falsonal"\nname = "club-night"\nturn_timer_s = 30\ntarget = 250\n')
    r = load_ruleset(str(path))
    assert r.name == "club-night" and r.turn_timer_s == 30 and r.target == 250
    assert r.early_uno_penalty == 1 and r.clause("missed_uno") == "FA-UNO"
    result = replay(script(str(path), "H3; T red-5; P0 red-7; +20; P1 red-8"))
    assert result.flags == [] and result.state.target == 250


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('base = "mattel"\nturn_timr_s = 10\n', "unknown knob 'turn_timr_s'"),
        ('jump_in = "sometimes"\n', "jump_in = 'sometimes' is not allowed; choose one of"),
        ('d2_chain = "yes"\n', "d2_chain must be true or false"),
        ('hand_size = 0\n', "hand_size = 0 is out of range"),
        ('hand_size = 7.5\n', "hand_size must be a whole number"),
        ('base = "uno-flip"\n', "base = 'uno-flip' is not a built-in ruleset"),
        ('players_min = 6\nplayers_max = 4\n', "players_min 6 is above players_max 4"),
        ("this is = not toml [", "not valid TOML"),
        ('[clauses]\nmissed_call = "X-1"\n', "'clauses' names unknown flag codes"),
        ('base = "olympic"\nmulti_max = 1\n', "multi_max = 1 allows one card a turn"),
        ('hand_size = 12\n', "10 players x 12 cards is more than a 108-card deck can deal"),
    ],
)
def test_bad_ruleset_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset(str(_write(tmp_path, text)))
    assert message in str(err.value)


def test_unknown_ruleset_name_lists_the_real_ones() -> None:
    with pytest.raises(RulesetError, match="use one of chempiunat, falsonal, mattel, olympic"):
        load_ruleset("uno-attack")


def test_missing_ruleset_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="can't read ruleset file"):
        load_ruleset(str(tmp_path / "nowhere.toml"))
