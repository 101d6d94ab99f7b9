"""``run_demo``: the whole system from nothing, stage by stage, on synthetic data.

Stages: sources, concepts, provisioning (the campaign's tasks), preflight, campaign (oracle,
replay, mutant and, with an endpoint, react, in the sandbox), analysis, validity audit,
evidence package. Everything lives under ``<home>/demo/<size>/`` (or the folder of
``DemoOptions.results``); a second run reuses the data and the complete runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from m4bench.campaign.progress import ProgressSink
from m4bench.demo.stages import (
    DemoSources,
    Outcome,
    Unavailable,
    build_demo_concepts,
    data_stamp,
    ensure_sources,
    provision,
    reset_if_stale,
    shipped_task_names,
    validity,
)
from m4bench.demo.steps import analyze_demo, campaign, package_evidence, preflight
from m4bench.errors import M4BenchError
from m4bench.home import DataHome

StageStatus = Literal["done", "reused", "unavailable", "failed"]
SMALL_STAYS = 100
# The generator's default size: it holds every engineered rare state (all fit from 510
# MIMIC-IV stays), so every scoring bin is reached and the full demo's audit can pass.
FULL_STAYS = 1000


@dataclass(frozen=True)
class StageResult:
    name: str
    status: StageStatus
    seconds: float
    detail: str


ProgressDisplay = Callable[[], AbstractContextManager[ProgressSink]]
"""Opens a live display of the campaign's progress (the command line's)."""


@dataclass
class DemoOptions:
    small: bool = False
    react_endpoint: str | None = None
    react_model: str = "default"
    sandbox: str = "bwrap"
    seed: int = 0
    progress: bool = True
    """Progress bars of the data stages."""
    campaign_progress: ProgressDisplay | None = None
    """The campaign stage's live display; None: none."""
    results: Path | None = None
    """The folder of this demo's campaign, analysis, audit and package; None: the data
    home's ``demo/<size>/`` (a demo with other options needs a folder of its own)."""


@dataclass
class DemoReport:
    out: Path
    stages: list[StageResult] = field(default_factory=list)
    report_html: Path | None = None
    package: Path | None = None

    @property
    def failed(self) -> list[StageResult]:
        return [s for s in self.stages if s.status == "failed"]


def demo_dir(home: DataHome, small: bool) -> Path:
    return home.root / "demo" / ("small" if small else "full")


def demo_sources(small: bool) -> DemoSources:
    if small:
        return DemoSources(mimic="demo-small-mimic-iv", eicu="demo-small-eicu")
    return DemoSources(mimic="synthetic-mimic-iv", eicu="synthetic-eicu")


def run_demo(
    home: DataHome,
    options: DemoOptions | None = None,
    on_stage: Callable[[StageResult], None] | None = None,
) -> DemoReport:
    """Run every stage; a failed or unavailable stage is reported, later stages that
    need its output say they are unavailable."""
    opts = options or DemoOptions()
    out = opts.results or demo_dir(home, opts.small)
    out.mkdir(parents=True, exist_ok=True)
    names = demo_sources(opts.small)
    stays = SMALL_STAYS if opts.small else FULL_STAYS
    report = DemoReport(out)
    results = out / "results"
    tasks = _tasks(opts.small)
    show = opts.progress

    def stage(name: str, work: Callable[[], Outcome]) -> bool:
        result = _timed(name, work)
        report.stages.append(result)
        if on_stage is not None:
            on_stage(result)
        return result.status in ("done", "reused")

    data_ok = stage("sources", lambda: ensure_sources(home, names, stays, opts.seed, show))
    data_ok = data_ok and stage("concepts", lambda: build_demo_concepts(home, names, show))
    data_ok = data_ok and stage("provisioning", lambda: provision(home, names, tasks, show))
    if data_ok:
        reset_if_stale(results, data_stamp(home, names))
    ready = stage("preflight", lambda: preflight(home, names, tasks, opts.sandbox, data_ok))
    ran = stage("campaign", lambda: campaign(home, names, results, tasks, opts, ready))
    analysis = out / "analysis"
    if stage("analysis", lambda: analyze_demo(results, analysis, ran)):
        report.report_html = analysis / "report.html"
    stage("validity audit", lambda: _validity(home, names, tasks, out, data_ok, opts.small))
    package = out / "evidence.tar.zst"
    if stage("evidence", lambda: package_evidence(home, results, package, ran)):
        report.package = package
    return report


def _validity(
    home: DataHome, names: DemoSources, tasks: list[str], out: Path, ok: bool, small: bool
) -> Outcome:
    if not ok:
        raise Unavailable("the data stages did not finish")
    return validity(home, names, tasks, out, small)


def _tasks(small: bool) -> list[str]:
    from m4bench.demo.profile import SMALL_TASKS

    if small:
        return list(SMALL_TASKS)
    return shipped_task_names()


def _timed(name: str, work: Callable[[], Outcome]) -> StageResult:
    started = time.perf_counter()
    try:
        outcome = work()
    except Unavailable as exc:
        return StageResult(name, "unavailable", time.perf_counter() - started, str(exc))
    except M4BenchError as exc:
        detail = exc.message + (f" ({exc.hint})" if exc.hint else "")
        return StageResult(name, "failed", time.perf_counter() - started, detail)
    status: StageStatus = "reused" if outcome.reused else "done"
    return StageResult(name, status, time.perf_counter() - started, outcome.detail)
