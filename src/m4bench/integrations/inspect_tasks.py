"""An Inspect AI task per m4bench task: sample, sandbox, agent and m4bench's scorer.

``m4bench_task(task, condition=..., schema=..., source=...)`` builds the Inspect
``Task`` (the registered ``m4bench/<task>`` tasks call it, see
:mod:`m4bench.integrations.inspect_registry`):

* **sample**: the instruction a native run gives (plus the condition's skills, listed
  in the prompt and placed under ``skills/``), one sample per task and condition;
  ``--epochs N`` gives N trials;
* **sandbox**: the agent's provisioned working directory: its own copy of the task's
  agent catalog (``agent.duckdb``), ``m4data`` linked to the Parquet files the catalog
  may read, ``instruction.md`` and the skills. The ``local`` sandbox runs the tools on
  the host without isolation; such runs are never publishable;
* **solver**: Inspect's ``react`` agent with an ``sql`` tool and ``bash`` (any other
  solver or agent may be given with ``--solver``);
* **scorer**: :func:`m4bench.scoring.score_output` on the ``output.csv`` the agent left
  (a regular file only, never through a link): value = reward, metadata = the
  :class:`~m4bench.integrations.score_summary.ScoreSummary` (per-column match rates,
  key F1, nMAE, strict pass) and the run's identity (:class:`InspectRunIdentity`).
"""

from __future__ import annotations

import base64
import shlex
import tempfile
from pathlib import Path

import anyio
from inspect_ai import Task
from inspect_ai.agent import Agent, AgentPrompt, react
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.tool import bash
from inspect_ai.util import sandbox
from pydantic import BaseModel, ConfigDict

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.integrations.bundle import OUTPUT_FILE, TaskBundle, resolve_bundle
from m4bench.integrations.inspect_tools import sql
from m4bench.integrations.score_summary import IDENTITY_KEY, SUMMARY_KEY, ScoreSummary
from m4bench.provision.layout import DATA_DIR
from m4bench.scoring import score_output
from m4bench.tasks.card import load_card

INSTRUCTION_FILE = "instruction.md"
SANDBOXES = ("local",)
"""The Inspect sandboxes the tasks can run in: the workdir links the host's Parquet files
and the sql tool runs the host's interpreter."""
ISOLATING_SANDBOXES: frozenset[str] = frozenset()
"""Inspect sandboxes m4bench counts as isolating: none yet (``local`` isolates nothing)."""
AGENT_NAME = "inspect-react"
SYSTEM_PROMPT = (
    "You are a data analyst. Your working directory holds the task's DuckDB database "
    "(./agent.duckdb) and the files the task names. Use the sql tool to explore and "
    "query the database and bash to read and write files; run every command from the "
    "working directory. Follow the task instruction exactly; when output.csv is "
    "written, submit a one-line summary."
)


