"""``m4bench demo --results DIR``: a demo with other options runs in a folder of its own,
and one run into an earlier demo's folder says to pass --results."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import m4bench.campaign.launch as launch
import m4bench.cli.demo as cli_demo
from m4bench.cli import app
from m4bench.demo import DemoOptions, DemoReport
from m4bench.demo.steps import _prepared
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.results.layout import CampaignFolder


def test_results_option_reaches_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[DemoOptions] = []

    def fake_demo(home: DataHome, options: DemoOptions, on_stage: object) -> DemoReport:
        seen.append(options)
        return DemoReport(options.results or tmp_path)

    monkeypatch.setattr(cli_demo, "run_demo", fake_demo)
    where = tmp_path / "with-react"
    args = ["demo", "--small", "--quiet", "--results", str(where), "--home", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert seen[0].results == where and seen[0].small
    # the console wraps long paths at its width: read the output as one line
    assert f"everything else: {where}" in result.output.replace("\n", "")


def test_an_earlier_demos_campaign_of_other_options_is_named_with_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "demo" / "small" / "results"
    folder.mkdir(parents=True)

    def refuse(request: object) -> None:
        raise M4BenchError(
            f"{folder}: the planned runs differ from the campaign recorded here "
            "('demo', 24 runs; now 32)",
            hint="resume with the same profile and options",
        )

    monkeypatch.setattr(launch, "prepare_campaign", refuse)
    request = SimpleNamespace(results=folder)
    with pytest.raises(M4BenchError) as caught:
        _prepared(request)  # type: ignore[arg-type]
    assert "the planned runs differ" in caught.value.message  # no campaign.json yet
    CampaignFolder(folder).manifest.write_text("{}", encoding="utf-8")
    with pytest.raises(M4BenchError) as caught:
        _prepared(request)  # type: ignore[arg-type]
    assert caught.value.message.startswith(f"{folder} holds the campaign of an earlier demo")
    assert "(the planned runs differ from the campaign recorded here" in caught.value.message
    assert "pass --results DIR" in (caught.value.hint or "")
