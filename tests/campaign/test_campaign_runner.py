"""A campaign of real runner runs (the oracle agent, no sandbox) on a tiny synthetic source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from synthetic_sources import SyntheticSources
from typer.testing import CliRunner

from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    ResultsDir,
    RetryPolicy,
    RunSettings,
    campaign_status,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.runner_bridge import RunnerRunFn, spec_for
from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.results import PlannedRun, RunSpec, read_result, read_results
from m4bench.runner import RunOptions, execute_run
from m4bench.tasks.catalog import Catalog, load_catalog
from m4bench.tasks.mutants import catalog_mutant_source

pytestmark = pytest.mark.slow

SOURCE = "campaign-mimic"
TASK = "mimic-meld-24h"
PROFILE = f"""
name = "oracle"
default_agent = "oracle"
trials = 2
[agents.oracle]
provider = "local"
models = {{ primary = ["default"] }}
[[blocks]]
name = "b"
tasks = ["{TASK}"]
conditions = ["no-skill", "with-skill"]
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    data = DataHome(tmp_path_factory.mktemp("campaign-home"))
    synthetic_sources.copy(data, SOURCE, "mimic-iv", 40, 3)
    setup(data, SOURCE, [TASK], "native", progress=False)
    return data


def test_oracle_campaign_records_runner_results_once(tmp_path: Path, home: DataHome) -> None:
    profile_path = tmp_path / "oracle.toml"
    profile_path.write_text(PROFILE, encoding="utf-8")
    runs = plan_campaign(load_profile(str(profile_path)))
    results = tmp_path / "results"
    run_fn = RunnerRunFn(
        home=home.root, results=results, sources={"mimic-iv": SOURCE}, sandbox="none"
    )
    # The first run finished inside the runner, but its campaign died before recording.
    execute_run(
        spec_for(runs[0]),
        home=home,
        source=SOURCE,
        results_dir=results / "work",
        options=RunOptions(sandbox="none"),
    )
    report = run_campaign(
        ResultsDir(results),
        runs,
        LocalExecutor(run_fn, 2, RetryPolicy()),
        DriverSettings("oracle", resume=True),
    )
    assert report.done == 4 and report.missing == 0
    # One record per run, the runner's, under runs/ only: no copy is left under work/.
    assert sorted(p.parent.name for p in results.rglob("result.json")) == sorted(
        run.run_id for run in runs
    )
    records = [item.record for item in read_results(results)]
    assert all(r.reward == 1.0 and r.status == "ok" and not r.simulated for r in records)
    assert all(r.score is not None and r.score.reward == 1.0 for r in records)
    # Each task's runs name the one ground truth they were all scored against.
    truths = {(r.identity.task, r.ground_truth.sha256) for r in records if r.ground_truth}
    assert len(truths) == len({r.identity.task for r in records}) == 1
    assert campaign_status(ResultsDir(results)).mixed_truths == {}
    adopted = results / "work" / runs[0].run_id
    assert sorted(p.name for p in adopted.glob("attempt-*")) == ["attempt-1"]


MUTANT = "mutant:bilirubin-not-floored"
MUTANT_PROFILE = f"""
name = "mutant"
default_agent = "{MUTANT}"
trials = 1
[agents."{MUTANT}"]
provider = "local"
models = {{ primary = ["default"] }}
[[blocks]]
name = "b"
tasks = ["{TASK}"]
conditions = ["no-skill", "with-skill"]
"""


def test_mutant_agents_run_in_a_campaign_as_in_m4bench_run(tmp_path: Path, home: DataHome) -> None:
    """The campaign's runner gets the catalog's mutants, as ``m4bench run`` does."""
    profile_path = tmp_path / "mutant.toml"
    profile_path.write_text(MUTANT_PROFILE, encoding="utf-8")
    runs = plan_campaign(load_profile(str(profile_path)))
    results = tmp_path / "results"
    run_fn = RunnerRunFn(
        home=home.root, results=results, sources={"mimic-iv": SOURCE}, sandbox="none"
    )
    report = run_campaign(
        ResultsDir(results), runs, LocalExecutor(run_fn, 2, RetryPolicy()), DriverSettings("m")
    )
    assert report.infra_errors == 0 and report.done == len(runs) == 2
    catalog = load_catalog()
    single = execute_run(
        spec_for(runs[0]),
        home=home,
        source=SOURCE,
        results_dir=tmp_path / "single",
        options=RunOptions(sandbox="none", mutants=catalog_mutant_source(catalog)),
    )
    assert single.status == "ok"
    recorded = read_result(ResultsDir(results).result_path(runs[0].run_id))
    assert recorded.identity.agent == MUTANT and recorded.status == "ok"
    assert recorded.reward == single.reward


