"""A Harbor task folder as Harbor's documentation describes it, and a check of one.

Harbor (the Terminal-Bench harness) runs a task from a folder::

    instruction.md        what the agent is given, verbatim
    task.toml             configuration ([task], [metadata], [agent], [verifier],
                          [environment], [solution])
    environment/          the agent's container: a Dockerfile and its build context
    tests/test.sh         the verifier, uploaded to /tests after the agent finishes; it
                          writes /logs/verifier/reward.json (a {name: number} map) or
                          /logs/verifier/reward.txt (one number)
    solution/solve.sh     the reference solution, run by Harbor's oracle agent

The models below keep the ``task.toml`` fields m4bench writes, as the documentation names
them (schema 1.4); Harbor itself needs Python 3.12 or later, so m4bench checks its folders
against this schema and, where Harbor is installed, against Harbor's own model too
(``tests/integrations/harbor_check.py``).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA_VERSION = "1.4"
CONFIG_FILE = "task.toml"
INSTRUCTION_FILE = "instruction.md"
ENVIRONMENT_DIR = "environment"
DOCKERFILE = "Dockerfile"
TESTS_DIR = "tests"
TEST_SCRIPT = "test.sh"
SOLUTION_DIR = "solution"
SOLVE_SCRIPT = "solve.sh"
REWARD_FILE = "reward.json"
"""What the verifier writes under ``/logs/verifier``: a ``{name: number}`` map."""


class _Table(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HarborAuthor(_Table):
    name: str
    email: str | None = None


class HarborTaskInfo(_Table):
    name: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
    """``org/name``."""
    description: str = ""
    authors: list[HarborAuthor] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class HarborAgent(_Table):
    timeout_sec: float | None = Field(default=None, gt=0)


class HarborVerifier(_Table):
    timeout_sec: float = Field(default=600.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)


class HarborEnvironment(_Table):
    build_timeout_sec: float = Field(default=600.0, gt=0)
    cpus: int | None = Field(default=None, gt=0)
    memory_mb: int | None = Field(default=None, gt=0)
    storage_mb: int | None = Field(default=None, gt=0)
    workdir: str | None = None
    skills_dir: str | None = None
    """A folder of the environment whose skills Harbor copies to the agent's skills folder."""


class HarborSolution(_Table):
    env: dict[str, str] = Field(default_factory=dict)


class HarborTaskConfig(_Table):
    """One ``task.toml``."""

    schema_version: str = SCHEMA_VERSION
    task: HarborTaskInfo
    metadata: dict[str, Any] = Field(default_factory=dict)
    agent: HarborAgent = Field(default_factory=HarborAgent)
    verifier: HarborVerifier = Field(default_factory=HarborVerifier)
    environment: HarborEnvironment = Field(default_factory=HarborEnvironment)
    solution: HarborSolution = Field(default_factory=HarborSolution)


def folder_problems(folder: Path) -> list[str]:
    """What keeps ``folder`` from being a Harbor task folder as documented (empty: none)."""
    problems: list[str] = []
    instruction = folder / INSTRUCTION_FILE
    if not instruction.is_file() or not instruction.read_text(encoding="utf-8").strip():
        problems.append(f"{INSTRUCTION_FILE} is missing or empty")
    problems += _config_problems(folder / CONFIG_FILE)
    if not (folder / ENVIRONMENT_DIR / DOCKERFILE).is_file():
        problems.append(f"{ENVIRONMENT_DIR}/{DOCKERFILE} is missing")
    for script in (Path(TESTS_DIR) / TEST_SCRIPT, Path(SOLUTION_DIR) / SOLVE_SCRIPT):
        path = folder / script
        if not path.is_file() or not os.access(path, os.X_OK):
            problems.append(f"{script} is missing or not executable")
        elif not path.read_text(encoding="utf-8").startswith("#!"):
            problems.append(f"{script} has no #! line")
    return problems


def _config_problems(path: Path) -> list[str]:
    try:
        HarborTaskConfig.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return [f"{CONFIG_FILE} is missing"]
    except tomllib.TOMLDecodeError as exc:
        return [f"{CONFIG_FILE} is not TOML: {exc}"]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return [f"{CONFIG_FILE}: {where}: {first['msg']}"]
    return []
