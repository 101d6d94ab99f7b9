"""What a condition, a schema and a timeout need of a run, checked before it starts
(``check_condition``, ``check_timeout``, the schema check): the same errors ``m4bench
run`` and ``campaign run`` refuse upfront, and ``execute_run`` records."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError
from user_tasks import LOCAL_TASK, local_family, replace_in

from m4bench.errors import M4BenchError
from m4bench.provision.layout import check_schema_exists
from m4bench.runner import RunSpec
from m4bench.runner.checks import MAX_TIMEOUT_SECONDS, check_timeout
from m4bench.runner.conditions import check_condition, condition_skills
from m4bench.tasks.catalog import TASKS_ENV, Catalog, load_catalog


@pytest.fixture
def own_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Catalog:
    """The shipped catalog plus a copy of the MELD task (no operational spec)."""
    local_family(tmp_path / "ours")
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    return load_catalog()


def test_every_condition_of_a_complete_task_passes(own_catalog: Catalog) -> None:
    sentinel = own_catalog.task("mimic-ventilation")
    for condition in ("no-skill", "with-skill", "with-skill-decoy", "with-skill-rawsql"):
        check_condition(sentinel, condition, own_catalog)
    check_condition(sentinel, "operational-spec", own_catalog)
    check_condition(sentinel, "with-skill-all", own_catalog)


def test_operational_spec_needs_the_tasks_spec(own_catalog: Catalog) -> None:
    task = own_catalog.task(LOCAL_TASK)
    with pytest.raises(M4BenchError, match="the operational-spec condition needs") as refused:
        check_condition(task, "operational-spec", own_catalog)
    assert str(task.operational_spec_path) in refused.value.message
    assert refused.value.hint is not None and '"sentinel": true' in refused.value.hint


def test_with_skill_needs_a_canonical_skill(own_catalog: Catalog) -> None:
    task = own_catalog.task(LOCAL_TASK)
    check_condition(task, "with-skill", own_catalog)
    shutil.rmtree(task.dir / "skills")
    bare = load_catalog().task(LOCAL_TASK)
    with pytest.raises(M4BenchError, match="needs the task's canonical skills"):
        check_condition(bare, "with-skill", own_catalog)
    with pytest.raises(M4BenchError, match="needs the task's canonical skills"):
        condition_skills(bare, "with-skill", own_catalog)  # never a silent no-skill run
    check_condition(bare, "no-skill", own_catalog)


def test_decoy_needs_another_family_carrying_the_skill(own_catalog: Catalog) -> None:
    task = own_catalog.task(LOCAL_TASK)
    replace_in(task.card_path, 'decoy_skill = "kdigo-aki-staging"', 'decoy_skill = "no-such"')
    changed = load_catalog()
    with pytest.raises(M4BenchError, match="decoy skill 'no-such' is not a canonical skill"):
        check_condition(changed.task(LOCAL_TASK), "with-skill-decoy", changed)


def test_raw_sql_needs_the_reference_query(own_catalog: Catalog) -> None:
    task = own_catalog.task(LOCAL_TASK)
    check_condition(task, "with-skill-rawsql", own_catalog)
    task.reference_path.unlink()
    changed = load_catalog()
    with pytest.raises(M4BenchError, match=r"reference\.sql: missing"):
        check_condition(changed.task(LOCAL_TASK), "with-skill-rawsql", changed)


def test_perturbed_schemas_exist_for_mimic_iv_tasks_only() -> None:
    check_schema_exists("mimic-iv", "obfuscated", "task mimic-meld-24h reads")
    check_schema_exists("eicu", "native", "task eicu-gcs reads")
    with pytest.raises(M4BenchError) as refused:
        check_schema_exists("eicu", "restructured", "task eicu-gcs reads")
    assert refused.value.message == (
        "task eicu-gcs reads eicu data: the restructured schema exists for MIMIC-IV tasks only"
    )
    assert refused.value.hint == "use --schema native for eicu tasks"


@pytest.mark.parametrize("seconds", [0.5, MAX_TIMEOUT_SECONDS + 1, 1e19, float("nan")])
def test_a_timeout_out_of_range_is_refused(seconds: float) -> None:
    with pytest.raises(M4BenchError, match="give 1 to 604800 seconds") as refused:
        check_timeout(seconds, "--timeout", "hint")
    assert refused.value.message.startswith("--timeout: ")


def test_a_timeout_in_range_passes() -> None:
    assert check_timeout(1, "--timeout", "hint") == 1.0
    assert check_timeout(MAX_TIMEOUT_SECONDS, "--timeout", "hint") == MAX_TIMEOUT_SECONDS


@pytest.mark.parametrize("field", ["model", "reasoning"])
@pytest.mark.parametrize("value", ["", "  "])
def test_a_run_spec_refuses_an_empty_model_or_reasoning(field: str, value: str) -> None:
    with pytest.raises(ValidationError, match=field):
        RunSpec.model_validate({"task": "mimic-meld-24h", "agent": "oracle", field: value})
