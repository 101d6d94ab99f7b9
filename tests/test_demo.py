"""The demo end to end at its small size: every stage, a report Chromium renders, a
verified package free of the run's identifiers, and a second run that reuses everything."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap

from m4bench.demo import DemoOptions, DemoReport, run_demo
from m4bench.demo.profile import SMALL_TASKS
from m4bench.demo.run import demo_sources
from m4bench.evidence import verify_package
from m4bench.evidence.archive import read_archive
from m4bench.home import DataHome
from m4bench.results import read_results
from m4bench.tasks.catalog import Catalog

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
STAGES = [
    "sources", "concepts", "provisioning", "preflight", "campaign", "analysis",
    "validity audit", "evidence",
]  # fmt: skip
IDENTIFIERS = ("subject_id", "hadm_id", "stay_id", "patientunitstayid")


pytestmark = [pytest.mark.xdist_group("demo"), *needs_bwrap]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[DataHome, DemoReport]:
    home = DataHome(tmp_path_factory.mktemp("demo-home"))
    return home, run_demo(home, DemoOptions(small=True, progress=False))


def test_every_stage_runs(demo: tuple[DataHome, DemoReport]) -> None:
    _, report = demo
    assert [s.name for s in report.stages] == STAGES
    bad = [(s.name, s.detail) for s in report.stages if s.status not in ("done", "reused")]
    assert not bad
    campaign = next(s for s in report.stages if s.name == "campaign")
    assert re.match(r"(\d+)/\1 runs", campaign.detail), campaign.detail


def test_only_the_tasks_it_runs_are_provisioned(
    demo: tuple[DataHome, DemoReport], catalog: Catalog
) -> None:
    home, _ = demo
    names = demo_sources(small=True)
    provisioned = {
        path.name
        for source in (names.mimic, names.eicu)
        for path in home.tasks.glob(f"{source}/*/*")
    }
    assert provisioned & set(catalog.names) == set(SMALL_TASKS)


def test_oracle_scores_one_and_the_wrong_answers_less(demo: tuple[DataHome, DemoReport]) -> None:
    _, report = demo
    rewards: dict[str, list[float]] = {}
    for stored in read_results(report.out / "results"):
        record = stored.record
        assert record.publishable and not record.simulated, record.run_id
        rewards.setdefault(record.identity.agent, []).append(record.reward)
    assert set(rewards) == {"oracle", "replay", "mutant:first"}
    assert all(r == 1.0 for r in rewards["oracle"])
    assert all(r < 1.0 for r in rewards["replay"] + rewards["mutant:first"])


def test_package_verifies_and_holds_no_identifier_of_the_run(
    demo: tuple[DataHome, DemoReport],
) -> None:
    _, report = demo
    assert report.package is not None
    assert verify_package(report.package).passed
    values: set[str] = set()
    for output in (report.out / "results" / "work").glob("*/attempt-*/output.csv"):
        for row in csv.DictReader(io.StringIO(output.read_text(encoding="utf-8"))):
            values.update(row[c] for c in IDENTIFIERS if row.get(c))
            values.update(v for k, v in row.items() if v and ("time" in k or "date" in k))
    assert values
    members = read_archive(report.package)
    text = "\n".join(m.decode("utf-8") for m in members.values())
    numbers = set(re.findall(r"(?<![\w.])\d+(?![\w.])", text))
    leaked = [v for v in values if (v in numbers if v.isdigit() else v in text)]
    assert not leaked[:5]
    assert str(report.out) not in text


@pytest.mark.chromium
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_report_opens_in_headless_chromium(
    demo: tuple[DataHome, DemoReport], tmp_path: Path
) -> None:
    _, report = demo
    assert report.report_html is not None
    done = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         report.report_html.resolve().as_uri()],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert 'id="integrity"' in done.stdout
    assert "mimic-sofa-24h" in done.stdout


def test_a_second_run_reuses_data_and_runs(demo: tuple[DataHome, DemoReport]) -> None:
    home, first = demo
    again = run_demo(home, DemoOptions(small=True, progress=False))
    status = {s.name: s.status for s in again.stages}
    for name in ("sources", "concepts", "provisioning", "campaign", "validity audit"):
        assert status[name] == "reused", (name, status)
    assert again.package is not None and first.package is not None
    assert verify_package(again.package).passed


def test_an_endpoint_adds_react_on_two_tasks_under_both_conditions() -> None:
    from m4bench.campaign import PlanOptions, facts_from_catalog, plan_campaign
    from m4bench.demo.profile import demo_agents, demo_profile

    tasks = list(SMALL_TASKS)
    profile = demo_profile(tasks, react_model="qwen3:14b")
    runs = plan_campaign(profile, PlanOptions(agents=demo_agents(True)), facts_from_catalog())
    react = [r for r in runs if r.cell.agent == "react"]
    assert {(r.cell.task, r.cell.condition, r.cell.model) for r in react} == {
        (t, c, "qwen3:14b")
        for t in ("mimic-sofa-24h", "eicu-gcs")
        for c in ("no-skill", "with-skill")
    }
    without = plan_campaign(
        demo_profile(tasks), PlanOptions(agents=demo_agents(False)), facts_from_catalog()
    )
    assert len(runs) == len(without) + 4
