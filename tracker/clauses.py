"""The clause texts flags cite, so that a referee reads the rule itself next to the engine's reason."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def all_clauses() -> dict[str, str]:
    """Every clause id of RULESETS.md with its text."""
    text = resources.files("tracker.rulesets").joinpath("clauses.toml").read_text(encoding="utf-8")
    return {str(k): str(v) for k, v in tomllib.loads(text).items()}


def clause_text(clause_id: str) -> str:
    """The clause's sentence, or an empty string for an id the digest doesn't have (a tournament's own rule)."""
    return all_clauses().get(clause_id, "")
