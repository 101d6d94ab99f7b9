"""The texts of an exported Harbor task: config, Dockerfile, scripts, plan and scorer zip.

Every text depends only on the task bundle and the m4bench installation, never on the
time or the host, so exporting twice writes the same bytes.

* ``environment/Dockerfile``: a slim Python image with the pinned duckdb and pydantic
  m4bench runs with, the agent's working directory copied to ``/app``. Nothing of the
  task catalog, the ground truth or m4bench itself is in the image;
* ``tests/test.sh``: m4bench's scorer (``tests/m4bench.zip``: the package's Python
  modules) on ``/app/output.csv`` against ``tests/truth.parquet`` under
  ``tests/spec.json``, writing ``/logs/verifier/reward.json``;
* ``solution/solve.sh``: the oracle's statements (``solution/plan.json``) run on the
  agent's database by ``solution/sql_exec.py``, the script the native oracle runs.

The scripts read ``M4BENCH_TESTS_DIR``, ``M4BENCH_SOLUTION_DIR``, ``M4BENCH_WORKDIR``,
``M4BENCH_VERIFIER_LOGS`` and ``M4BENCH_PYTHON`` when set, so they also run outside a
container (Harbor's paths are the defaults).
"""

from __future__ import annotations

import io
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import m4bench
import m4bench.runner.sql_exec as sql_exec_module
from m4bench import __version__
from m4bench.integrations.bundle import DATABASE_FILE, TaskBundle
from m4bench.integrations.harbor_model import (
    HarborAgent,
    HarborEnvironment,
    HarborTaskConfig,
    HarborTaskInfo,
    HarborVerifier,
)

WORKDIR = "/app"
ORG = "m4bench"
BASE_IMAGE = "python:3.11-slim"
IMAGE_PACKAGES = ("duckdb", "pydantic")
"""What the image installs (at m4bench's versions): the agent's and the scorer's needs."""
VERIFIER_TIMEOUT_SEC = 600.0
BUILD_TIMEOUT_SEC = 1800.0
SCORER_ZIP = "m4bench.zip"
SPEC_FILE = "spec.json"
TRUTH_FILE = "truth.parquet"
PLAN_FILE = "plan.json"
SQL_EXEC_FILE = "sql_exec.py"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)

TEST_SH = """#!/usr/bin/env bash
# m4bench verifier: m4bench's scorer on the agent's output.csv; writes the reward Harbor
# reads (reward.json) and the whole score (score.json) to the verifier's logs.
set -u
tests="${{M4BENCH_TESTS_DIR:-/tests}}"
logs="${{M4BENCH_VERIFIER_LOGS:-/logs/verifier}}"
workdir="${{M4BENCH_WORKDIR:-{workdir}}}"
mkdir -p "$logs"
PYTHONPATH="$tests/{zip}" exec "${{M4BENCH_PYTHON:-python3}}" \\
    -m m4bench.integrations.harbor_verifier \\
    --spec "$tests/{spec}" --truth "$tests/{truth}" \\
    --output "$workdir/output.csv" --logs "$logs"
"""

SOLVE_SH = """#!/usr/bin/env bash
# m4bench oracle: the task's reference query (after the derived tables it reads) run on
# the agent's database, writing output.csv in the working directory.
set -euo pipefail
solution="${{M4BENCH_SOLUTION_DIR:-/solution}}"
cd "${{M4BENCH_WORKDIR:-{workdir}}}"
exec "${{M4BENCH_PYTHON:-python3}}" "$solution/{sql_exec}" "$solution/{plan}"
"""


def verifier_script() -> str:
    return TEST_SH.format(workdir=WORKDIR, zip=SCORER_ZIP, spec=SPEC_FILE, truth=TRUTH_FILE)


def solve_script() -> str:
    return SOLVE_SH.format(workdir=WORKDIR, sql_exec=SQL_EXEC_FILE, plan=PLAN_FILE)


def sql_exec_script() -> str:
    return Path(sql_exec_module.__file__).read_text(encoding="utf-8")


def dockerfile() -> str:
    pins = " ".join(f"{name}=={version(name)}" for name in IMAGE_PACKAGES)
    return (
        f"# The agent's container: Python with duckdb, and the task's working directory\n"
        f"# (its database, the Parquet files it reads, the instruction and skills).\n"
        f"FROM {BASE_IMAGE}\n"
        f"RUN pip install --no-cache-dir {pins}\n"
        f"WORKDIR {WORKDIR}\n"
        f"COPY workdir/ {WORKDIR}/\n"
        f"# readable by any user; the agent may write its database and new files\n"
        f"RUN chmod -R a+rX {WORKDIR} && chmod a+w {WORKDIR} {WORKDIR}/{DATABASE_FILE}\n"
    )


def plan(statements: list[str]) -> dict[str, object]:
    """The oracle plan ``sql_exec.py`` runs."""
    return {"database": DATABASE_FILE, "statements": statements}


def folder_name(bundle: TaskBundle) -> str:
    """``<task>.<condition>``, plus ``.<schema>`` for a perturbed schema."""
    name = f"{bundle.task.name}.{bundle.condition}"
    return name if bundle.schema_name == "native" else f"{name}.{bundle.schema_name}"


def task_config(bundle: TaskBundle) -> HarborTaskConfig:
    card = bundle.task.card.metadata
    return HarborTaskConfig(
        task=HarborTaskInfo(
            name=f"{ORG}/{folder_name(bundle)}",
            description=" ".join(card.description.split()),
            keywords=["m4bench", card.database, card.family, card.mode, bundle.condition],
        ),
        metadata={
            "m4bench": {
                "task": bundle.task.name,
                "family": card.family,
                "dataset": card.database,
                "mode": card.mode,
                "condition": bundle.condition,
                "schema": bundle.schema_name,
                "source": bundle.source,
                "truth_sha256": bundle.truth_sha256 or "",
                "skills": [skill.folder for skill in bundle.skills],
                "m4bench_version": __version__,
            }
        },
        agent=HarborAgent(timeout_sec=bundle.timeout_seconds),
        verifier=HarborVerifier(timeout_sec=VERIFIER_TIMEOUT_SEC),
        environment=HarborEnvironment(
            build_timeout_sec=BUILD_TIMEOUT_SEC,
            workdir=WORKDIR,
            skills_dir=f"{WORKDIR}/skills" if bundle.skills else None,
        ),
    )


def config_document(bundle: TaskBundle) -> dict[str, Any]:
    """``task.toml`` as a TOML document: TOML has no null, and empty tables say nothing."""
    document = _pruned(task_config(bundle).model_dump(mode="json", exclude_none=True))
    assert isinstance(document, dict)
    return document


def _pruned(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {key: _pruned(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in ({}, [])}
    return value


def scorer_zip() -> bytes:
    """Every Python module of the installed m4bench package, as a zip Python imports
    from (``PYTHONPATH=m4bench.zip``): sorted, with fixed times, so equal code gives equal
    bytes. Data files (the task catalog, synthetic tables) are left out."""
    root = Path(m4bench.__file__).parent
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            name = (Path("m4bench") / path.relative_to(root)).as_posix()
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()
