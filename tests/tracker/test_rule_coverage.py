"""Every clause of RULESETS.md that an event log can show is checked by at least one rule case."""

import importlib.util
from pathlib import Path

import pytest

from tracker.clauses import all_clauses
from tracker.script import RuleCase

HERE = Path(__file__).parent
NOT_IN_A_LOG = {
    "FA-CONDUCT": "conduct warnings are the referee's, not the table's",
    "MA-SUGGEST": "suggesting a card is speech the rules engine does not parse",
    "MA-PARTNERS": "a team variant: the log format has no teams",
    "MA-CHALLENGE-UNO": "an elimination variant of the scoring, not played by any of the four rulesets",
}
DRAWMATCH = str(HERE / "data" / "mattel-drawmatch.toml")
VARIANT_CASES = [
    RuleCase("MA-DRAWMATCH", DRAWMATCH, "D0; D0; D0; P0 red-3", why="draw until a playable card comes"),
    RuleCase("MA-DRAWMATCH", "mattel", "D0; D0", ("wrong_draw@0",), why="not in the official rules"),
]


def _cases() -> list[RuleCase]:
    cases = list(VARIANT_CASES)
    for path in sorted(HERE.glob("test_rules_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cases.extend(module.CASES)
    return cases


def test_every_loggable_clause_has_a_case() -> None:
    named = {c.clause for c in _cases()}
    missing = sorted(set(all_clauses()) - named - set(NOT_IN_A_LOG))
    assert missing == []


def test_there_are_at_least_a_hundred_rule_cases_across_all_four_rulesets() -> None:
    cases = _cases()
    assert len(cases) >= 100
    assert {c.ruleset for c in cases} >= {"chempiunat", "falsonal", "mattel", "olympic"}


@pytest.mark.parametrize("case", VARIANT_CASES, ids=lambda c: f"{c.clause}:{c.steps}")
def test_variant_rule(case: RuleCase) -> None:
    assert case.problems() == [], case.why
