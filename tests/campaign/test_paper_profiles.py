"""The shipped paper profiles plan the campaigns the paper reports, at its settings.

Expected run counts are the paper's own numbers, not outputs of the planner: the
primary Codex matrix (760), its matched controls (200), the operational-spec follow-up
(80), the schema probe and schema-skill follow-up (260 each), the full-coverage Claude
replication (560), the Claude sentinel campaign (190), the exploratory open-weight arm
(110); and the original benchmark's with-skill-all probe (45: 9 tasks x 1 model x 5).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from m4bench.agents.base import AgentContext
from m4bench.agents.registry import get_adapter
from m4bench.campaign import (
    PlanOptions,
    TaskFacts,
    facts_from_catalog,
    load_profile,
    plan_campaign,
    shipped_profiles,
)
from m4bench.cli import app
from m4bench.results.campaign_files import PlannedRun
from m4bench.results.identity import DEFAULT_REASONING
from m4bench.tasks.catalog import load_catalog

PAPER_RUNS = {
    "paper-primary": 760,
    "paper-controls": 200,
    "operational-spec": 80,
    "schema-probe": 260,
    "schema-skill": 260,
    "claude-full-coverage": 560,
    "claude-sentinel": 190,
    "open-weight": 110,
    "with-skill-all-probe": 45,
}
PAPER_EFFORT = {"codex": "medium", "claude-code": "medium"}
"""The paper ran these agents at reasoning effort medium; others got no effort flag."""
SCHEMA_TIER_TASKS = {"mimic-sofa-24h-raw", "mimic-kdigo-48h-raw", "mimic-oasis-24h-raw"}


@pytest.fixture(scope="module")
def catalog() -> list[TaskFacts]:
    return facts_from_catalog()


def _plan(name: str, catalog: list[TaskFacts], agent: str | None = None) -> list[PlannedRun]:
    options = PlanOptions(agents=(agent,) if agent else ())
    return plan_campaign(load_profile(name), options, catalog)


def test_every_shipped_profile_is_a_paper_campaign() -> None:
    assert shipped_profiles() == sorted(PAPER_RUNS)


@pytest.mark.parametrize(("name", "count"), sorted(PAPER_RUNS.items()))
def test_plan_prints_the_papers_run_count(name: str, count: int) -> None:
    result = CliRunner().invoke(app, ["campaign", "plan", name, "--no-runs"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith(f"\n{count} runs planned")


@pytest.mark.parametrize(("name", "count"), sorted(PAPER_RUNS.items()))
def test_planner_gives_the_papers_run_count(
    name: str, count: int, catalog: list[TaskFacts]
) -> None:
    runs = _plan(name, catalog)
    assert len(runs) == count
    assert len({run.run_id for run in runs}) == count
    assert set(Counter(run.cell.key for run in runs).values()) == {5}
    perturbed = {run.cell.task for run in runs if run.cell.schema_name != "native"}
    assert all(task.startswith("mimic-") for task in perturbed)


@pytest.mark.parametrize("name", sorted(PAPER_RUNS))
def test_reasoning_is_the_papers(name: str, catalog: list[TaskFacts]) -> None:
    """Medium where the paper ran medium; elsewhere the provider's default ("auto")."""
    profile = load_profile(name)
    for agent in profile.agents:
        expected = PAPER_EFFORT.get(agent, DEFAULT_REASONING)
        assert profile.agents[agent].reasoning == [expected], (name, agent)
        runs = _plan(name, catalog, agent)
        assert {run.cell.reasoning for run in runs} == {expected}


