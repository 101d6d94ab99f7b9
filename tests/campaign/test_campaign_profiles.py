"""Shipped profiles plan the paper's matrices; user profiles are validated with clear errors."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from m4bench.campaign import (
    PlanOptions,
    TaskFacts,
    facts_from_catalog,
    load_profile,
    plan_campaign,
    run_id,
    schedule_order,
)
from m4bench.campaign.profile import parse_profile
from m4bench.errors import M4BenchError

CONTROL_TASKS = {
    "eicu-oasis",
    "mimic-creatinine-baseline",
    "mimic-creatinine-baseline-raw",
    "mimic-meld-24h",
    "mimic-meld-24h-raw",
    "mimic-suspicion-infection",
    "mimic-suspicion-infection-raw",
    "mimic-urine-output-rate",
    "mimic-urine-output-rate-raw",
    "mimic-ventilation",
}


def test_paper_primary_has_the_papers_760_runs() -> None:
    runs = plan_campaign(load_profile("paper-primary"))
    assert len(runs) == 760
    assert len({run.run_id for run in runs}) == 760
    by_condition = Counter(run.cell.condition for run in runs)
    assert by_condition == {
        "no-skill": 280,
        "with-skill": 280,
        "with-skill-rawsql": 100,
        "with-skill-decoy": 100,
    }
    native_tasks = {run.cell.task for run in runs if run.cell.condition == "no-skill"}
    assert len(native_tasks) == 28
    assert {t for t in native_tasks if t.startswith("eicu-")} == {"eicu-gcs", "eicu-oasis"}
    for control in ("with-skill-rawsql", "with-skill-decoy"):
        assert {r.cell.task for r in runs if r.cell.condition == control} == CONTROL_TASKS
    assert {run.cell.model for run in runs} == {"gpt-5.5", "gpt-5.4-mini"}
    assert {run.cell.agent for run in runs} == {"codex"}
    assert {run.cell.schema_name for run in runs} == {"native"}
    trials_per_cell = Counter(run.cell.key for run in runs)
    assert set(trials_per_cell.values()) == {5}
    assert len(trials_per_cell) == 152


@pytest.fixture(scope="module")
def catalog() -> list[TaskFacts]:
    return facts_from_catalog()


def test_operational_spec_runs_only_sentinel_tasks_and_sonnet_for_claude(
    catalog: list[TaskFacts],
) -> None:
    by_name = {fact.name: fact for fact in catalog}
    profile = load_profile("operational-spec")
    runs = plan_campaign(profile, PlanOptions(agents=("claude-code",)))
    assert len(runs) == 40
    assert {run.cell.model for run in runs} == {"sonnet"}
    assert all(by_name[run.cell.task].sentinel for run in runs)
    assert len({run.cell.task for run in runs}) == 8


def test_plans_are_deterministic_and_identity_has_no_time() -> None:
    profile = load_profile("paper-controls")
    first = plan_campaign(profile)
    second = plan_campaign(load_profile("paper-controls"))
    assert [r.run_id for r in first] == [r.run_id for r in second]
    assert [r.run_id for r in first] == sorted(r.run_id for r in first)
    one = first[0]
    assert run_id(one.cell, one.trial) == one.run_id
    assert run_id(one.cell, one.trial + 1) != one.run_id
    other_agent = one.cell.model_copy(update={"agent": "claude-code"})
    assert run_id(other_agent, one.trial) != one.run_id


def test_overrides_choose_agent_models_and_trials() -> None:
    profile = load_profile("paper-primary")
    runs = plan_campaign(
        profile, PlanOptions(agents=("gemini-cli",), models=("my-model",), trials=2)
    )
    assert len(runs) == (28 * 2 + 10 + 10) * 2
    assert {(r.cell.agent, r.cell.model, r.provider) for r in runs} == {
        ("gemini-cli", "my-model", "google")
    }
    with pytest.raises(M4BenchError, match="no plan for agent 'nobody'"):
        plan_campaign(profile, PlanOptions(agents=("nobody",)))


def _profile(tmp_path: Path, blocks: str, extra: str = "") -> Path:
    path = tmp_path / "user.toml"
    path.write_text(
        f"""
name = "user"
default_agent = "codex"
trials = 1
{extra}
[agents.codex]
provider = "openai"
models = {{ primary = ["m"], other = ["x", "y"] }}
{blocks}
""",
        encoding="utf-8",
    )
    return path


def test_selectors_pick_tasks_by_facts(tmp_path: Path, facts: list[TaskFacts]) -> None:
    path = _profile(
        tmp_path,
        """
[[blocks]]
name = "raw-mimic"
select = { mode = "raw", database = "mimic-iv" }
conditions = ["no-skill"]

[[blocks]]
name = "sentinels"
select = { sentinel = true }
conditions = ["operational-spec"]

