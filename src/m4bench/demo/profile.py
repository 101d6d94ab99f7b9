"""The demo's campaign profile, built from the chosen tasks and agents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from m4bench.campaign.profile import Profile, parse_profile
from m4bench.demo.agents import MUTANT, ORACLE, REACT, REPLAY

SMALL_TASKS = ("mimic-sofa-24h", "mimic-charlson-raw", "mimic-kdigo-48h", "eicu-gcs")
"""The small demo: a standard and a raw MIMIC-IV task, a multi-stage task, an eICU task."""

WRONG_ANSWER_TASKS = (
    *SMALL_TASKS,
    "mimic-sofa-24h-raw",
    "mimic-ventilation",
    "mimic-meld-24h",
    "eicu-oasis",
)
"""Tasks the replayed half answer and the mutant run on (the oracle runs on all)."""

REACT_TASKS = ("mimic-sofa-24h", "eicu-gcs")
"""A model-driven agent costs real tokens: it runs on two tasks only."""

CONDITIONS = ["no-skill", "with-skill"]


def demo_profile(tasks: list[str], react_model: str | None = None) -> Profile:
    """Every task by the oracle under no-skill and with-skill, one trial each; the
    replayed half answer and the mutant on a few tasks; ``react`` on two tasks when
    ``react_model`` is given."""
    agents: dict[str, Any] = {
        ORACLE: {"provider": "builtin", "models": {"primary": ["reference"]}},
        REPLAY: {"provider": "builtin", "models": {"primary": ["half-answer"]}},
        MUTANT: {"provider": "builtin", "models": {"primary": ["known-wrong"]}},
    }
    wrong = [t for t in tasks if t in WRONG_ANSWER_TASKS] or tasks[:1]
    blocks: list[dict[str, Any]] = [
        {"name": "oracle", "tasks": tasks, "conditions": CONDITIONS, "agents": [ORACLE]},
        {"name": "wrong-answers", "tasks": wrong, "conditions": CONDITIONS,
         "agents": [REPLAY, MUTANT]},
    ]  # fmt: skip
    if react_model is not None:
        agents[REACT] = {"provider": "endpoint", "models": {"primary": [react_model]}}
        chosen = [t for t in REACT_TASKS if t in tasks] or tasks[:1]
        blocks.append(
            {"name": "react", "tasks": chosen, "conditions": CONDITIONS, "agents": [REACT]}
        )
    raw: dict[str, Any] = {
        "format_version": 1,
        "name": "demo",
        "description": "The end-to-end demo: built-in agents on synthetic data.",
        "default_agent": ORACLE,
        "trials": 1,
        "agents": agents,
        "blocks": blocks,
        "timeouts": {"default_seconds": 600},
        "concurrency": {"jobs": 2, "providers": {"builtin": 2, "endpoint": 1}},
    }
    return parse_profile(raw, Path("<demo profile>"))


def demo_agents(react: bool) -> tuple[str, ...]:
    return (ORACLE, REPLAY, MUTANT, REACT) if react else (ORACLE, REPLAY, MUTANT)
