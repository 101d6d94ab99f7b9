"""Agents built into the harness: ``oracle``, ``replay`` and the ``mutant:NAME`` hook.

They follow the same adapter protocol as model-driven agents and run inside the same
sandbox, so a run by the oracle exercises every part of the harness:

* ``oracle`` writes the task's reference answer (see :mod:`m4bench.runner.oracle_plan`);
  it must score 1.0 on every task and is the harness's self-test.
* ``replay`` runs a user-supplied file: a ``.sql`` file (one query, whose rows become
  ``output.csv``, or statements that write it themselves), a ``.py`` script (run with
  the harness's Python, which has duckdb) or a ``.sh`` script.
* ``mutant:NAME`` runs the oracle plan with a changed reference query, supplied by a
  :data:`MutantSource` the caller passes in (nothing is registered globally).

SQL runs through ``sql_exec.py``, copied into the workdir's ``.harness`` folder, with
one JSON line per statement on stdout: that is the agent's trace.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import sqlglot
from sqlglot import exp

import m4bench
from m4bench.agents.atif import (
    Agent,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
    TrajectoryContext,
    assemble,
    at_offset,
)
from m4bench.agents.base import (
    AgentContext,
    CliAdapter,
    TraceSummary,
    endpoint_of,
    final_metrics,
    read_jsonl,
)
from m4bench.agents.usage import Usage
from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text
from m4bench.runner.oracle_plan import OUTPUT_FILE

HARNESS_DIR = Path(".harness")
EXECUTOR = Path(__file__).with_name("sql_exec.py")
PLAN_FILE = HARNESS_DIR / "plan.json"
MUTANT_PREFIX = "mutant:"
SCRIPT_RUNNERS = {".py": "python", ".sh": "sh"}

# (task name, mutant name) -> the changed reference query
MutantSource = Callable[[str, str], str]

NO_REPLAY_FILE = "agent replay: no file to replay"
NO_REPLAY_HINT = (
    "give it a .sql, .py or .sh file: `m4bench run --replay FILE`; in a campaign, the "
    "profile's `replay` field or `m4bench campaign run --replay PATH` (a file for every "
    "run, or a folder of <task>.sql, <task>.py or <task>.sh files)"
)


def python_runtime_mounts() -> list[tuple[Path, Path]]:
    """The harness interpreter's prefixes (outside /usr), bound at the same paths."""
    dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent}
    return [(d, d) for d in sorted(dirs) if not d.is_relative_to("/usr")]


class BuiltinAdapter(CliAdapter):
    """Runs SQL statements or a script; no model, no endpoint, no credentials."""

    credential_env: tuple[str, ...] = ()
    skills_subdir = ".agent/skills"

    def __init__(
        self,
        name: str,
        statements: list[str] | None = None,
        script: Path | None = None,
        endpoints: tuple[str, ...] = (),
    ):
        if (statements is None) == (script is None):
            raise M4BenchError(f"agent {name}: give either SQL statements or a script")
        self.name = name
        self._statements = statements
        self._script = script
        self._endpoints = endpoints

    def prepare(self, ctx: AgentContext, host_workdir: Path) -> None:
        super().prepare(ctx, host_workdir)
        harness = host_workdir / HARNESS_DIR
        harness.mkdir(parents=True, exist_ok=True)
        if self._statements is not None:
            shutil.copyfile(EXECUTOR, harness / EXECUTOR.name)
            plan = {"database": str(ctx.database or "agent.duckdb"), "statements": self._statements}
            (host_workdir / PLAN_FILE).write_text(json.dumps(plan, indent=1), encoding="utf-8")
        elif self._script is not None:
            shutil.copyfile(self._script, harness / self._script.name)

    def command(self, ctx: AgentContext) -> list[str]:
        if self._script is not None:
            script = str(ctx.workdir / HARNESS_DIR / self._script.name)
            runner = SCRIPT_RUNNERS[self._script.suffix]
            return [sys.executable, script] if runner == "python" else ["sh", script]
        executor = ctx.workdir / HARNESS_DIR / EXECUTOR.name
        return [sys.executable, "-I", str(executor), str(ctx.workdir / PLAN_FILE)]

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        env = self.base_environment(ctx)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]:
        return self._endpoints

    def runtime_mounts(self) -> list[tuple[Path, Path]]:
        return python_runtime_mounts()

    def parse_trace(self, path: Path) -> TraceSummary:
        events, bad = read_jsonl(path)
        summary = TraceSummary(
            agent=self.name, unparsed_lines=bad, usage=Usage(cost_usd=0.0, cost_source="no model")
        )
        for event in events:
            if event.get("type") != "sql":
                continue
            summary.usage.turns += 1
            summary.usage.tool_calls += 1
            if not event.get("ok"):
                summary.errors.append(str(event.get("error")))
        return summary

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        """One step per statement, with no model (``model_name`` unset), timed by the
        run's start plus the statements' durations so far; a script's trace has none."""
        events, _ = read_jsonl(path)
        context = context or TrajectoryContext()
        steps: list[Step] = []
        elapsed = 0.0
        for event in (e for e in events if e.get("type") == "sql"):
            call = ToolCall(
                tool_call_id=f"sql_{event.get('index')}",
                function_name="run_sql",
                arguments={"query": str(event.get("statement", ""))},
            )
            outcome = "ok" if event.get("ok") else f"error: {event.get('error')}"
            result = ObservationResult(source_call_id=call.tool_call_id, content=outcome)
            steps.append(
                Step(
                    step_id=len(steps) + 1,
                    timestamp=at_offset(context, elapsed),
                    source="agent",
                    message="",
                    tool_calls=[call],
                    observation=Observation(results=[result]),
                )
            )
            seconds = event.get("seconds")
            elapsed += float(seconds) if isinstance(seconds, int | float) else 0.0
        return assemble(
            steps,
            agent=Agent(name=self.name, version=m4bench.__version__),
            context=context,
            totals=final_metrics(self.parse_trace(path)),
        )


def replay_adapter(path: Path, endpoint: str | None = None) -> BuiltinAdapter:
    """The ``replay`` agent for a user's ``.sql``, ``.py`` or ``.sh`` file. A script may
    reach ``endpoint`` (its ``host:port`` is allowlisted), e.g. a baseline calling a model."""
    if not path.is_file():
        raise M4BenchError(f"{path}: replay file not found", hint="pass an existing file")
    if path.suffix in SCRIPT_RUNNERS:
        endpoints = (endpoint_of(endpoint),) if endpoint else ()
        return BuiltinAdapter("replay", script=path, endpoints=endpoints)
    if path.suffix != ".sql":
        raise M4BenchError(
            f"{path}: replay needs a .sql, .py or .sh file, got {path.suffix or 'no suffix'}",
            hint="rename the file with the suffix of its language",
        )
    return BuiltinAdapter("replay", statements=replay_statements(path))


def replay_statements(path: Path) -> list[str]:
    """One query becomes ``COPY (query) TO 'output.csv'``; other statements run as given."""
    text = read_user_text(path)
    try:
        parsed = [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
    except sqlglot.errors.ParseError as exc:
        raise M4BenchError(f"{path}: the SQL does not parse: {exc}", hint="fix the query") from exc
    if not parsed:
        raise M4BenchError(f"{path}: no SQL statement", hint="write a query into the file")
    if len(parsed) == 1 and isinstance(parsed[0], exp.Query):
        body = text.strip().rstrip(";").strip()
        return [f"COPY (\n{body}\n) TO '{OUTPUT_FILE}' (FORMAT CSV, HEADER)"]
    return [statement.sql(dialect="duckdb") for statement in parsed]