def test_cli_names_the_fix_and_refuses_resuming_on_another_source(
    tmp_path: Path, home: DataHome
) -> None:
    profile_path = tmp_path / "two.toml"
    profile_path.write_text(
        PROFILE.replace(f'tasks = ["{TASK}"]', f'tasks = ["{TASK}", "mimic-sofa-24h"]')
        .replace("trials = 2", "trials = 1")
        .replace('conditions = ["no-skill", "with-skill"]', 'conditions = ["no-skill"]'),
        encoding="utf-8",
    )
    results = tmp_path / "results"
    command = [
        "campaign", "run", str(profile_path), "--results", str(results), "--no-progress",
        "--home", str(home.root), "--sandbox", "none",
    ]  # fmt: skip
    first = CliRunner().invoke(app, [*command, "--source", f"mimic-iv={SOURCE}"])
    assert first.exit_code == 1, first.output
    assert "1/2 complete" in first.output
    # The never set up task's error comes with the command that sets it up.
    assert f"hint: build it with `m4bench setup --source {SOURCE} --task mimic-sofa-24h`" in (
        first.output
    )
    attempts = sorted(results.glob("runs/*/attempts/*.json"))
    other = CliRunner().invoke(app, [*command, "--resume", "--source", "mimic-iv=other-mimic"])
    assert isinstance(other.exception, M4BenchError), other.output
    assert f"--source mimic-iv: recorded '{SOURCE}', given 'other-mimic'" in str(other.exception)
    assert sorted(results.glob("runs/*/attempts/*.json")) == attempts, "nothing ran"


def test_a_campaign_recorded_with_a_wrong_setting_resumes_with_the_right_one(
    tmp_path: Path, home: DataHome
) -> None:
    """Until a run is complete there is nothing to mix, so --resume corrects a setting
    (here the sandbox that made every run an infrastructure error); the first result
    then fixes the settings."""
    profile_path = tmp_path / "one.toml"
    profile_path.write_text(
        PROFILE.replace("trials = 2", "trials = 1").replace(
            'conditions = ["no-skill", "with-skill"]', 'conditions = ["no-skill"]'
        ),
        encoding="utf-8",
    )
    runs = plan_campaign(load_profile(str(profile_path)))
    results = ResultsDir(tmp_path / "results")
    sources = {"eicu": "synthetic-eicu", "mimic-iv": SOURCE}
    bogus = RunSettings(simulated=False, sources=sources, sandbox="bogus")
    results.open_campaign("oracle", runs, resume=False, settings=bogus)  # as once written
    claim = results.try_claim(runs[0])
    assert claim is not None
    results.abandon(claim, "InfrastructureError: unknown sandbox 'bogus'")
    command = [
        "campaign", "run", str(profile_path), "--results", str(results.root), "--no-progress",
        "--home", str(home.root), "--source", f"mimic-iv={SOURCE}", "--resume",
    ]  # fmt: skip
    fixed = CliRunner().invoke(app, [*command, "--sandbox", "none"])
    assert fixed.exit_code == 0, fixed.output
    assert "1/1 complete (1 done and 0 failed now, 0 before)" in fixed.output
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings is not None
    assert manifest.settings.sandbox == "none"
    other = CliRunner().invoke(app, [*command, "--sandbox", "bwrap"])
    assert isinstance(other.exception, M4BenchError), other.output
    assert "--sandbox: recorded 'none', given 'bwrap'" in other.exception.message


LATE_PROFILE = f"""
name = "late"
default_agent = "replay"
trials = 1
[agents.replay]
provider = "local"
models = {{ primary = ["late"] }}
[[blocks]]
name = "b"
tasks = ["{TASK}"]
conditions = ["no-skill"]
[timeouts]
default_seconds = 3
"""


@dataclass(frozen=True)
class LateAnswer:
    """The replay file of each run: write a complete answer, then hang past the timeout."""

    answer: str
    folder: Path

    def __call__(self, home: DataHome, source: str, run: PlannedRun, catalog: Catalog) -> Path:
        path = self.folder / f"{run.run_id}.py"
        body = f"import time\nopen('output.csv', 'w').write({self.answer!r})\ntime.sleep(60)\n"
        path.write_text(body, encoding="utf-8")
        return path


def test_a_run_killed_after_a_complete_output_keeps_its_score(
    tmp_path: Path, home: DataHome
) -> None:
    """The runner scores the output whatever happened; the campaign keeps the runner's
    record as the run's only record, so its reward is the score, and the run counts as
    a failed one (its status is timeout)."""
    oracle = execute_run(
        RunSpec(task=TASK, agent="oracle"),
        home=home,
        source=SOURCE,
        results_dir=tmp_path / "oracle",
        options=RunOptions(sandbox="none"),
    )
    answer = tmp_path / "oracle" / oracle.run_id / oracle.artifacts["output.csv"].path
    profile_path = tmp_path / "late.toml"
    profile_path.write_text(LATE_PROFILE, encoding="utf-8")
    (run,) = plan_campaign(load_profile(str(profile_path)))
    results = tmp_path / "results"
    run_fn = RunnerRunFn(
        home=home.root,
        results=results,
        sources={"mimic-iv": SOURCE},
        sandbox="none",
        replay_files=LateAnswer(answer.read_text(encoding="utf-8"), tmp_path),
    )
    report = run_campaign(
        ResultsDir(results), [run], LocalExecutor(run_fn, 1, RetryPolicy()), DriverSettings("l")
    )
    assert (report.done, report.failed, report.missing) == (0, 1, 0)
    kept = read_result(ResultsDir(results).result_path(run.run_id))
    assert kept.status == "timeout" and kept.sandbox.timed_out
    assert kept.score is not None and kept.reward == kept.score.reward == 1.0
    assert not (results / "work" / run.run_id / "result.json").exists(), "one record per run"
