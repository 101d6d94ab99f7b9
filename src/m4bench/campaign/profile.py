"""Campaign profiles: a matrix of runs described as a TOML data file.

A profile lists blocks; each block crosses tasks (explicit names or a selector) with
conditions, schemas, an agent's models (by role, e.g. ``primary``) and trials. Agent
tables give each agent's provider, model roles and reasoning settings; further tables
set per-task timeouts, concurrency limits per provider, budgets and duration priors.
Shipped profiles live in ``profiles/<name>.toml``; any other path is a user profile.
``replay`` names what ``replay`` runs replay (a file, or a folder of per-task files:
:mod:`m4bench.campaign.replay`), relative to the profile's file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from m4bench.campaign.priors import DurationPriors
from m4bench.campaign.retry import RetryPolicy
from m4bench.campaign.selection import TaskSelector
from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text, toml_syntax_error
from m4bench.results.identity import Condition, SchemaName

PROFILES_DIR = Path(__file__).parent / "profiles"
PROFILE_SUFFIX = ".toml"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


Named = Annotated[str, Field(pattern=r"\S")]
"""A model or reasoning setting: part of a run's identity, so never blank."""


class AgentPlan(_Strict):
    """An agent's provider (for concurrency limits) and its models by role."""

    provider: str = Field(min_length=1)
    models: dict[str, list[Named]] = Field(min_length=1)
    reasoning: list[Named] = Field(default_factory=lambda: ["auto"], min_length=1)

    def role(self, role: str, agent: str) -> list[str]:
        if role not in self.models:
            raise M4BenchError(
                f"agent {agent!r} has no model role {role!r}",
                hint=f"roles defined for {agent}: {', '.join(sorted(self.models))}",
            )
        return self.models[role]


def _native_only() -> list[SchemaName]:
    return ["native"]


class Block(_Strict):
    """One tier of the matrix: tasks x conditions x schemas x models x trials."""

    name: str = Field(min_length=1)
    tasks: list[str] | None = Field(None, min_length=1)
    select: TaskSelector | None = None
    conditions: list[Condition] = Field(min_length=1)
    schemas: list[SchemaName] = Field(default_factory=_native_only, min_length=1)
    models: str | list[Named] = "primary"
    trials: int | None = Field(None, ge=1)
    agents: list[str] | None = Field(None, description="only for these agents")

    @model_validator(mode="after")
    def _one_task_source(self) -> Block:
        if self.tasks is not None and self.select is not None:
            raise ValueError("give either 'tasks' or 'select', not both")
        if self.tasks is not None and len(set(self.tasks)) != len(self.tasks):
            raise ValueError("'tasks' lists a task twice")
        return self


class Timeouts(_Strict):
    default_seconds: float = Field(1800.0, gt=0)
    tasks: dict[str, float] = Field(default_factory=dict)

    def for_task(self, task: str) -> float:
        return self.tasks.get(task, self.default_seconds)


class Concurrency(_Strict):
    jobs: int = Field(4, ge=1, description="runs at once, unless --jobs says otherwise")
    providers: dict[str, int] = Field(default_factory=dict, description="runs at once per provider")
    cpus_per_run: float = Field(1.0, gt=0, description="CPUs a run declares (Ray)")
    memory_mb_per_run: int | None = Field(None, ge=1, description="memory a run declares (Ray)")


class Budget(_Strict):
    """Limits past which no new run starts; each a positive finite number when given."""

    max_tokens: int | None = Field(None, gt=0)
    max_cost_usd: float | None = Field(None, gt=0, allow_inf_nan=False)
    max_wall_seconds: float | None = Field(None, gt=0, allow_inf_nan=False)


class Price(_Strict):
    """US dollars per million tokens; used when a run reports tokens but no cost."""

    input: float = Field(ge=0)
    cached_input: float = Field(0.0, ge=0)
    output: float = Field(ge=0)


class Profile(_Strict):
    format_version: Literal[1] = 1
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str = ""
    default_agent: str
    trials: int = Field(5, ge=1)
    agents: dict[str, AgentPlan] = Field(min_length=1)
    blocks: list[Block] = Field(min_length=1)
    timeouts: Timeouts = Field(default_factory=Timeouts)
    concurrency: Concurrency = Field(default_factory=Concurrency)
    budget: Budget = Field(default_factory=Budget)
    prices: dict[str, Price] = Field(default_factory=dict)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    priors: DurationPriors | None = None
    replay: str | None = Field(
        None,
        min_length=1,
        description="the file, or folder of <task>.sql/.py/.sh files, replay runs replay; "
        "relative to the profile's file",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Profile:
        if self.default_agent not in self.agents:
            raise ValueError(f"default_agent {self.default_agent!r} has no [agents] table")
        names = [block.name for block in self.blocks]
        if len(set(names)) != len(names):
            raise ValueError("two blocks share a name")
        for block in self.blocks:
            for agent in block.agents or []:
                if agent not in self.agents:
                    raise ValueError(f"block {block.name!r} names unknown agent {agent!r}")
        return self


def shipped_profiles() -> list[str]:
    """Names of the profiles shipped with m4bench, sorted."""
    return sorted(path.stem for path in PROFILES_DIR.glob(f"*{PROFILE_SUFFIX}"))


def resolve_profile_path(name_or_path: str) -> Path:
    """A shipped profile by name, else a file path."""
    shipped = PROFILES_DIR / f"{name_or_path}{PROFILE_SUFFIX}"
    if "/" not in name_or_path and shipped.is_file():
        return shipped
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    raise M4BenchError(
        f"no profile {name_or_path!r}: not a shipped profile and not a file",
        hint=f"shipped profiles: {', '.join(shipped_profiles())}; or give a path to a .toml",
    )


def load_profile(name_or_path: str) -> Profile:
    """Load and validate a profile; errors name the file and the offending field."""
    path = resolve_profile_path(name_or_path)
    text = read_user_text(path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(path, exc, text) from exc
    profile = parse_profile(raw, path)
    if profile.replay is None:
        return profile
    anchored = path.resolve().parent / Path(profile.replay).expanduser()
    return profile.model_copy(update={"replay": str(anchored)})


def parse_profile(raw: dict[str, object], path: Path) -> Profile:
    try:
        return Profile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _describe_location(raw, first["loc"])
        raise M4BenchError(
            f"{path}: {where}: {first['msg']}",
            hint="see docs/campaigns.md for the profile format",
        ) from exc


def _describe_location(raw: dict[str, object], loc: tuple[int | str, ...]) -> str:
    """``blocks[2] ('controls').conditions[0]``: the field path, with block names."""
    parts: list[str] = []
    for index, part in enumerate(loc):
        if isinstance(part, int):
            label = f"[{part}]"
            if loc[:index] == ("blocks",):
                blocks = raw.get("blocks")
                if isinstance(blocks, list) and part < len(blocks):
                    block = blocks[part]
                    if isinstance(block, dict) and "name" in block:
                        label += f" ({block['name']!r})"
            parts.append(label)
        else:
            parts.append(f".{part}" if parts else str(part))
    return "field " + ("".join(parts) or "(document)")
