"""``m4bench analyze``: the paper's statistics, tables, figures and report for one or
more inputs (campaigns, folders of runs, runs CSVs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from m4bench.analysis import (
    ANALYSIS_STEPS,
    PAPER_RELEASE_V1,
    AnalysisSettings,
    analyze,
    headline_document,
)
from m4bench.analysis.bootstrap import DEFAULT_PERMUTATION_REPS, DEFAULT_REPS, DEFAULT_SEED
from m4bench.cli.common import make_console
from m4bench.errors import M4BenchError
from m4bench.viewer import VIEW_DIR, build_view


def analyze_command(
    sources: Annotated[
        list[str],
        typer.Argument(
            help=f"One or more inputs: a runs CSV, a results folder (a campaign's, or "
            f"m4bench run --results DIR, or one run's), Inspect eval logs, or "
            f"'{PAPER_RELEASE_V1}' (the shipped 760 released Codex runs). Runs of several "
            f"inputs are kept apart by agent and model.",
            metavar="INPUT...",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Directory for tables, figures, report.")],
    reps: Annotated[int, typer.Option(min=100, help="Bootstrap replicates.")] = DEFAULT_REPS,
    seed: Annotated[int, typer.Option(help="Seed of every resampling draw.")] = DEFAULT_SEED,
    permutation_reps: Annotated[
        int, typer.Option(min=100, help="Sign-flip permutation replicates.")
    ] = DEFAULT_PERMUTATION_REPS,
    baseline: Annotated[str, typer.Option(help="Baseline condition.")] = "no-skill",
    treatment: Annotated[str, typer.Option(help="Treatment condition.")] = "with-skill",
    include_unpublishable: Annotated[
        bool,
        typer.Option("--include-unpublishable", help="Also analyse runs not flagged publishable."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the headline estimands as JSON on stdout.")
    ] = False,
    view: Annotated[
        bool,
        typer.Option(
            "--view",
            help="Also write the run viewer's site of the results folder into OUT/view; "
            "the report links each cell to its runs there (docs/viewer.md).",
        ),
    ] = False,
) -> None:
    """Reproduce the paper's statistics for one or more inputs and write report.html."""
    settings = AnalysisSettings(
        reps=reps,
        seed=seed,
        permutation_reps=permutation_reps,
        baseline=baseline,
        treatment=treatment,
        include_unpublishable=include_unpublishable,
    )
    console = make_console(stderr=True)
    if view:
        _write_view(sources, out)
    columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=as_json) as progress:
        bar = progress.add_task("analysis", total=len(ANALYSIS_STEPS))

        def step(name: str) -> None:
            progress.update(bar, advance=1, description=f"analysis: {name} done")

        try:
            result = analyze(sources, out, settings, step)
        except BaseException:
            progress.update(bar, visible=False)  # the error alone says what happened
            raise
    if as_json:
        typer.echo(json.dumps(headline_document(result).model_dump(mode="json"), indent=2))
        return
    for item in result.headline:
        console.print(
            f"{item.agent:>12} {item.metric:>20} {item.scope:>14}: "
            f"{item.baseline:.3f} → {item.treatment:.3f} "
            f"Δ {item.delta:+.3f} [{item.ci_low:.3f}, {item.ci_high:.3f}] "
            f"{item.improved}/{item.total}",
            highlight=False,
        )
    console.print(f"report: {out / 'report.html'}", highlight=False)


def _write_view(sources: list[str], out: Path) -> None:
    """The viewer's site of the one results folder analysed, beside the report."""
    folders = [Path(source) for source in sources if Path(source).is_dir()]
    if len(sources) != 1 or len(folders) != 1:
        raise M4BenchError(
            "--view shows the runs of one results folder; the inputs are " + ", ".join(sources),
            hint="analyse one results folder with --view, or run `m4bench view RESULTS "
            f"--out {out / VIEW_DIR}` for the folder whose runs the report should link to",
        )
    build_view(folders[0], out / VIEW_DIR)
