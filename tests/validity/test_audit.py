"""The audit on the default-size synthetic sources (seed 3): every mutant caught, every
column moved, every scoring bin reached; and the audit failing on blind configurations.

The audit of every task runs in the heavy tier; the default suite audits the fixed sample
of sweeps.py (one task per dataset and mode) with the same checks."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import tomli_w
from sweeps import SWEEP_PARAMS, swept
from typer.testing import CliRunner
from validity_sources import DefaultSources, unserved_gaps

from m4bench.cli import app
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.sources.layout import (
    Source,
    SourceLayout,
    load_source,
    record_table,
    write_parquet,
)
from m4bench.tasks.catalog import CATALOG_ROOT, Catalog, load_catalog
from m4bench.tasks.mutants import task_mutants
from m4bench.validity import AuditReport, audit


@dataclass(frozen=True)
class Audited:
    """The audit reports of the swept tasks of each dataset."""

    every: bool
    names: list[str]
    mimic: AuditReport
    eicu: AuditReport


@pytest.fixture(scope="module", params=SWEEP_PARAMS)
def audited(
    request: pytest.FixtureRequest, default_sources: DefaultSources, catalog: Catalog
) -> Audited:
    every: bool = request.param
    tasks = swept(catalog.tasks, every)
    names = [t.name for t in tasks]

    def of(dataset: str) -> list[str]:
        return [t.name for t in tasks if t.card.dataset == dataset]

    home = default_sources.home
    mimic = audit(default_sources.mimic, of("mimic-iv"), home=home, catalog=catalog)
    eicu = audit(default_sources.eicu, of("eicu"), home=home, catalog=catalog)
    return Audited(every, names, mimic, eicu)


def test_the_audit_passes_for_every_task(audited: Audited, catalog: Catalog) -> None:
    mimic_report, eicu_report = audited.mimic, audited.eicu
    assert mimic_report.failures() == [] and eicu_report.failures() == []
    tasks = [t for r in (mimic_report, eicu_report) for t in r.tasks]
    assert sorted(t.task for t in tasks) == audited.names
    if audited.every:
        assert audited.names == catalog.names and len(tasks) == 28
    for t in tasks:
        assert t.reference_reward == 1.0, t.task
        assert t.mutants and all(m.reward is not None and m.reward < 1.0 for m in t.mutants)
        moved = {c for m in t.mutants for c in m.moved_columns} | set(t.exempt_columns)
        assert moved >= set(t.scored_columns), t.task
    assert mimic_report.passed and eicu_report.passed


def test_mutants_move_the_columns_they_claim(audited: Audited, catalog: Catalog) -> None:
    for t in audited.mimic.tasks + audited.eicu.tasks:
        claims = {m.name: m.spec.moves for m in task_mutants(catalog.task(t.task))}
        for m in t.mutants:
            assert set(claims[m.name]) <= set(m.moved_columns), (t.task, m.name)


def test_every_bin_is_reached_and_the_unengineered_ones_by_many_rows(
    audited: Audited, catalog: Catalog
) -> None:
    mimic_report, eicu_report = audited.mimic, audited.eicu
    bins = mimic_report.coverage + eicu_report.coverage
    families = {catalog.task(name).family for name in audited.names}
    assert {b.family for b in bins} == families
    assert not audited.every or families == set(catalog.families)
    assert all(b.error is None for b in bins)
    assert [f"{b.family}/{b.name}" for b in bins if not b.reached] == []
    # a bin left to chance is common, so another seed reaches it too
    assert unserved_gaps(mimic_report) + unserved_gaps(eicu_report) == []
    # the eICU quirks the references handle are present in the data
    reached = {b.name for b in eicu_report.coverage if b.reached}
    expected = {"eicu-gcs": "eicu-total-out-of-range", "eicu-oasis": "eicu-apache-urine-missing"}
    assert {expected[name] for name in audited.names if name in expected} <= reached


def _blind_catalog(tmp_path: Path) -> Path:
    """The kdigo family whose only mutant is the reference with a new comment."""
    root = tmp_path / "catalog"
    family = root / "kdigo"
    shutil.copytree(CATALOG_ROOT / "kdigo", family)
    first_line = (family / "reference.sql").read_text().splitlines(keepends=True)[0]
    blind = {
        "name": "blind",
        "rationale": "the reference itself, renamed",
        "edits": [{"find": first_line, "replace": "-- looks wrong, is not\n" + first_line}],
    }
    (family / "mutants.toml").write_text(tomli_w.dumps({"format_version": 1, "mutant": [blind]}))
    return root


def test_a_mutant_identical_to_the_reference_fails_both_verdicts(
    default_sources: DefaultSources, tmp_path: Path
) -> None:
    catalog = load_catalog(_blind_catalog(tmp_path))
    report = audit(
        default_sources.mimic, ["mimic-kdigo-48h"], home=default_sources.home, catalog=catalog
    )
    (task,) = report.tasks
    assert task.reference_reward == 1.0
    assert task.mutants[0].reward == 1.0 and task.uncaught_mutants == ["blind"]
    assert task.unmoved_columns == task.scored_columns
    assert not task.all_mutants_below_one and not task.all_columns_moved
    assert not report.passed
    assert "mimic-kdigo-48h: mutant blind is not caught" in report.failures()
    assert "mimic-kdigo-48h: no mutant moves column aki_stage" in report.failures()


def _copy_without(source: Source, home: DataHome, name: str, table: str, keep: str) -> Source:
    """A copy of ``source`` named ``name`` whose ``table`` keeps only the rows ``keep``."""
    target = home.source_dir(name)
    shutil.copytree(source.layout.root, target, ignore=shutil.ignore_patterns("catalog.duckdb"))
    copy = load_source(home, source.name)  # the same manifest, written again under ``name``
    copy = Source(SourceLayout(target), copy.manifest.model_copy(update={"name": name}))
    schema_name, table_name = table.split(".")
    path = copy.layout.table_path(schema_name, table_name)
    con = duckdb.connect()
    try:
        original = path.with_suffix(".orig.parquet")
        path.rename(original)
        query = f"SELECT * FROM read_parquet('{original}') WHERE {keep}"
        rows = write_parquet(con, query, path)
        original.unlink()
    finally:
        con.close()
    record_table(copy.layout, copy.manifest, table, rows)
    return load_source(home, name)


def test_a_source_lacking_the_rows_of_a_bin_reports_the_gap_by_name(
    default_sources: DefaultSources,
) -> None:
    home = default_sources.home
    lacking = _copy_without(
        default_sources.eicu,
        home,
        "eicu-without-minus-one",
        "eicu_crd.apacheapsvar",
        "urine IS DISTINCT FROM -1",
    )
    report = audit(lacking, ["eicu-oasis"], home=home)
    gaps = [b.name for b in report.gaps]
    assert gaps == ["eicu-apache-urine-missing"]
    assert not report.coverage_passed and not report.passed
    assert "oasis: bin eicu-apache-urine-missing (reference-eicu.sql): no row reaches it" in (
        report.failures()
    )


def test_the_cli_prints_the_table_and_json(default_sources: DefaultSources) -> None:
    runner = CliRunner()
    home = str(default_sources.home.root)
    # no --source: the task's dataset picks the default synthetic eICU source
    args = ["audit", "--home", home, "--task", "eicu-gcs"]
    shown = runner.invoke(app, [*args, "--quiet", "--detail"], env={"COLUMNS": "240"})
    assert shown.exit_code == 0, shown.output
    assert "eicu-gcs" in shown.output and "audit passed" in shown.output
    assert "eicu-window-from-admission" in shown.output
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["passed"] is True and [t["task"] for t in data["tasks"]] == ["eicu-gcs"]
    assert data["source"] == default_sources.eicu.name
    mixed = runner.invoke(app, [*args, "--task", "mimic-kdigo-48h"])
    assert mixed.exit_code != 0 and "one audit reads one source" in str(mixed.exception)


def test_the_cli_exits_1_when_the_audit_fails(default_sources: DefaultSources) -> None:
    home = default_sources.home
    if not home.source_dir("eicu-no-gcs-range").exists():
        _copy_without(
            default_sources.eicu,
            home,
            "eicu-no-gcs-range",
            "eicu_crd.nursecharting",
            "NOT (nursingchartcelltypevalname = 'GCS Total' AND "
            "TRY_CAST(nursingchartvalue AS NUMERIC) NOT BETWEEN 3 AND 15)",
        )
    result = CliRunner().invoke(
        app,
        ["audit", "--source", "eicu-no-gcs-range", "--home", str(home.root), "--task", "eicu-gcs"],
        terminal_width=200,
    )
    assert result.exit_code == 1
    assert "eicu-total-out-of-range" in result.output and "audit failed" in result.output


def test_the_mutant_agent_scores_what_the_audit_says(
    default_sources: DefaultSources, audited: Audited
) -> None:
    """The first audited MIMIC-IV task's first mutant, run by ``m4bench run``."""
    home = default_sources.home
    task = audited.mimic.tasks[0]
    mutant = task.mutants[0]
    setup(home, default_sources.mimic.name, [task.task], progress=False)
    args = ["run", "--task", task.task, "--sandbox", "none", "--home", str(home.root)]
    result = CliRunner().invoke(
        app, [*args, "--agent", f"mutant:{mutant.name}"], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    found = re.search(r"^record (\S+result\.json)$", result.output, re.M)
    assert found, result.output
    record = json.loads(Path(found.group(1)).read_text())
    assert record["status"] == "ok"
    assert mutant.reward is not None
    assert record["reward"] == pytest.approx(mutant.reward)


def test_an_unknown_mutant_agent_is_a_harness_error(default_sources: DefaultSources) -> None:
    home = default_sources.home
    setup(home, default_sources.mimic.name, ["mimic-kdigo-48h"], progress=False)
    args = ["run", "--task", "mimic-kdigo-48h", "--sandbox", "none", "--home", str(home.root)]
    result = CliRunner().invoke(app, [*args, "--agent", "mutant:no-such"], terminal_width=200)
    assert result.exit_code != 0
    assert "window-72h" in str(result.exception) or "window-72h" in result.output
