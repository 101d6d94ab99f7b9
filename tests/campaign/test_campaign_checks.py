"""`campaign plan` and `campaign run` refuse what can be known to be wrong before a
run starts (exit 2, nothing written), as `m4bench run` does: the sandbox, the sources,
the budgets, empty model names, cells no run can have, and the agents' inputs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from console_entry import m4bench
from synthetic_sources import SyntheticSources

from m4bench.campaign import load_profile, plan_campaign
from m4bench.campaign.checks import CampaignInputs, check_inputs
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.tasks.catalog import load_catalog

MIMIC = "check-mimic"
EICU = "check-eicu"
PROFILE = """
name = "checks"
default_agent = "AGENT"
trials = 1
[agents."AGENT"]
provider = "local"
models = { primary = ["default"] }
[[blocks]]
name = "b"
tasks = ["mimic-meld-24h"]
conditions = ["CONDITION"]
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    """A small source of each dataset; no task set up (these checks need none)."""
    data = DataHome(tmp_path_factory.mktemp("checks-home"))
    synthetic_sources.copy(data, MIMIC, "mimic-iv", 5, 1)
    synthetic_sources.copy(data, EICU, "eicu", 5, 1)
    return data


def profile(
    directory: Path, agent: str = "oracle", condition: str = "no-skill", **extra: str
) -> str:
    text = PROFILE.replace("AGENT", agent).replace("CONDITION", condition)
    text += "".join(f"{line}\n" for line in extra.values())
    path = directory / "checks.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def refused(
    args: list[str],
    results: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """Run the command, check it exits 2 having written nothing, return its stderr."""
    code, err = m4bench(args, monkeypatch, capsys)
    assert code == 2, err
    # --sandbox none warns first (what it does not isolate); the refusal follows.
    assert err.startswith(("error: ", "warning: --sandbox none")), err
    assert "error: " in err, err
    assert not results.exists(), "nothing is written"
    return err[err.index("error: ") :]


