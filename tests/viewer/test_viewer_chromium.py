"""The view of a real campaign (the oracle and a known-wrong mutant on a tiny synthetic
source), rendered in headless Chromium: every page renders, quiet and offline, every
link resolves, the index filters to one cell, and no truth value reaches a shared page."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pytest
from matplotlib import image
from profile_text import local_profile
from synthetic_sources import SyntheticSources
from typer.testing import CliRunner
from viewer_runs import hostile_run

from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    ResultsDir,
    RetryPolicy,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.plan import PlanOptions
from m4bench.campaign.runner_bridge import RunnerRunFn
from m4bench.cli import app
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.results import artifact_root, read_results
from m4bench.sql import quote_literal
from m4bench.viewer import build_view, index_link, page_name

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (scripts/system-deps.sh installs it)"
    ),
]

SOURCE = "viewer-mimic"
TASK = "mimic-meld-24h"
MUTANT = "mutant:bilirubin-not-floored"
PROFILE = local_profile("viewer", [TASK], ["oracle", MUTANT], ["no-skill", "with-skill"])


@dataclass
class Rendering:
    dom: str
    pixels: np.ndarray
    console: list[str]
    page_requests: list[str]


def _page_requests(net_log: Path) -> list[str]:
    """URLs the page itself asked for (browser housekeeping has no file:// partition)."""
    log = json.loads(net_log.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [
        event["params"]["url"]
        for event in log["events"]
        if event["type"] == start
        and "file://" in event.get("params", {}).get("network_isolation_key", "")
    ]


def render(url: str, work: Path) -> Rendering:
    """``url`` in headless Chromium: its DOM after scripts ran, a screenshot (kept in
    ``work``), the console lines and the requests the page made."""
    work.mkdir(parents=True, exist_ok=True)
    shot, net_log = work / "shot.png", work / "net.json"
    done = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={work / 'profile'}", "--enable-logging=stderr",
         "--v=0", f"--log-net-log={net_log}", f"--screenshot={shot}", "--dump-dom",
         "--window-size=1280,1600", url],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return Rendering(done.stdout, image.imread(shot), console, _page_requests(net_log))


def _check_rendered(seen: Rendering) -> None:
    assert seen.console == [], seen.console
    assert all(url.startswith(("file:", "data:")) for url in seen.page_requests), seen.page_requests
    rgb = seen.pixels[..., :3]
    assert float(rgb.std()) > 0.05  # not blank
    assert float((rgb.mean(axis=2) < 0.5).mean()) > 0.002  # some dark text on the page


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> Path:
    """A campaign's folder: the oracle and a mutant, with and without the skill."""
    work = tmp_path_factory.mktemp("viewer-campaign")
    home = DataHome(work / "home")
    synthetic_sources.copy(home, SOURCE, "mimic-iv", 40, 3, concepts=True)
    setup(home, SOURCE, [TASK], "native", progress=False)
    profile = work / "viewer.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    runs = plan_campaign(load_profile(str(profile)), PlanOptions(agents=("oracle", MUTANT)))
    results = work / "results"
    run_fn = RunnerRunFn(
        home=home.root, results=results, sources={"mimic-iv": SOURCE}, sandbox="none"
    )
    report = run_campaign(
        ResultsDir(results), runs, LocalExecutor(run_fn, 2, RetryPolicy()), DriverSettings("v")
    )
    assert report.done == len(runs) == 4
    return results


def _visible_rows(dom: str) -> list[str]:
    rows = re.findall(r"<tr (data-task[^>]*)>", dom)
    return [row for row in rows if "hidden" not in row]


def test_the_view_of_a_campaign_renders_and_every_link_resolves(
    campaign: Path, tmp_path: Path
) -> None:
    built = build_view(campaign, tmp_path / "view")
    index = render(built.index.as_uri(), tmp_path / "shots" / "index")
    _check_rendered(index)
    assert len(_visible_rows(index.dom)) == 4 and "4 of 4 runs shown" in index.dom
    links = re.findall(r'<a href="(run/[^"]+)"', index.dom)
    assert sorted(links) == sorted(f"run/{page_name(s.run_id)}" for s in read_results(campaign))
    for number, link in enumerate(links):
        page = built.out / html.unescape(link)
        assert page.is_file(), link
        seen = render(page.as_uri(), tmp_path / "shots" / f"run-{number}")
        _check_rendered(seen)
        assert 'id="trajectory"' in seen.dom and "run_sql" in seen.dom
        back = re.findall(r'<a href="(\.\./index\.html[^"]*)"', seen.dom)
        assert back and all((page.parent / html.unescape(h).split("#")[0]).is_file() for h in back)


def test_a_link_to_one_cell_shows_its_runs_only(campaign: Path, tmp_path: Path) -> None:
    built = build_view(campaign, tmp_path / "view")
    cell = {"task": TASK, "condition": "with-skill", "agent": MUTANT}
    seen = render(index_link(built.index.as_uri(), cell), tmp_path / "shots")
    assert seen.console == []
    [row] = _visible_rows(seen.dom)
    assert f'data-agent="{MUTANT}"' in row and 'data-condition="with-skill"' in row
    assert "1 of 4 runs shown" in seen.dom


def _hidden_truth(campaign: Path, run_id: str) -> set[str]:
    """Truth values of cells the run got wrong that its own output never holds."""
    root = artifact_root(campaign, run_id)
    diff = next(root.glob("attempt-*/diff.parquet"))
    with duckdb.connect() as con:
        found = con.execute(
            f"SELECT meld__truth FROM read_parquet({quote_literal(str(diff))}) "
            "WHERE status = 'mismatch' AND NOT meld__match"
        ).fetchall()
    output = next(root.glob("attempt-*/output.csv")).read_text(encoding="utf-8")
    agent_values = {line.rsplit(",", 1)[-1] for line in output.splitlines()}
    return {str(value) for (value,) in found if value is not None} - agent_values


def _cells(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    return {html.unescape(cell) for cell in re.findall(r"<td[^>]*>([^<]*)</td>", text)}


def test_no_truth_value_of_a_wrong_run_reaches_its_page(campaign: Path, tmp_path: Path) -> None:
    shared = build_view(campaign, tmp_path / "shared")
    private = build_view(campaign, tmp_path / "private", with_truth=True)
    mutants = [s.record for s in read_results(campaign) if s.record.identity.agent == MUTANT]
    assert mutants
    for record in mutants:
        hidden = _hidden_truth(campaign, record.run_id)
        assert hidden, "the mutant gets some values wrong"
        name = page_name(record.run_id)
        assert not hidden & _cells(shared.out / "run" / name)
        assert hidden <= _cells(private.out / "run" / name)  # the check can fail


def test_markup_in_a_trajectory_renders_as_text(tmp_path: Path) -> None:
    run = hostile_run(tmp_path / "results")
    built = build_view(tmp_path / "results", tmp_path / "view")
    seen = render((built.out / "run" / page_name(run.run_id)).as_uri(), tmp_path / "shots")
    _check_rendered(seen)  # no alert, no error, no request for the image
    assert seen.dom.count("&lt;script&gt;alert") >= 5 and "<img" not in seen.dom
    assert 'class="sql"' in seen.dom


def test_every_cell_of_the_report_links_to_its_runs_in_the_view(
    campaign: Path, tmp_path: Path
) -> None:
    out = tmp_path / "analysis"
    done = CliRunner().invoke(
        app,
        ["analyze", str(campaign), "--out", str(out), "--view", "--include-unpublishable",
         "--reps", "100", "--permutation-reps", "100"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    report = (out / "report.html").read_text(encoding="utf-8")
    links = [html.unescape(h) for h in re.findall(r'<a href="(view/index\.html#[^"]+)"', report)]
    assert len(links) == 4  # one per cell: two agents, two conditions
    for number, link in enumerate(links):
        page, fragment = link.split("#")
        seen = render(f"{(out / page).as_uri()}#{fragment}", tmp_path / "shots" / str(number))
        assert seen.console == []
        [row] = _visible_rows(seen.dom)
        first = re.search(r'<a href="(run/[^"]+)"', seen.dom.split(row, 1)[1])
        assert first and (out / "view" / html.unescape(first.group(1))).is_file()
