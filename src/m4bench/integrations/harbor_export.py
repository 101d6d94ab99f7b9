"""``m4bench export harbor``: one Harbor task folder per task and condition.

::

    <out>/<task>.<condition>[.<schema>]/
        instruction.md                    the instruction a native run gives, plus the skills list
        task.toml                         HarborTaskConfig (m4bench's identity under [metadata])
        environment/Dockerfile            Python + duckdb; COPY workdir/ /app/
        environment/workdir/agent.duckdb  the task's agent catalog
        environment/workdir/m4data/...    the Parquet files it may read (nothing else)
        environment/workdir/instruction.md, skills/<name>/SKILL.md
        tests/test.sh                     m4bench's scorer -> /logs/verifier/reward.json
        tests/truth.parquet, spec.json, m4bench.zip
        solution/solve.sh, plan.json, sql_exec.py    the oracle

The folder is built beside its target and renamed into place, replacing an earlier
export of the same task and condition whole. Data files are hard links to the source's
files where the file system allows (else copies). The agent's container holds only its
working directory: the truth, the scorer and the oracle reach it only as Harbor uploads
``tests/`` (after the agent) and ``solution/`` (for the oracle agent).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from m4bench.fileio import atomic_write_bytes, canonical_json
from m4bench.home import DataHome
from m4bench.integrations import harbor_files as files
from m4bench.integrations.bundle import DATABASE_FILE, TaskBundle, resolve_bundle
from m4bench.integrations.harbor_model import (
    CONFIG_FILE,
    DOCKERFILE,
    ENVIRONMENT_DIR,
    INSTRUCTION_FILE,
    SOLUTION_DIR,
    SOLVE_SCRIPT,
    TEST_SCRIPT,
    TESTS_DIR,
)
from m4bench.sources.defaults import DEFAULT_SOURCES
from m4bench.sources.layout import load_source
from m4bench.tasks.catalog import Catalog, load_catalog

WORKDIR_DIR = "workdir"
DEFAULT_CONDITIONS = ("no-skill", "with-skill")
Progress = Callable[[str], None]


@dataclass(frozen=True)
class ExportRequest:
    """What to export: tasks (empty: the whole catalog), conditions, one schema, and the
    source of each dataset (default: the synthetic ones)."""

    tasks: Sequence[str] = ()
    conditions: Sequence[str] = DEFAULT_CONDITIONS
    schema: str = "native"
    sources: Mapping[str, str] | None = None


def export_harbor(
    home: DataHome,
    out: Path,
    request: ExportRequest,
    catalog: Catalog | None = None,
    progress: Progress | None = None,
) -> list[Path]:
    """Write one Harbor task folder per (task, condition) under ``out``; return them.

    Every bundle is resolved before anything is written, so a task that is not
    provisioned (or a condition it cannot have) stops the export with nothing changed."""
    catalog = catalog or load_catalog()
    names = list(request.tasks) or catalog.names
    sources = {**DEFAULT_SOURCES, **(request.sources or {})}
    bundles = [
        resolve_bundle(
            home,
            name,
            condition,
            request.schema,
            sources[catalog.task(name).card.dataset],
            catalog,
        )
        for name in names
        for condition in request.conditions
    ]
    scorer = files.scorer_zip()
    written = []
    for bundle in bundles:
        written.append(write_task_folder(bundle, out, scorer))
        if progress is not None:
            progress(files.folder_name(bundle))
    return written


def sources_by_dataset(home: DataHome, names: Sequence[str]) -> dict[str, str]:
    """``{dataset: source}`` of the named sources (each source's manifest says its dataset)."""
    return {load_source(home, name).manifest.dataset: name for name in names}


def write_task_folder(bundle: TaskBundle, out: Path, scorer: bytes) -> Path:
    """Write the bundle's folder under ``out``, replacing an earlier one whole."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / files.folder_name(bundle)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=out))
    try:
        _fill(bundle, staging, scorer)
        _replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _fill(bundle: TaskBundle, folder: Path, scorer: bytes) -> None:
    os.chmod(folder, 0o755)
    _write(folder / INSTRUCTION_FILE, bundle.prompt())
    _write(folder / CONFIG_FILE, tomli_w.dumps(files.config_document(bundle)))
    _environment(bundle, folder / ENVIRONMENT_DIR)
    tests = folder / TESTS_DIR
    _write(tests / TEST_SCRIPT, files.verifier_script(), mode=0o755)
    _write(tests / files.SCORER_ZIP, scorer)
    _write(tests / files.SPEC_FILE, canonical_json(bundle.spec.model_dump(mode="json")))
    _link_or_copy(bundle.truth, tests / files.TRUTH_FILE, mode=0o644)
    solution = folder / SOLUTION_DIR
    _write(solution / SOLVE_SCRIPT, files.solve_script(), mode=0o755)
    _write(solution / files.SQL_EXEC_FILE, files.sql_exec_script())
    _write(solution / files.PLAN_FILE, canonical_json(files.plan(bundle.oracle_statements())))


def _environment(bundle: TaskBundle, environment: Path) -> None:
    _write(environment / DOCKERFILE, files.dockerfile())
    workdir = environment / WORKDIR_DIR
    _link_or_copy(bundle.database, workdir / DATABASE_FILE, mode=0o644)
    for host, relative in bundle.data_files:
        _link_or_copy(host, workdir / relative)
    _write(workdir / INSTRUCTION_FILE, bundle.instruction)
    for relative, text in bundle.skill_files().items():
        _write(workdir / relative, text)


def _write(path: Path, content: str | bytes, mode: int = 0o644) -> None:
    """Write atomically, readable by everyone (a container's agent may not be root)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    atomic_write_bytes(path, data)
    os.chmod(path, mode)


def _link_or_copy(source: Path, target: Path, mode: int | None = None) -> None:
    """A hard link to ``source`` (a copy across file systems, or when ``mode`` must be
    set: a link would change the source's own mode)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    resolved = source.resolve()
    if mode is None:
        try:
            os.link(resolved, target)
            return
        except OSError:
            pass
    shutil.copyfile(resolved, target)
    os.chmod(target, mode if mode is not None else 0o644)


def _replace(staging: Path, target: Path) -> None:
    """Move ``staging`` to ``target``; an earlier ``target`` is removed only after."""
    if not target.exists():
        staging.rename(target)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
    target.rename(retired / target.name)
    staging.rename(target)
    shutil.rmtree(retired, ignore_errors=True)
