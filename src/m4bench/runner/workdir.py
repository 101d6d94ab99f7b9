"""Building the agent's working directory, in a run's folder (:mod:`m4bench.results.layout`).

::

    <results>/<run_id>/result.json            the record (written last, atomically;
                                              a complete one is never replaced)
    <results>/<run_id>/attempt-<n>/           one start of the run
        workdir/                              the only writable place the agent sees
            agent.duckdb                      its own copy of the task's catalog
            m4data -> /m4data                 (sandboxed) the read-only Parquet mounts
            instruction.md                    the assembled instruction
            <skills dir of the adapter>/...   the condition's skills
        logs/                                 stdout, stderr, egress log (harness-owned)
        instruction.md, output.csv, trace.jsonl, stderr.log, trajectory.json,
        egress.jsonl, diff.parquet            kept artifacts (redacted where needed)
        attempt-result.json                   this attempt's record, when result.json
                                              keeps an earlier complete one

The record and the logs sit outside the workdir: the sandbox binds only the workdir, so
nothing the agent writes can reach them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from m4bench.agents.base import AgentAdapter, AgentContext
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import agent_mounts, provision_run_database
from m4bench.provision.layout import DATA_DIR, SchemaVariant, task_catalog_paths
from m4bench.results.layout import INSTRUCTION_FILE, RunFolder
from m4bench.results.read import read_result
from m4bench.runner.conditions import SkillFile
from m4bench.sandbox import Mount
from m4bench.sandbox.bwrap import grant_sandbox_read
from m4bench.tasks.skills import write_skill

DATA_IN_SANDBOX = Path("/") / DATA_DIR


@dataclass(frozen=True)
class RunPaths:
    """The directories of one attempt of one run."""

    run_dir: Path
    attempt: int

    @property
    def folder(self) -> RunFolder:
        return RunFolder(self.run_dir)

    @property
    def result(self) -> Path:
        return self.folder.result

    @property
    def attempt_dir(self) -> Path:
        return self.folder.attempt(self.attempt)

    @property
    def workdir(self) -> Path:
        return self.attempt_dir / "workdir"

    @property
    def logs(self) -> Path:
        return self.attempt_dir / "logs"

    def artifact(self, name: str) -> Path:
        return self.attempt_dir / name

    @property
    def attempt_result(self) -> Path:
        return self.folder.attempt_result(self.attempt)


def record_destination(paths: RunPaths) -> Path:
    """Where an attempt's record goes: the run's ``result.json`` when there is none yet
    or it holds an incomplete run (a harness error, an interrupted run); else, a
    complete record (or one that cannot be read, a newer m4bench's, say) stays and the
    attempt keeps its own record in its folder."""
    if not paths.result.exists():
        return paths.result
    try:
        earlier = read_result(paths.result)
    except (M4BenchError, OSError):
        return paths.attempt_result
    return paths.attempt_result if earlier.complete else paths.result


def next_attempt(run_dir: Path) -> RunPaths:
    """Paths of a fresh attempt: one more than the highest attempt already started."""
    started = RunFolder(run_dir).attempt_numbers()
    paths = RunPaths(run_dir, max(started, default=0) + 1)
    paths.workdir.mkdir(parents=True)
    paths.logs.mkdir(parents=True)
    return paths


def check_results_dir(results_dir: Path, home: DataHome) -> Path:
    """The resolved results directory; refuses one inside the data's task material."""
    resolved = results_dir.expanduser().resolve()
    if resolved == home.tasks or home.tasks in resolved.parents:
        raise M4BenchError(
            f"{resolved}: results may not live under {home.tasks}",
            hint="choose a results directory outside the provisioned task material",
        )
    return resolved


def place_database(
    home: DataHome, source: str, schema: SchemaVariant, task: str, workdir: Path, isolated: bool
) -> list[Mount]:
    """Copy the task's catalog into the workdir and return the read-only data mounts.

    Isolated: each allowed Parquet file is mounted under ``/m4data`` and the workdir's
    ``m4data`` is a link there (a bind inside the workdir would be hidden by the
    workdir's own bind). Unisolated: ``m4data`` links to the task's link tree.
    """
    catalog = task_catalog_paths(home, source, schema, task)
    provision_run_database(catalog.root, workdir, link_data=not isolated)
    if not isolated:
        return []
    mounts = []
    for host, relative in agent_mounts(home, source, schema, task):
        inner = DATA_IN_SANDBOX / Path(relative).relative_to(DATA_DIR)
        mounts.append(Mount(host=host, sandbox=inner))
        if os.geteuid() == 0:
            grant_sandbox_read(host)
    (workdir / DATA_DIR).symlink_to(DATA_IN_SANDBOX, target_is_directory=True)
    return mounts


def place_instruction(workdir: Path, text: str) -> Path:
    path = workdir / INSTRUCTION_FILE
    atomic_write_text(path, text)
    return path


def place_skills(
    adapter: AgentAdapter, ctx: AgentContext, workdir: Path, skills: list[SkillFile]
) -> Path:
    """Let the adapter create its control files, then write each skill where it loads them."""
    adapter.prepare(ctx, workdir)
    target = adapter.skills_dir(workdir)
    for skill in skills:
        write_skill(target, skill.folder, skill.text)
    return target
