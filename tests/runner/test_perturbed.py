"""Runs under the perturbed schemas: the oracle still scores 1.0, the agent sees only
opaque names and the dictionary. Every MIMIC-IV task in the heavy tier; by default the
fixed sample of sweeps.py (one standard and one raw task)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from run_bench import SOURCE, Bench, provision
from sweeps import SWEEP, swept

from m4bench.provision.provisioner import setup

pytestmark = needs_bwrap


@SWEEP
@pytest.mark.parametrize("variant", ["obfuscated", "restructured"])
def test_oracle_scores_one_under_perturbed_schemas(
    bench: Bench, tmp_path: Path, variant: str, every: bool
) -> None:
    tasks = swept([t for t in bench.catalog.tasks if t.card.dataset == "mimic-iv"], every)
    provision(bench, tasks)
    names = [task.name for task in tasks]
    setup(bench.home, SOURCE, names, variant, progress=False)  # type: ignore[arg-type]
    failures = {}
    for task in tasks:
        record = bench.run(
            tmp_path,
            task.name,
            "oracle",
            schema=variant,
            condition="with-skill-rawsql",
            keep_workdir=True,
        )
        if record.status != "ok" or record.reward != 1.0:
            failures[task.name] = (record.status, record.reward, record.error)
            continue
        run_dir = tmp_path / record.run_id
        instruction = (run_dir / record.artifacts["instruction.md"].path).read_text()
        assert "## Schema dictionary" in instruction and "MIMIC" not in instruction
        skill = next((run_dir / "attempt-1" / "workdir").rglob("SKILL.md")).read_text()
        assert "mimiciv_" not in skill.split("```sql", 1)[1]
    assert not failures