[[blocks]]
name = "deep"
select = { min_depth = 2, max_depth = 3, family = ["alpha", "delta", "beta"] }
conditions = ["with-skill"]
models = "other"
""",
    )
    runs = plan_campaign(load_profile(str(path)), PlanOptions(), facts)
    picked = {(r.cell.condition, r.cell.task) for r in runs}
    assert {t for c, t in picked if c == "no-skill"} == {"mimic-alpha-raw", "mimic-beta-raw"}
    assert {t for c, t in picked if c == "operational-spec"} == {"mimic-alpha-raw", "mimic-delta"}
    assert {t for c, t in picked if c == "with-skill"} == {"mimic-alpha-raw", "mimic-delta"}
    assert len(runs) == 2 + 2 + 2 * 2


def test_selector_without_catalog_and_unknown_tasks_are_errors(
    tmp_path: Path, facts: list[TaskFacts]
) -> None:
    select = _profile(
        tmp_path, '[[blocks]]\nname = "b"\nselect = { mode = "raw" }\nconditions = ["no-skill"]\n'
    )
    with pytest.raises(M4BenchError, match="no task catalog"):
        plan_campaign(load_profile(str(select)))
    named = _profile(
        tmp_path, '[[blocks]]\nname = "b"\ntasks = ["mimic-nope"]\nconditions = ["no-skill"]\n'
    )
    with pytest.raises(M4BenchError, match="mimic-nope") as refused:
        plan_campaign(load_profile(str(named)), PlanOptions(), facts)
    assert "field blocks[0] ('b').tasks" in refused.value.message
    assert refused.value.hint == "see `m4bench tasks list`"  # nothing near it among the facts
    lenient = plan_campaign(load_profile(str(named)), PlanOptions(strict=False), facts)
    assert [run.cell.task for run in lenient] == ["mimic-nope"]
    typo = _profile(
        tmp_path, '[[blocks]]\nname = "b"\ntasks = ["mimic-delt"]\nconditions = ["no-skill"]\n'
    )
    with pytest.raises(M4BenchError, match="did you mean mimic-delta"):
        plan_campaign(load_profile(str(typo)), PlanOptions(), facts)


@pytest.mark.parametrize(
    ("blocks", "message"),
    [
        (
            '[[blocks]]\nname = "ctl"\ntasks = ["a"]\nconditions = ["with-skill-decoi"]\n',
            r"blocks\[0\] \('ctl'\)\.conditions\[0\]",
        ),
        (
            '[[blocks]]\nname = "b"\ntasks = ["a"]\nselect = {}\nconditions = ["no-skill"]\n',
            "either 'tasks' or 'select'",
        ),
        ('[[blocks]]\nname = "b"\ntasks = ["a"]\nconditions = ["no-skill"]\nspeed = 1\n', "speed"),
    ],
)
def test_profile_errors_name_file_and_field(tmp_path: Path, blocks: str, message: str) -> None:
    path = _profile(tmp_path, blocks)
    with pytest.raises(M4BenchError, match=message) as info:
        load_profile(str(path))
    assert str(path) in info.value.message


def test_perturbed_schemas_are_refused_for_eicu_tasks(tmp_path: Path) -> None:
    path = _profile(
        tmp_path,
        '[[blocks]]\nname = "t"\ntasks = ["mimic-meld-24h", "eicu-gcs"]\n'
        'conditions = ["no-skill"]\nschemas = ["native", "obfuscated"]\n',
    )
    with pytest.raises(M4BenchError, match=r"block 't'.*eicu-gcs"):
        plan_campaign(load_profile(str(path)))


def test_unknown_role_and_missing_profile_are_errors(tmp_path: Path) -> None:
    path = _profile(
        tmp_path, '[[blocks]]\nname = "b"\ntasks = ["a"]\nconditions = ["no-skill"]\nmodels = "z"\n'
    )
    with pytest.raises(M4BenchError, match="no model role 'z'"):
        plan_campaign(load_profile(str(path)))
    with pytest.raises(M4BenchError, match=r"shipped profiles: .*operational-spec"):
        load_profile("no-such-profile")


def test_slowest_first_by_duration_priors_and_timeouts(tmp_path: Path) -> None:
    path = _profile(
        tmp_path,
        '[[blocks]]\nname = "b"\ntasks = ["mimic-sepsis3-raw", "mimic-meld-24h"]\n'
        'conditions = ["no-skill", "with-skill-rawsql"]\n',
        extra="[timeouts]\ndefault_seconds = 600\ntasks = { mimic-sepsis3-raw = 2400 }\n",
    )
    runs = plan_campaign(load_profile(str(path)))
    order = [(r.cell.task, r.cell.condition) for r in schedule_order(runs)]
    assert order == [
        ("mimic-sepsis3-raw", "no-skill"),
        ("mimic-sepsis3-raw", "with-skill-rawsql"),
        ("mimic-meld-24h", "no-skill"),
        ("mimic-meld-24h", "with-skill-rawsql"),
    ]
    timeouts = {r.cell.task: r.timeout_seconds for r in runs}
    assert timeouts == {"mimic-sepsis3-raw": 2400, "mimic-meld-24h": 600}


def test_the_documented_profile_example_is_valid(catalog: list[TaskFacts]) -> None:
    doc = Path(__file__).parents[2] / "docs" / "campaigns.md"
    example = re.search(r"```toml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    assert example is not None
    profile = parse_profile(tomllib.loads(example.group(1)), doc)
    runs = plan_campaign(profile, PlanOptions(), catalog)
    by_block = Counter(run.cell.condition for run in runs)
    assert by_block["operational-spec"] == 2 * 5
    assert by_block["no-skill"] == by_block["with-skill"] > 0
