"""Helpers shared by the campaign tests: a small user profile written to disk."""

from __future__ import annotations

from pathlib import Path

SMALL_PROFILE = """
format_version = 1
name = "small"
default_agent = "codex"
trials = {trials}

[agents.codex]
provider = "openai"
models = {{ primary = ["model-a", "model-b"] }}

[agents.claude-code]
provider = "anthropic"
models = {{ primary = ["model-c"] }}

[concurrency]
jobs = {jobs}
providers = {{ openai = {openai}, anthropic = 1 }}

[[blocks]]
name = "native"
tasks = ["mimic-alpha", "mimic-beta-raw", "eicu-gamma"]
conditions = ["no-skill", "with-skill"]
models = "primary"
"""


def write_small_profile(directory: Path, trials: int = 2, jobs: int = 4, openai: int = 4) -> Path:
    """3 tasks x 2 conditions x 2 models x ``trials`` runs for codex."""
    path = directory / "small.toml"
    path.write_text(SMALL_PROFILE.format(trials=trials, jobs=jobs, openai=openai), encoding="utf-8")
    return path
