"""Conditions, instruction assembly, identity and the workdir lint, on the real catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.errors import M4BenchError
from m4bench.runner import RunSpec
from m4bench.runner.conditions import condition_skills
from m4bench.runner.contamination import lint_workdir, redact
from m4bench.runner.instruction import (
    CONVENTION_PARAGRAPH,
    ISOLATION_PARAGRAPH,
    SPEC_HEADING,
    assemble_instruction,
)
from m4bench.tasks.catalog import Catalog


def origins(catalog: Catalog, task: str, condition: str) -> dict[str, str]:
    skills = condition_skills(catalog.task(task), condition, catalog)  # type: ignore[arg-type]
    return {skill.folder: skill.origin for skill in skills}


def test_with_skill_all_picks_the_variant_matching_database_and_mode(catalog: Catalog) -> None:
    standard = origins(catalog, "mimic-oasis-24h", "with-skill-all")
    assert standard["oasis-score"] == "mimic-oasis-24h/oasis-score"
    assert standard["gcs-calculation"].startswith("mimic-")
    assert standard["kdigo-aki-staging"] == "mimic-kdigo-48h/kdigo-aki-staging"
    raw = origins(catalog, "mimic-kdigo-48h-raw", "with-skill-all")
    assert raw["kdigo-aki-staging"] == "mimic-kdigo-48h-raw/kdigo-aki-staging"
    assert raw["meld-score"] == "mimic-meld-24h-raw/meld-score"
    assert raw["oasis-score"] == "mimic-oasis-24h-raw/oasis-score"
    assert raw["sofa-score"] == "mimic-sofa-24h-raw/sofa-score"
    eicu = origins(catalog, "eicu-oasis", "with-skill-all")
    assert eicu["oasis-score"] == "eicu-oasis/oasis-score"
    every_name = {name for task in catalog.tasks for name in task.skill_paths}
    assert set(raw) == set(standard) == set(eicu) == every_name


def test_other_conditions(catalog: Catalog) -> None:
    task = catalog.task("mimic-kdigo-48h")
    assert origins(catalog, task.name, "no-skill") == {}
    assert origins(catalog, task.name, "operational-spec") == {}
    assert set(origins(catalog, task.name, "with-skill")) == set(task.skill_paths)
    decoy = origins(catalog, task.name, "with-skill-decoy")
    assert list(decoy) == [task.card.controls.decoy_skill]
    assert list(decoy) != list(task.skill_paths)
    rawsql = condition_skills(task, "with-skill-rawsql", catalog)
    assert len(rawsql) == 1 and "```sql" in rawsql[0].text
    assert rawsql[0].text.startswith("---\nname: ")


def test_instruction_parts_in_order(catalog: Catalog) -> None:
    sentinel = next(t for t in catalog.tasks if t.card.controls.sentinel)
    text = assemble_instruction(sentinel, "operational-spec", "native")
    body = sentinel.render_instruction("./output.csv").strip()
    assert text.index(ISOLATION_PARAGRAPH) < text.index(CONVENTION_PARAGRAPH) < text.index(body)
    assert text.index(body) < text.index(SPEC_HEADING)
    assert (sentinel.operational_spec or "").strip() in text
    assert "{output_path}" not in text and "./output.csv" in text
    assert assemble_instruction(sentinel, "operational-spec", "native") == text


def test_perturbed_instruction_carries_the_dictionary(catalog: Catalog) -> None:
    task = catalog.task("mimic-kdigo-48h")
    dictionary = "## Schema dictionary\n\n- `s_123`: hospital records\n"
    text = assemble_instruction(task, "no-skill", "obfuscated", dictionary)
    assert text.rstrip().endswith("- `s_123`: hospital records")
    assert "MIMIC" not in text
    with pytest.raises(M4BenchError, match="dictionary"):
        assemble_instruction(task, "no-skill", "restructured", None)


def test_operational_spec_without_a_spec_is_refused(catalog: Catalog) -> None:
    plain = next(t for t in catalog.tasks if t.operational_spec is None)
    with pytest.raises(M4BenchError, match="operational-spec"):
        assemble_instruction(plain, "operational-spec", "native")


def test_run_id_is_stable_and_distinct() -> None:
    spec = RunSpec(task="mimic-kdigo-48h", agent="codex", model="m/1", trial=2)
    same = RunSpec.model_validate(spec.model_dump(by_alias=True))
    assert spec.run_id == same.run_id
    others = [
        spec.model_copy(update={"trial": 3}),
        spec.model_copy(update={"model": "m_1"}),
        spec.model_copy(update={"agent": "claude-code"}),
        spec.model_copy(update={"schema_name": "obfuscated"}),
    ]
    assert len({spec.run_id, *(o.run_id for o in others)}) == 5
    assert "/" not in spec.run_id


def test_lint_flags_foreign_databases_host_paths_and_secrets(tmp_path: Path) -> None:
    workdir = tmp_path / "w"
    (workdir / "notes").mkdir(parents=True)
    (workdir / "agent.duckdb").write_bytes(b"\0" * 10)
    (workdir / "copy.duckdb").write_bytes(b"\0" * 10)
    (workdir / "notes" / "a.txt").write_text("look in /data/truth/x.parquet\n")
    (workdir / "notes" / "b.py").write_text("key = 'sk-" + "a" * 30 + "'\n")
    (workdir / "ok.csv").write_text("a,b\n1,2\n")
    verdict = lint_workdir(workdir, ["/data/truth"], ["hunter2-secret"])
    kinds = sorted((f.kind, f.path) for f in verdict.findings)
    assert kinds == [
        ("database", "copy.duckdb"),
        ("host-path", "notes/a.txt"),
        ("secret", "notes/b.py"),
    ]
    assert not verdict.passed and verdict.files == 5
    clean = lint_workdir(workdir / "notes" / ".." / "notes", ["/nowhere"], [])
    assert {f.path for f in clean.findings} == {"b.py"}


def test_redaction() -> None:
    text = "token hunter2-secret in /home/ann/x and sk-" + "b" * 30
    out = redact(text, ["hunter2-secret"], ["/home/ann"])
    assert "hunter2" not in out and "/home/ann" not in out and "sk-bbb" not in out


def test_rawsql_skill_follows_the_run_schema(catalog: Catalog) -> None:
    task = catalog.task("mimic-meld-24h")
    skills = condition_skills(task, "with-skill-rawsql", catalog, lambda sql: "SELECT 42 AS x")
    assert "SELECT 42 AS x" in skills[0].text
    assert task.reference_sql.strip() not in skills[0].text
