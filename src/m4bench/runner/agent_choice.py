"""Turning an agent name into an adapter, built-ins included.

Model-driven agents come from the agents registry. ``oracle``, ``replay`` and
``mutant:NAME`` need the task (and for the oracle, what the run's database holds), so
the runner builds them here and hands them to the registry as extra factories.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from m4bench.agents.base import AgentAdapter
from m4bench.agents.registry import AdapterFactory, adapter_names, get_adapter
from m4bench.errors import M4BenchError
from m4bench.provision.mapping import SchemaMapping
from m4bench.results.identity import SchemaName
from m4bench.runner.builtin_agents import (
    MUTANT_PREFIX,
    NO_REPLAY_FILE,
    NO_REPLAY_HINT,
    BuiltinAdapter,
    MutantSource,
    replay_adapter,
)
from m4bench.runner.oracle_plan import oracle_statements
from m4bench.tasks.catalog import Task
from m4bench.tasks.mutants import FIRST_MUTANT, MUTANTS_FILE, task_mutants

BUILTIN_NAMES = ("oracle", "replay")


@dataclass(frozen=True)
class AgentInputs:
    """What the built-in agents need beyond their name."""

    task: Task
    present: Collection[str]
    schema: SchemaName = "native"
    mapping: SchemaMapping | None = None
    replay_file: Path | None = None
    mutants: MutantSource | None = None
    endpoint: str | None = None


def agent_choices() -> str:
    """Every agent name a run accepts, for messages."""
    return ", ".join([*BUILTIN_NAMES, f"{MUTANT_PREFIX}NAME", *adapter_names()])


def check_agent_name(name: str) -> None:
    """Raise a user error naming the choices when no agent is called ``name``."""
    known = name in BUILTIN_NAMES or name in adapter_names()
    if not known and not (name.startswith(MUTANT_PREFIX) and len(name) > len(MUTANT_PREFIX)):
        raise M4BenchError(f"unknown agent {name!r}", hint=f"choose one of: {agent_choices()}")


def resolve_adapter(name: str, inputs: AgentInputs) -> AgentAdapter:
    """The adapter for ``name``: a built-in, a mutant, or a registered agent."""
    check_agent_name(name)
    extra: dict[str, AdapterFactory] = {}
    if name == "oracle":
        statements = oracle_statements(inputs.task, inputs.present, inputs.schema, inputs.mapping)
        extra["oracle"] = lambda: BuiltinAdapter("oracle", statements=statements)
    elif name == "replay":
        if inputs.replay_file is None:
            raise M4BenchError(NO_REPLAY_FILE, hint=NO_REPLAY_HINT)
        replay_file = inputs.replay_file
        extra["replay"] = lambda: replay_adapter(replay_file, inputs.endpoint)
    elif name.startswith(MUTANT_PREFIX):
        extra[name] = lambda: _mutant(name, inputs)
    return get_adapter(name, extra)


def mutant_sql(name: str, task: Task, mutants: MutantSource | None) -> str:
    """The changed reference query of agent ``mutant:NAME``. ``mutant:first`` is the
    task's first mutant (in its family's mutants.toml order), what the demo runs; any
    other name is asked of ``mutants``."""
    mutant = name[len(MUTANT_PREFIX) :]
    if mutant == FIRST_MUTANT:
        known = task_mutants(task)
        if not known:
            raise M4BenchError(
                f"agent {name}: task {task.name} has no mutant",
                hint=f"mutants are listed in {task.family_dir / MUTANTS_FILE}; "
                "choose a task whose family has one",
            )
        return known[0].sql
    if mutants is None:
        raise M4BenchError(
            f"agent {name}: no mutant source was given to the runner",
            hint="pass RunOptions(mutants=...), e.g. "
            "m4bench.tasks.mutants.catalog_mutant_source(catalog), as `m4bench run` does",
        )
    return mutants(task.name, mutant)


def _mutant(name: str, inputs: AgentInputs) -> AgentAdapter:
    sql = mutant_sql(name, inputs.task, inputs.mutants)
    statements = oracle_statements(
        inputs.task, inputs.present, inputs.schema, inputs.mapping, reference_sql=sql
    )
    return BuiltinAdapter(name, statements=statements)