@pytest.mark.parametrize(
    ("agent", "flag"),
    [
        ("codex", 'model_reasoning_effort="medium"'),
        ("claude-code", "--effort medium"),
        ("gemini-cli", None),
        ("react", None),
    ],
)
def test_the_papers_reasoning_reaches_each_agents_command(
    agent: str, flag: str | None, tmp_path: Path
) -> None:
    """A setting other than "auto" is passed as the agent's effort (the runner's rule);
    "auto" passes none, so no agent is given an effort it does not take."""
    reasoning = PAPER_EFFORT.get(agent, DEFAULT_REASONING)
    ctx = AgentContext(
        workdir=tmp_path,
        instruction_path=tmp_path / "instruction.md",
        model="m",
        endpoint="http://127.0.0.1:11434/v1",
        reasoning_effort=None if reasoning == DEFAULT_REASONING else reasoning,
    )
    command = " ".join(get_adapter(agent).command(ctx))
    if flag is None:
        assert "effort" not in command
    else:
        assert flag in command


def test_claude_full_coverage_is_all_tasks_on_both_claude_models(
    catalog: list[TaskFacts],
) -> None:
    runs = _plan("claude-full-coverage", catalog)
    assert {run.cell.agent for run in runs} == {"claude-code"}
    assert {run.cell.task for run in runs} == {fact.name for fact in catalog}
    assert len({run.cell.task for run in runs}) == 28
    assert Counter(run.cell.condition for run in runs) == {"no-skill": 280, "with-skill": 280}
    assert Counter(run.cell.model for run in runs) == {"opus": 280, "sonnet": 280}
    assert {run.cell.schema_name for run in runs} == {"native"}


def _sentinel_matrix(runs: list[PlannedRun], catalog: list[TaskFacts]) -> None:
    """8 sentinel tasks x {no-skill, with-skill} natively, plus no-skill on both perturbed
    schemas of three tasks."""
    sentinels = {fact.name for fact in catalog if fact.sentinel}
    native = [run for run in runs if run.cell.schema_name == "native"]
    perturbed = [run for run in runs if run.cell.schema_name != "native"]
    assert {run.cell.task for run in native} == sentinels and len(sentinels) == 8
    assert Counter(run.cell.condition for run in native) == {
        "no-skill": len(native) // 2,
        "with-skill": len(native) // 2,
    }
    assert {run.cell.task for run in perturbed} == SCHEMA_TIER_TASKS
    assert {run.cell.condition for run in perturbed} == {"no-skill"}
    assert Counter(run.cell.schema_name for run in perturbed) == {
        "obfuscated": 15,
        "restructured": 15,
    }


def test_claude_sentinel_matrix(catalog: list[TaskFacts]) -> None:
    runs = _plan("claude-sentinel", catalog)
    _sentinel_matrix(runs, catalog)
    native = [run for run in runs if run.cell.schema_name == "native"]
    assert len(native) == 160
    assert Counter(run.cell.model for run in native) == {"opus": 80, "sonnet": 80}
    perturbed = {run.cell.model for run in runs if run.cell.schema_name != "native"}
    assert perturbed == {"sonnet"}


def test_open_weight_arm_is_react_on_one_local_model(catalog: list[TaskFacts]) -> None:
    profile = load_profile("open-weight")
    assert profile.default_agent == "react"
    runs = _plan("open-weight", catalog)
    _sentinel_matrix(runs, catalog)
    assert len([run for run in runs if run.cell.schema_name == "native"]) == 80
    assert {(run.cell.agent, run.cell.model) for run in runs} == {("react", "gpt-oss:20b")}
    assert "110" in profile.description and "inferred" in profile.description


def test_with_skill_all_probe_is_expert_and_compositional_tasks_on_the_noise_model(
    catalog: list[TaskFacts],
) -> None:
    cards = [task.card for task in load_catalog().tasks]
    probed = {
        card.name
        for card in cards
        if card.metadata.difficulty == "expert" or "compositional" in card.metadata.tags
    }
    assert len(probed) == 9
    profile = load_profile("with-skill-all-probe")
    for agent, plan in profile.agents.items():
        runs = _plan("with-skill-all-probe", catalog, agent)
        assert len(runs) == 45
        assert {run.cell.task for run in runs} == probed
        assert {run.cell.condition for run in runs} == {"with-skill-all"}
        assert {run.cell.model for run in runs} == set(plan.role("noise", agent))
        assert len(plan.role("noise", agent)) == 1
