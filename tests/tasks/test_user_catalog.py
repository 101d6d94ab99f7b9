"""$M4BENCH_TASKS: a research group's own task folders join the shipped catalog."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner
from user_tasks import LOCAL_FAMILY, LOCAL_TASK, local_family

from m4bench.cli import app
from m4bench.demo.stages import shipped_task_names
from m4bench.errors import M4BenchError
from m4bench.runner.conditions import all_skills
from m4bench.tasks.catalog import CATALOG_ROOT, TASKS_ENV, extra_task_roots, load_catalog
from m4bench.tasks.lint import lint_catalog
from m4bench.tasks.skills import decoy_skill, parse_skill


@pytest.fixture
def user_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "our-tasks"
    local_family(root)
    monkeypatch.setenv(TASKS_ENV, str(root))
    return root


def test_user_tasks_join_the_shipped_ones(user_root: Path) -> None:
    shipped = load_catalog(extra_roots=())
    catalog = load_catalog()
    assert catalog.roots == (CATALOG_ROOT, user_root.resolve())
    assert catalog.names == sorted([*shipped.names, LOCAL_TASK])
    task = catalog.task(LOCAL_TASK)
    assert task.family == LOCAL_FAMILY
    assert task.reference_path == user_root.resolve() / LOCAL_FAMILY / "reference.sql"
    assert task.depends_on == catalog.task("mimic-meld-24h").depends_on
    assert task.provenance.applies_to == [LOCAL_TASK]


def test_the_user_family_passes_lint(user_root: Path) -> None:
    findings = lint_catalog(run_references=False)
    assert [str(f) for f in findings if f.severity == "error"] == []


def test_the_variable_takes_several_folders_and_skips_blanks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    local_family(first)
    local_family(second, family="meld-other", task="mimic-meld-other-24h")
    value = os.pathsep.join(["", str(first), str(CATALOG_ROOT), str(second), str(first), ""])
    assert extra_task_roots(value) == (first.resolve(), second.resolve())
    monkeypatch.setenv(TASKS_ENV, value)
    names = load_catalog().names
    assert LOCAL_TASK in names and "mimic-meld-other-24h" in names


def test_a_folder_that_does_not_exist_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(M4BenchError, match=f"{TASKS_ENV}: '{missing}' is not a folder"):
        extra_task_roots(str(missing))


def test_a_shipped_family_folder_in_a_user_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "our-tasks"
    local_family(root, family="meld", task="mimic-meld-local-24h")
    with pytest.raises(M4BenchError, match="family 'meld' is defined in") as caught:
        load_catalog(extra_roots=[root])
    assert str(CATALOG_ROOT / "meld") in caught.value.message
    assert str(root / "meld") in caught.value.message


def test_a_task_name_given_twice_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "our-tasks"
    local_family(root, task="mimic-meld-24h")
    with pytest.raises(M4BenchError, match="'mimic-meld-24h' is defined twice") as caught:
        load_catalog(extra_roots=[root])
    assert str(root / LOCAL_FAMILY / "mimic-meld-24h") in caught.value.message


def test_the_cli_lists_and_shows_user_tasks(user_root: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["tasks", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    entry = next(t for t in json.loads(listed.output) if t["name"] == LOCAL_TASK)
    assert entry["folder"] == str(user_root.resolve() / LOCAL_FAMILY / LOCAL_TASK)
    table = runner.invoke(app, ["tasks", "list"], env={"COLUMNS": "250"})
    assert f"with the tasks of {TASKS_ENV}: {user_root.resolve()}" in table.output
    shown = runner.invoke(app, ["tasks", "show", LOCAL_TASK], env={"COLUMNS": "250"})
    assert shown.exit_code == 0 and str(user_root.resolve()) in shown.output


def test_an_unknown_task_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TASKS_ENV, raising=False)
    with pytest.raises(M4BenchError) as caught:
        load_catalog().task("qsofa-local")
    assert caught.value.hint is not None and f"${TASKS_ENV}" in caught.value.hint


def test_a_shipped_task_borrows_skills_from_shipped_tasks_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Named to sort before mimic-meld-24h, the shipped carrier of kdigo's decoy.
    task_dir = local_family(tmp_path / "ours", family="meld-zero", task="mimic-meld-0-24h")
    skill = task_dir / "skills" / "meld-score" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nOUR LOCAL VARIANT\n")
    catalog = load_catalog(extra_roots=[tmp_path / "ours"])
    kdigo, ours = catalog.task("mimic-kdigo-48h"), catalog.task("mimic-meld-0-24h")
    assert "mimic-meld-0-24h" not in {t.name for t in catalog.peers(kdigo)}
    _, decoy = decoy_skill(kdigo, catalog)
    assert decoy == catalog.task("mimic-meld-24h").skill_paths["meld-score"].read_text()
    shipped_all = all_skills(kdigo, catalog)
    assert [s.origin for s in shipped_all] == [s.origin for s in all_skills(kdigo, load_catalog())]
    assert {s.origin for s in all_skills(ours, catalog)} >= {"mimic-meld-0-24h/meld-score"}
    assert catalog.peers(ours) == catalog.tasks


def test_the_demo_keeps_to_the_shipped_tasks(user_root: Path) -> None:
    assert LOCAL_TASK in load_catalog().names
    assert LOCAL_TASK not in shipped_task_names()
    assert shipped_task_names("eicu") == ["eicu-gcs", "eicu-oasis"]
    assert sorted(shipped_task_names()) == sorted(load_catalog(extra_roots=()).names)


def test_a_broken_user_card_says_how_to_get_on_meanwhile(tmp_path: Path) -> None:
    task = local_family(tmp_path / "ours")
    card = task / "task.toml"
    card.write_text(
        card.read_text(encoding="utf-8").replace('difficulty = "medium"', 'difficulty = "x"'),
        encoding="utf-8",
    )
    with pytest.raises(M4BenchError) as caught:
        load_catalog(extra_roots=[tmp_path / "ours"])
    assert str(card) in caught.value.message
    assert f"leave its folder out of ${TASKS_ENV}" in (caught.value.hint or "")


@pytest.mark.parametrize("name", ["task.toml", "instruction.md", "SKILL.md"])
def test_a_user_file_that_is_not_utf8_is_named(tmp_path: Path, name: str) -> None:
    task = local_family(tmp_path / "ours")
    target = next(task.rglob(name))
    target.write_bytes(target.read_bytes() + b"\n\xff\xfe caf\xe9\n")
    with pytest.raises(M4BenchError, match="not UTF-8 text") as caught:
        found = load_catalog(extra_roots=[tmp_path / "ours"]).task(task.name)
        _ = found.instruction
        parse_skill(target)
    assert str(target) in caught.value.message
