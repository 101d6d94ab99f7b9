"""m4bench tasks copy: a shipped task becomes the start of a family of one's own."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import CATALOG_ROOT, TASKS_ENV, load_catalog, load_provenance
from m4bench.tasks.facts import FACTS_FILE, load_facts
from m4bench.tasks.lint import lint_catalog
from m4bench.tasks.task_copy import CopyRequest, copy_task, keep_entries

GCS = CATALOG_ROOT / "gcs"


def _copy(into: Path, task: str = "mimic-gcs-24h-raw", **names: str) -> Path:
    catalog = load_catalog()
    request = CopyRequest(
        catalog.task(task),
        names.get("name", "mimic-gcs-6h-raw"),
        names.get("family", "gcs-6h"),
        into,
        names.get("author", "Sepsis group"),
    )
    return copy_task(request, catalog)


def test_a_copy_is_a_task_that_passes_lint(tmp_path: Path) -> None:
    created = _copy(tmp_path)
    assert created == tmp_path / "gcs-6h" / "mimic-gcs-6h-raw"
    catalog = load_catalog(extra_roots=[tmp_path])
    task = catalog.task("mimic-gcs-6h-raw")
    assert (task.family, task.card.mode) == ("gcs-6h", "raw")
    assert task.reference_sql == catalog.task("mimic-gcs-24h-raw").reference_sql
    assert sorted(p.name for p in created.parent.iterdir()) == [
        "PROVENANCE.yaml", "coverage.toml", "mimic-gcs-6h-raw", "mutants.toml", "reference.sql",
    ]  # fmt: skip
    errors = [str(f) for f in lint_catalog(run_references=False, extra_roots=[tmp_path])]
    assert errors == []


def test_the_copy_keeps_what_the_reference_needs(tmp_path: Path) -> None:
    family = _copy(tmp_path).parent
    original = tomllib.loads((GCS / "mutants.toml").read_text(encoding="utf-8"))
    mimic = [m["name"] for m in original["mutant"] if "reference" not in m]
    assert 0 < len(mimic) < len(original["mutant"])  # the eICU ones are left out
    copied = tomllib.loads((family / "mutants.toml").read_text(encoding="utf-8"))
    assert [m["name"] for m in copied["mutant"]] == mimic
    assert not (family / "reference-eicu.sql").exists()
    provenance = load_provenance(family / "PROVENANCE.yaml")
    assert (provenance.family, provenance.applies_to) == ("gcs-6h", ["mimic-gcs-6h-raw"])
    assert provenance.reviews == [] and provenance.review_status == "pending"
    assert provenance.created.by == "Sepsis group"
    assert provenance.sources == load_provenance(GCS / "PROVENANCE.yaml").sources
    card = (family / "mimic-gcs-6h-raw" / "task.toml").read_text(encoding="utf-8")
    shipped = (GCS / "mimic-gcs-24h-raw" / "task.toml").read_text(encoding="utf-8")
    assert card.count("#") == shipped.count("#")  # comments survive
    assert 'name = "mimic-gcs-6h-raw"' in card and 'family = "gcs-6h"' in card


def test_the_copy_keeps_the_facts_but_not_the_paper_lengths(tmp_path: Path) -> None:
    copied = load_facts(_copy(tmp_path) / FACTS_FILE)
    shipped = load_facts(GCS / "mimic-gcs-24h-raw" / FACTS_FILE)
    assert shipped.lengths is not None and copied.lengths is None
    assert copied.model_copy(update={"lengths": shipped.lengths}) == shipped


def test_entries_are_kept_by_reference_and_task(tmp_path: Path) -> None:
    text = (
        "# header comment\nformat_version = 1\n\n"
        '[[mutant]]\nname = "both"\nrationale = "applies to the copied task"\n'
        'tasks = ["old-task", "other-task"]\n\n[[mutant.edits]]\nfind = """\nA\n"""\n'
        'replace = "B"\n\n'
        '[[mutant]]\nname = "other-only"\nrationale = "applies elsewhere"\n'
        'tasks = ["other-task"]\n[[mutant.edits]]\nfind = "A"\nreplace = "C"\n\n'
        '# a comment of the eICU entry\n[[mutant]]\nname = "eicu"\nrationale = "eICU"\n'
        'reference = "reference-eicu.sql"\n[[mutant.edits]]\nfind = "A"\nreplace = "D"\n\n'
        '[[exempt]]\ncolumn = "gender"\nreason = "copied from the patient record"\n'
    )
    kept = keep_entries(text, tmp_path / "m.toml", "reference.sql", "old-task", "new-task")
    parsed = tomllib.loads(kept)
    assert [m["name"] for m in parsed["mutant"]] == ["both"]
    assert parsed["mutant"][0]["tasks"] == ["new-task"]
    assert parsed["mutant"][0]["edits"] == [{"find": "A\n", "replace": "B"}]
    assert parsed["exempt"] == [{"column": "gender", "reason": "copied from the patient record"}]
    assert kept.startswith("# header comment\n")


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({"family": "gcs"}, "family 'gcs' exists already"),
        ({"name": "mimic-gcs-24h-raw"}, "exists already"),
        ({"name": "mimic-gcs-6h"}, "raw tasks, and only they, end with '-raw'"),
        ({"name": "eicu-gcs-6h-raw"}, "starts with 'mimic-'"),
        ({"family": "GCS_6h"}, "lower-case words"),
        ({"author": " "}, "--author is blank"),
    ],
)
def test_bad_names_are_refused_before_writing(
    tmp_path: Path, names: dict[str, str], message: str
) -> None:
    with pytest.raises(M4BenchError, match=message):
        _copy(tmp_path / "ours", **names)
    assert not (tmp_path / "ours").exists() or not any((tmp_path / "ours").iterdir())


def test_a_blank_provenance_author_is_a_lint_finding(tmp_path: Path) -> None:
    created = _copy(tmp_path)
    provenance = created.parent / "PROVENANCE.yaml"
    text = provenance.read_text(encoding="utf-8")
    provenance.write_text(text.replace("by: Sepsis group", "by: ''"), encoding="utf-8")
    findings = lint_catalog(tmp_path, run_references=False, extra_roots=())  # the copy only
    assert any(
        f.rule == "provenance" and f.path == provenance and "created.by" in f.message
        for f in findings
    ), findings


def test_a_failed_copy_leaves_nothing(tmp_path: Path) -> None:
    root = tmp_path / "catalog"
    shutil.copytree(GCS, root / "gcs")
    catalog = load_catalog(root, extra_roots=())
    (root / "gcs" / "reference.sql").unlink()
    request = CopyRequest(catalog.task("mimic-gcs-24h-raw"), "mimic-gcs-6h-raw", "gcs-6h",
                          tmp_path / "ours", "me")  # fmt: skip
    with pytest.raises(M4BenchError, match="cannot copy mimic-gcs-24h-raw"):
        copy_task(request, catalog)
    assert list((tmp_path / "ours").iterdir()) == []


def test_a_copy_left_half_written_is_not_a_task(tmp_path: Path) -> None:
    created = _copy(tmp_path)
    shutil.copytree(created.parent, tmp_path / ".gcs-6h.partial-123")
    shutil.copytree(created, created.parent / ".mimic-gcs-6h-raw.bak")
    catalog = load_catalog(extra_roots=[tmp_path])
    assert [t.dir for t in catalog.tasks if t.family == "gcs-6h"] == [created]


def test_the_cli_says_what_to_do_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()

    def copy(version: str) -> str:
        names = ["--name", f"mimic-meld-{version}-24h", "--family", f"meld-{version}"]
        args = [
            "tasks",
            "copy",
            "mimic-meld-24h",
            *names,
            "--into",
            str(tmp_path),
            "--author",
            "me",
        ]
        result = runner.invoke(app, args, env={"COLUMNS": "250"})
        assert result.exit_code == 0, result.output
        return result.output

    assert f"next: export {TASKS_ENV}={tmp_path.resolve()}" in copy("v2")
    monkeypatch.setenv(TASKS_ENV, str(tmp_path))
    second = copy("v3")
    assert "next: export" not in second and "m4bench tasks lint" in second
    assert {"mimic-meld-v2-24h", "mimic-meld-v3-24h"} <= set(load_catalog().names)
    # With one folder in the variable, --into may be left out.
    names = ["--name", "mimic-meld-v4-24h", "--family", "meld-v4", "--author", "me"]
    third = runner.invoke(app, ["tasks", "copy", "mimic-meld-24h", *names])
    assert third.exit_code == 0, third.output
    assert (tmp_path / "meld-v4" / "mimic-meld-v4-24h" / "task.toml").exists()
    monkeypatch.delenv(TASKS_ENV)
    refused = runner.invoke(app, ["tasks", "copy", "mimic-meld-24h", *names])
    assert refused.exit_code == 2 and "names 0 folders" in refused.output
