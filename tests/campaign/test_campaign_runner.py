"""A campaign of real runner runs (the oracle agent, no sandbox) on a tiny synthetic source."""

from __future__ import annotations

from pathlib import Path

import pytest
from profile_text import local_profile
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
from m4bench.campaign.replay import identify_runs
from m4bench.campaign.runner_bridge import RunnerRunFn, spec_for
from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.results import RunSpec, read_result, read_results
from m4bench.runner import RunOptions, execute_run
from m4bench.tasks.catalog import load_catalog
from m4bench.tasks.mutants import catalog_mutant_source

pytestmark = pytest.mark.slow

SOURCE = "campaign-mimic"
TASK = "mimic-meld-24h"
PROFILE = local_profile("oracle", [TASK], conditions=["no-skill", "with-skill"], trials=2)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    data = DataHome(tmp_path_factory.mktemp("campaign-home"))
    synthetic_sources.copy(data, SOURCE, "mimic-iv", 40, 3, concepts=True)
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


def _oracle_output(tmp_path: Path, home: DataHome) -> Path:
    """The reference answer: the output.csv of an oracle run (no sandbox)."""
    oracle = execute_run(
        RunSpec(task=TASK, agent="oracle"),
        home=home,
        source=SOURCE,
        results_dir=tmp_path / "oracle",
        options=RunOptions(sandbox="none"),
    )
    return tmp_path / "oracle" / oracle.run_id / oracle.artifacts["output.csv"].path


LATE_PROFILE = local_profile(
    "late", [TASK], ["replay"], model="late", extra="[timeouts]\ndefault_seconds = 3\n"
)


def _late_answer(answer: str, folder: Path) -> Path:
    """A folder of replay files: the task's writes a complete answer, then hangs past
    the timeout."""
    folder.mkdir()
    body = f"import time\nopen('output.csv', 'w').write({answer!r})\ntime.sleep(60)\n"
    (folder / f"{TASK}.py").write_text(body, encoding="utf-8")
    return folder


def test_a_run_killed_after_a_complete_output_keeps_its_score(
    tmp_path: Path, home: DataHome
) -> None:
    """The runner scores the output whatever happened; the campaign keeps the runner's
    record as the run's only record, so its reward is the score, and the run counts as
    a failed one (its status is timeout)."""
    answer = _oracle_output(tmp_path, home)
    profile_path = tmp_path / "late.toml"
    profile_path.write_text(LATE_PROFILE, encoding="utf-8")
    replay = _late_answer(answer.read_text(encoding="utf-8"), tmp_path / "late")
    (run,) = identify_runs(plan_campaign(load_profile(str(profile_path))), replay, None)
    results = tmp_path / "results"
    run_fn = RunnerRunFn(
        home=home.root, results=results, sources={"mimic-iv": SOURCE}, sandbox="none", replay=replay
    )
    report = run_campaign(
        ResultsDir(results), [run], LocalExecutor(run_fn, 1, RetryPolicy()), DriverSettings("l")
    )
    assert (report.done, report.failed, report.missing) == (0, 1, 0)
    kept = read_result(ResultsDir(results).result_path(run.run_id))
    assert kept.status == "timeout" and kept.sandbox.timed_out
    assert kept.score is not None and kept.reward == kept.score.reward == 1.0
    assert not (results / "work" / run.run_id / "result.json").exists(), "one record per run"


REPLAY_PROFILE = local_profile(
    "replays", [TASK], ["replay"], model="mine", trials=2, settings='replay = "answers"'
)


def _replay_campaign(tmp_path: Path, home: DataHome) -> tuple[Path, Path]:
    """A profile whose replay runs replay answers/<task>.sql (the reference answer, read
    from an oracle run's output), and a file of a wrong answer."""
    output = _oracle_output(tmp_path, home)
    answers = tmp_path / "profile" / "answers"
    answers.mkdir(parents=True)
    (answers / f"{TASK}.sql").write_text(f"SELECT * FROM read_csv('{output}')", encoding="utf-8")
    wrong = tmp_path / "wrong.sql"
    wrong.write_text(
        "SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays",
        encoding="utf-8",
    )
    profile = tmp_path / "profile" / "replays.toml"
    profile.write_text(REPLAY_PROFILE, encoding="utf-8")
    return profile, wrong


def test_a_campaign_of_replay_runs_and_its_resume_with_the_recorded_options(
    tmp_path: Path, home: DataHome
) -> None:
    """The profile's replay folder (relative to the profile) or --replay gives each run
    its file, whose digest is in the run's id; --resume takes the recorded options."""
    profile, wrong = _replay_campaign(tmp_path, home)
    right_dir, wrong_dir = tmp_path / "right", tmp_path / "wrong"
    base = ["campaign", "run", "--no-progress", "--home", str(home.root)]
    options = ["--sandbox", "none", "--source", f"mimic-iv={SOURCE}"]
    first = CliRunner().invoke(app, [*base, str(profile), "--results", str(right_dir), *options])
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(
        app,
        [*base, str(profile), "--results", str(wrong_dir), *options, "--replay", str(wrong)],
    )
    assert second.exit_code == 0, second.output
    right_records = [item.record for item in read_results(right_dir)]
    wrong_records = [item.record for item in read_results(wrong_dir)]
    assert [r.reward for r in right_records] == [1.0, 1.0]
    assert all(r.reward < 1.0 for r in wrong_records) and len(wrong_records) == 2
    assert {r.identity.replay_sha256 for r in right_records} != {
        r.identity.replay_sha256 for r in wrong_records
    }
    assert not {r.run_id for r in right_records} & {r.run_id for r in wrong_records}
    # --resume with the results folder alone: the recorded profile, source, sandbox
    # and replay file are taken again.
    resumed = CliRunner().invoke(app, [*base, "--results", str(wrong_dir), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "2/2 complete (0 done and 0 failed now, 2 before)" in resumed.output
    # A different option given explicitly is refused, naming it and the recorded value.
    other = tmp_path / "other.sql"
    other.write_text("SELECT 1 AS stay_id", encoding="utf-8")
    for option, value, recorded in (
        ("--sandbox", "bwrap", "'none'"),
        ("--replay", str(other), repr(str(wrong))),
    ):
        refused = CliRunner().invoke(
            app, [*base, "--results", str(wrong_dir), "--resume", option, value]
        )
        assert isinstance(refused.exception, M4BenchError), refused.output
        assert f"{option}: recorded {recorded}, given " in refused.exception.message
