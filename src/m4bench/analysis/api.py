"""Entry points: resolve a source, analyse it and write every output."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

from pydantic import BaseModel

from m4bench.analysis.estimands import Estimate
from m4bench.analysis.figures import write_figures
from m4bench.analysis.load_results import load_results_dir, planned_run_ids
from m4bench.analysis.pipeline import AnalysisResult, LoadedInput, analyze_inputs
from m4bench.analysis.report import render_report
from m4bench.analysis.runs import RunRow
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import write_table
from m4bench.analysis.view_links import view_beside
from m4bench.errors import M4BenchError
from m4bench.fileio import canonical_json, write_shareable
from m4bench.results.layout import RESULT_FILE
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
    """Runs of a source (``paper-release-v1``, a runs CSV, a results folder or one run's
    folder or ``result.json``, or Inspect eval logs of the m4bench tasks: a log file or
    a folder of them), and the source's name (its file or folder name)."""
    loaded = load_input(source)
    return loaded.runs, loaded.label


def load_input(source: str | Path, label: str | None = None) -> LoadedInput:
    """One input: its runs, its name, and the run ids its campaign planned (a campaign's
    folder only)."""
    if str(source) == PAPER_RELEASE_V1:
        return LoadedInput(label or PAPER_RELEASE_V1, load_runs_csv(paper_release_csv()))
    # imported here: the log reader reads RunRow through this package
    from m4bench.integrations.inspect_logs import holds_eval_logs, load_inspect_logs

    path = Path(source)
    name = label or input_names([path])[0]
    if holds_eval_logs(path):
        return LoadedInput(name, load_inspect_logs(path))
    if path.is_dir():
        return LoadedInput(name, load_results_dir(path), planned_run_ids(path)[0])
    if path.is_file() and path.name == RESULT_FILE:
        return LoadedInput(name, load_results_dir(path))
    if path.is_file():
        return LoadedInput(name, load_runs_csv(path))
    raise M4BenchError(
        f"{path}: no such runs CSV or results directory",
        hint=f"pass a runs CSV, a results directory or '{PAPER_RELEASE_V1}'",
    )


def input_names(sources: Sequence[str | Path]) -> list[str]:
    """What the report calls each input: its file or folder name (``paper-release-v1``
    for the shipped file), with as many parent folders as it takes to tell two apart."""
    paths = [Path(str(source)).resolve() for source in sources]
    names: list[str] = []
    for source, path in zip(sources, paths, strict=True):
        if str(source) == PAPER_RELEASE_V1:
            names.append(PAPER_RELEASE_V1)
            continue
        depth = 1
        while depth < len(path.parts) and any(
            other != path and other.parts[-depth:] == path.parts[-depth:] for other in paths
        ):
            depth += 1
        names.append("/".join(path.parts[-depth:]))
    return names


def load_inputs(sources: Sequence[str | Path]) -> list[LoadedInput]:
    """Every input, each named as :func:`input_names` says; one input given twice is
    an error."""
    names = input_names(sources)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise M4BenchError(
            f"input {repeated[0]} is given more than once",
            hint="pass each runs CSV or results folder once",
        )
    return [load_input(source, name) for source, name in zip(sources, names, strict=True)]


class HeadlineDocument(BaseModel):
    """The headline estimands as one JSON document."""

    source: str
    inputs: list[str]
    reps: int
    seed: int
    headline: list[Estimate]
    comparisons: list[Estimate]


def headline_document(result: AnalysisResult) -> HeadlineDocument:
    return HeadlineDocument(
        source=result.source,
        inputs=result.inputs,
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
    write_shareable(out / REPORT_FILE, render_report(result, pngs, view_beside(out)))
    step("report")
    document = headline_document(result).model_dump(mode="json")
    write_shareable(out / HEADLINE_FILE, canonical_json(document))
    step("headline")


def analyze(
    source: str | Path | Sequence[str | Path],
    out: Path,
    settings: AnalysisSettings | None = None,
    progress: Progress | None = None,
) -> AnalysisResult:
    """Load one source or several, run every estimand and write every output under
    ``out``. Runs of several inputs are kept apart by agent and model."""
    step = progress or (lambda _name: None)
    _check_out(out)
    sources = [source] if isinstance(source, str | Path) else list(source)
    if not sources:
        raise M4BenchError("no input to analyse", hint="pass a runs CSV or a results folder")
    inputs = load_inputs(sources)
    step("load")
    result = analyze_inputs(inputs, settings or AnalysisSettings())
    step("estimands")
    write_outputs(result, out, step)
    return result


ANALYSIS_STEPS = ("load", "estimands", "tables", "figures", "report", "headline")
"""The progress steps ``analyze`` reports, in order."""
