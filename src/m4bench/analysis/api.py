"""Entry points: resolve a source, analyse it and write every output."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

from pydantic import BaseModel

from m4bench.analysis.estimands import Estimate
from m4bench.analysis.figures import write_figures
from m4bench.analysis.load_results import load_results_dir, planned_run_ids
from m4bench.analysis.pipeline import AnalysisResult, analyze_runs
from m4bench.analysis.report import render_report
from m4bench.analysis.runs import RunRow
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import write_table
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, canonical_json
from m4bench.results.release import load_runs_csv

PAPER_RELEASE_V1 = "paper-release-v1"
"""Source name of the shipped runs CSV of the paper's release v1."""

REPORT_FILE = "report.html"
HEADLINE_FILE = "headline.json"

Progress = Callable[[str], None]


def paper_release_csv() -> Path:
    """Path of the shipped CSV of the paper's 760 released Codex runs."""
    root = resources.files("m4bench.analysis").joinpath("data/paper_release_v1")
    return Path(str(root.joinpath("final_codex_runs.csv")))


def load_source(source: str | Path) -> tuple[list[RunRow], str]:
    """Runs of a source (``paper-release-v1``, a runs CSV, a results directory, or
    Inspect eval logs of the m4bench tasks: a log file or a folder of them)."""
    if str(source) == PAPER_RELEASE_V1:
        return load_runs_csv(paper_release_csv()), PAPER_RELEASE_V1
    # imported here: the log reader reads RunRow through this package
    from m4bench.integrations.inspect_logs import holds_eval_logs, load_inspect_logs

    path = Path(source)
    if holds_eval_logs(path):
        return load_inspect_logs(path), str(path)
    if path.is_dir():
        return load_results_dir(path), str(path)
    if path.is_file():
        return load_runs_csv(path), str(path)
    raise M4BenchError(
        f"{path}: no such runs CSV or results directory",
        hint=f"pass a runs CSV, a results directory or '{PAPER_RELEASE_V1}'",
    )


class HeadlineDocument(BaseModel):
    """The headline estimands as one JSON document."""

    source: str
    reps: int
    seed: int
    headline: list[Estimate]
    comparisons: list[Estimate]


def headline_document(result: AnalysisResult) -> HeadlineDocument:
    return HeadlineDocument(
        source=result.source,
        reps=result.settings.reps,
        seed=result.settings.seed,
        headline=result.headline,
        comparisons=result.comparisons,
    )


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise M4BenchError(f"{out}: exists and is not a directory", hint="choose another --out")


def _prepare(out: Path) -> None:
    _check_out(out)
    for sub in ("tables", "figures"):
        (out / sub).mkdir(parents=True, exist_ok=True)


def write_outputs(result: AnalysisResult, out: Path, progress: Progress | None = None) -> None:
    """Tables (CSV, Markdown, LaTeX), figures (PNG, SVG), report.html, headline.json."""
    step = progress or (lambda _name: None)
    _prepare(out)
    for table in result.tables:
        write_table(table, out / "tables")
    step("tables")
    pngs = write_figures(result, out / "figures")
    step("figures")
    atomic_write_text(out / REPORT_FILE, render_report(result, pngs))
    step("report")
    document = headline_document(result).model_dump(mode="json")
    atomic_write_text(out / HEADLINE_FILE, canonical_json(document))
    step("headline")


def analyze(
    source: str | Path,
    out: Path,
    settings: AnalysisSettings | None = None,
    progress: Progress | None = None,
) -> AnalysisResult:
    """Load a source, run every estimand and write every output under ``out``."""
    step = progress or (lambda _name: None)
    _check_out(out)
    runs, label = load_source(source)
    from_campaign = str(source) != PAPER_RELEASE_V1 and Path(source).is_dir()
    planned = planned_run_ids(Path(source))[0] if from_campaign else None
    step("load")
    result = analyze_runs(runs, settings or AnalysisSettings(), label, planned)
    step("estimands")
    write_outputs(result, out, step)
    return result


ANALYSIS_STEPS = ("load", "estimands", "tables", "figures", "report", "headline")
"""The progress steps ``analyze`` reports, in order."""
