"""``m4bench demo``: the whole system on synthetic data, with a per-stage timing table."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from m4bench.cli.campaign_progress import LiveProgress
from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.demo import DemoOptions, DemoReport, StageResult, run_demo

ENDPOINT_ENV = "M4BENCH_REACT_ENDPOINT"
MODEL_ENV = "M4BENCH_REACT_MODEL"
_STYLE = {"done": "green", "reused": "cyan", "unavailable": "yellow", "failed": "red"}


def demo_command(
    small: Annotated[
        bool, typer.Option("--small", help="A few tasks on ~100 stays (about a minute).")
    ] = False,
    react_endpoint: Annotated[
        str | None,
        typer.Option(
            "--react-endpoint",
            help=f"OpenAI-compatible base URL: adds the react agent (or ${ENDPOINT_ENV}).",
        ),
    ] = None,
    react_model: Annotated[
        str | None, typer.Option("--react-model", help=f"Model for react (or ${MODEL_ENV}).")
    ] = None,
    sandbox: Annotated[str, typer.Option("--sandbox", help="bwrap, docker or none.")] = "bwrap",
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bars.")] = False,
    results: Annotated[
        Path | None,
        typer.Option(
            "--results",
            help="Folder of this demo's campaign, analysis, audit and package (default: "
            "<home>/demo/<full|small>); a demo with other options needs its own.",
        ),
    ] = None,
    home: HomeOption = None,
) -> None:
    """Build the synthetic data, run a sandboxed campaign, analyze, audit and package it."""
    console = make_console()
    endpoint = react_endpoint or os.environ.get(ENDPOINT_ENV) or None
    options = DemoOptions(
        small=small,
        react_endpoint=endpoint,
        react_model=react_model or os.environ.get(MODEL_ENV) or "default",
        sandbox=sandbox,
        progress=not quiet,
        campaign_progress=None if quiet else LiveProgress,
        results=results,
    )

    def show(stage: StageResult) -> None:
        style = _STYLE[stage.status]
        console.print(
            f"[{style}]{stage.status:>11}[/] {stage.name} ({stage.seconds:.1f} s): "
            f"{escape(stage.detail)}",
            highlight=False,
        )

    report = run_demo(resolve_home(home), options, show)
    console.print(timing_table(report))
    _where(console, report)
    if report.failed:
        raise typer.Exit(1)


def timing_table(report: DemoReport) -> Table:
    table = Table(title="demo stages")
    for header in ("stage", "status", "seconds"):
        table.add_column(header, justify="right" if header == "seconds" else "left")
    for stage in report.stages:
        style = _STYLE[stage.status]
        table.add_row(stage.name, f"[{style}]{stage.status}[/]", f"{stage.seconds:.1f}")
    table.add_row("total", "", f"{sum(s.seconds for s in report.stages):.1f}")
    return table


def _where(console: Console, report: DemoReport) -> None:
    if report.report_html is not None:
        console.print(f"report: {_uri(report.report_html)}", highlight=False)
    if report.package is not None:
        console.print(f"evidence package: {report.package}", highlight=False)
    console.print(f"everything else: {report.out}", highlight=False)


def _uri(path: Path) -> str:
    return path.resolve().as_uri()