def test_a_wrong_sandbox_or_source_is_refused_before_anything_is_written(
    home: DataHome,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "cy1"
    run = ["campaign", "run", profile(tmp_path), "--results", str(results), "--no-progress"]
    run += ["--home", str(home.root), "--source", f"mimic-iv={MIMIC}"]
    cases = [
        (["--sandbox", "bogus"], "--sandbox 'bogus': no such sandbox"),
        (["--sandbox", "bogus", "--simulate", "seconds=0:0"], "choose one of: bwrap, docker"),
        (["--source", "mimic-iv=nosuch"], f"no source named 'nosuch' in {home.sources}"),
        (["--source", f"mimic-iv={EICU}"], f"source '{EICU}' holds eicu data, not mimic-iv"),
        (["--source", "eicu=nosuch"], "--source eicu=nosuch: no source named 'nosuch'"),
    ]
    for args, expected in cases:
        err = refused([*run, *args], results, monkeypatch, capsys)
        assert expected in err, (args, err)
    err = refused([*run, "--source", "mimic-iv=nosuch"], results, monkeypatch, capsys)
    assert "(the campaign's mimic-iv tasks read it)" in err
    assert "`m4bench data synth mimic-iv --name nosuch`" in err


def test_a_datasets_source_is_checked_when_its_tasks_are_planned(
    home: DataHome, tmp_path: Path
) -> None:
    """A MIMIC-IV only campaign does not need the eICU source; one with eICU tasks does."""
    catalog = load_catalog()
    inputs = CampaignInputs(
        home=home,
        sources={"mimic-iv": MIMIC, "eicu": "synthetic-eicu"},  # not built here
        named=frozenset({"mimic-iv"}),
        sandbox="none",
    )
    mimic_only = plan_campaign(load_profile(profile(tmp_path)))
    check_inputs(mimic_only, catalog, inputs)
    both = (
        Path(profile(tmp_path))
        .read_text()
        .replace('"mimic-meld-24h"]', '"mimic-meld-24h", "eicu-gcs"]')
    )
    (tmp_path / "both.toml").write_text(both, encoding="utf-8")
    with pytest.raises(M4BenchError) as refused:
        check_inputs(plan_campaign(load_profile(str(tmp_path / "both.toml"))), catalog, inputs)
    assert refused.value.message.startswith(
        "--source eicu=synthetic-eicu: no source named 'synthetic-eicu'"
    )
    assert refused.value.hint is not None
    assert refused.value.hint.startswith("build it with `m4bench data synth eicu`")
    check_inputs(
        mimic_only,
        catalog,
        dataclasses.replace(
            inputs, sources={**inputs.sources, "eicu": EICU}, named=frozenset({"mimic-iv", "eicu"})
        ),
    )
    wrong = dataclasses.replace(inputs, named=frozenset({"mimic-iv", "eicu"}))
    with pytest.raises(M4BenchError, match="no source named 'synthetic-eicu'"):
        check_inputs(mimic_only, catalog, wrong)  # named with --source: checked anyway
    on_ray = dataclasses.replace(wrong, local=False)
    check_inputs(mimic_only, catalog, on_ray)  # the nodes have the sources, not the driver
    with pytest.raises(M4BenchError, match="no such sandbox"):
        check_inputs(mimic_only, catalog, dataclasses.replace(on_ray, sandbox="bogus"))


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--max-cost", "-1"),
        ("--max-tokens", "-1"),
        ("--max-hours", "-1"),
        ("--max-hours", "nan"),
        ("--max-cost", "inf"),
        ("--max-tokens", "0"),
    ],
)
def test_a_budget_must_be_a_positive_finite_number(
    option: str,
    value: str,
    tmp_path: Path,
    small_profile: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "res"
    args = ["campaign", "run", str(small_profile), "--results", str(results), "--no-progress"]
    args += ["--simulate", "seconds=0:0", option, value]
    err = refused(args, results, monkeypatch, capsys)
    assert f"error: {option} " in err and "a budget must be a positive finite number" in err


def test_a_budget_in_the_profile_must_be_a_positive_finite_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "res"
    for line in ("max_cost_usd = -1.0", "max_wall_seconds = nan", "max_tokens = 0"):
        path = profile(tmp_path, budget=f"[budget]\n{line}")
        args = ["campaign", "run", path, "--results", str(results), "--simulate", "seconds=0:0"]
        err = refused(args, results, monkeypatch, capsys)
        assert f"field budget.{line.split()[0]}" in err, err


def test_an_empty_model_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "res"
    for model in ("", " "):
        err = refused(
            ["campaign", "plan", "paper-controls", "--model", model], results, monkeypatch, capsys
        )
        assert f"--model: {model!r} names nothing" in err
        args = ["campaign", "run", profile(tmp_path), "--results", str(results), "--model", model]
        err = refused([*args, "--simulate", "seconds=0:0"], results, monkeypatch, capsys)
        assert f"--model: {model!r} names nothing" in err
    blank = profile(tmp_path).replace("checks.toml", "blank.toml")
    Path(blank).write_text(PROFILE.replace('["default"]', '[""]').replace("AGENT", "oracle"))
    err = refused(["campaign", "plan", blank], results, monkeypatch, capsys)
    assert "field agents.oracle.models.primary[0]" in err


def test_a_cell_no_run_can_have_is_refused_by_plan_and_run(
    home: DataHome,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "res"
    spec = profile(tmp_path, condition="operational-spec")
    cell = "cell mimic-meld-24h|operational-spec|native|oracle|default|auto"
    run = ["run", spec, "--results", str(results), "--home", str(home.root)]
    for command in (["plan", spec], run):
        err = refused(["campaign", *command], results, monkeypatch, capsys)
        assert f"{spec}: {cell}: " in err and "the operational-spec condition needs" in err
    slow = profile(tmp_path, timeouts="[timeouts]\ndefault_seconds = 1e19")
    err = refused(["campaign", "plan", slow], results, monkeypatch, capsys)
    assert f"{slow}: the timeout of mimic-meld-24h: 1e+19 s is not a timeout" in err
    assert "give 1 to 604800 seconds" in err


def test_an_agent_that_cannot_start_is_refused(
    home: DataHome,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "res"
    run = ["campaign", "run", "--results", str(results), "--home", str(home.root)]
    run += ["--source", f"mimic-iv={MIMIC}", "--sandbox", "none", "--no-progress"]
    react = [*run[:2], profile(tmp_path, agent="react"), *run[2:]]
    err = refused(react, results, monkeypatch, capsys)
    assert "agent react: needs an endpoint" in err
    mutant = [*run[:2], profile(tmp_path, agent="mutant:no-such"), *run[2:]]
    err = refused(mutant, results, monkeypatch, capsys)
    assert "has no mutant named 'no-such'" in err