class InspectRunIdentity(BaseModel):
    """What a scored Inspect sample was: m4bench's run identity, minus agent and model
    (the eval log holds those), and where it ran."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    condition: str
    schema_name: str
    source: str
    truth_sha256: str | None
    sandbox: str
    isolated: bool


def m4bench_task(
    task: str,
    condition: str = "no-skill",
    schema: str = "native",
    source: str | None = None,
    home: str | None = None,
    sandbox_type: str = "local",
    agent: Agent | None = None,
) -> Task:
    """The Inspect task of one m4bench task under one condition and schema, on one
    provisioned source (default: the task's synthetic source in ``$M4BENCH_HOME``)."""
    if sandbox_type not in SANDBOXES:
        raise M4BenchError(
            f"sandbox {sandbox_type!r}: the m4bench Inspect tasks provision their working "
            "directory on the host, for Inspect's local sandbox only",
            hint=f"use one of: {', '.join(SANDBOXES)}",
        )
    data_home = DataHome.from_env(Path(home) if home else None)
    bundle = resolve_bundle(data_home, task, condition, schema, source)
    identity = InspectRunIdentity(
        task=bundle.task.name,
        condition=bundle.condition,
        schema_name=bundle.schema_name,
        source=bundle.source,
        truth_sha256=bundle.truth_sha256,
        sandbox=sandbox_type,
        isolated=sandbox_type in ISOLATING_SANDBOXES,
    )
    timeout = int(bundle.timeout_seconds)
    return Task(
        dataset=[bundle_sample(bundle, identity)],
        solver=agent or default_agent(timeout),
        scorer=m4bench_scorer(
            card=str(bundle.task.card_path),
            truth=str(bundle.truth),
            identity=identity.model_dump(),
        ),
        sandbox=sandbox_type,
        time_limit=timeout,
        score_on_error=True,
        metadata=identity.model_dump(),
    )


def bundle_sample(bundle: TaskBundle, identity: InspectRunIdentity) -> Sample:
    """The one sample: the prompt, and the files and link of the agent's workdir."""
    files = {"agent.duckdb": str(bundle.database), INSTRUCTION_FILE: _data_uri(bundle.instruction)}
    files.update({path: _data_uri(text) for path, text in bundle.skill_files().items()})
    data = shlex.quote(str(bundle.catalog_paths.data))
    return Sample(
        id=f"{bundle.task.name}.{bundle.condition}.{bundle.schema_name}",
        input=bundle.prompt(),
        target="",
        metadata=identity.model_dump(),
        files=files,
        setup=f"ln -s {data} {DATA_DIR}\n",
    )


def _data_uri(text: str) -> str:
    """Text as a data URI: Inspect reads a file value that names an existing path as that
    file, so literal contents are passed in a form that can never be taken for a path."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"data:text/plain;base64,{encoded}"


def default_agent(timeout: int) -> Agent:
    """Inspect's ``react`` agent with the ``sql`` and ``bash`` tools."""
    return react(
        prompt=AgentPrompt(instructions=SYSTEM_PROMPT),
        tools=[sql(timeout=timeout), bash(timeout=timeout)],
        attempts=1,
    )


@scorer(metrics=[mean(), stderr()])
def m4bench_scorer(card: str, truth: str, identity: dict[str, object]) -> Scorer:
    """m4bench's scorer on the sandbox's ``output.csv``: the task card's evaluation spec
    (``card``) against the ground truth (``truth``)."""
    spec = load_card(Path(card)).evaluation
    who = InspectRunIdentity.model_validate(identity)

    async def score(state: TaskState, target: Target) -> Score:
        with tempfile.TemporaryDirectory(prefix="m4bench-inspect-") as scratch:
            output = Path(scratch) / OUTPUT_FILE
            data = await _read_output()
            if data is not None:
                output.write_bytes(data)
            result = await anyio.to_thread.run_sync(
                lambda: score_output(spec, truth=Path(truth), output=output)
            )
        summary = ScoreSummary.of(result)
        return Score(
            value=result.reward,
            answer=OUTPUT_FILE if data is not None else None,
            explanation=_explain(summary),
            metadata={IDENTITY_KEY: who.model_dump(), SUMMARY_KEY: summary.model_dump()},
        )

    return score


async def _read_output() -> bytes | None:
    """The agent's ``output.csv`` when it is a regular file (not a link, not a FIFO)."""
    box = sandbox()
    check = await box.exec(["sh", "-c", f"test -f {OUTPUT_FILE} && test ! -L {OUTPUT_FILE}"])
    if not check.success:
        return None
    return await box.read_file(OUTPUT_FILE, text=False)


def _explain(summary: ScoreSummary) -> str:
    if summary.failure is not None:
        return f"output not compared: {summary.failure}"
    rates = ", ".join(f"{column} {rate:.3f}" for column, rate in summary.match_rates.items())
    verdict = "strict pass" if summary.strict_pass else "not a strict pass"
    return f"reward {summary.reward:.3f} ({verdict}); key F1 {summary.key_f1:.3f}; {rates}"
