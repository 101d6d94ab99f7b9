"""``m4bench preflight``: every check that can fail a campaign, with the fix for each."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.preflight import PreflightOptions, run_preflight
from m4bench.sandbox import default_sandbox_name
from m4bench.sources.defaults import DEFAULT_SOURCES


def preflight_command(
    results: Annotated[
        Path | None, typer.Option("--results", help="Results directory the campaign will use.")
    ] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", help="Profile whose tasks and schemas to check.")
    ] = None,
    source: Annotated[
        list[str] | None,
        typer.Option("--source", help="Data source per dataset, e.g. mimic-iv=mimic-iv-3.1."),
    ] = None,
    sandbox: Annotated[str | None, typer.Option("--sandbox", help="bwrap, docker or none.")] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="Agent the campaign runs (repeatable, as for `campaign run`; default: the "
            "profile's default agent).",
        ),
    ] = None,
    task: Annotated[
        list[str] | None,
        typer.Option("--task", help="Check only this task (repeatable; without --profile)."),
    ] = None,
    run_references: Annotated[
        bool, typer.Option("--run-references", help="Lint also runs every reference query.")
    ] = False,
    endpoint: Annotated[
        str | None,
        typer.Option("--endpoint", help="Model endpoint the react agent will use: is it up?"),
    ] = None,
    home: HomeOption = None,
) -> None:
    """Print each check with pass/fail and its fix; exit 1 if any fails."""
    sources = dict(DEFAULT_SOURCES)
    for item in source or []:
        dataset, sep, name = item.partition("=")
        if not sep or dataset not in sources or not name:
            raise typer.BadParameter(f"{item!r}: expected mimic-iv=NAME or eicu=NAME")
        sources[dataset] = name
    options = PreflightOptions(
        results=results,
        profile=profile,
        sources=sources,
        sandbox=sandbox or default_sandbox_name(),
        run_references=run_references,
        tasks=task or None,
        agents=tuple(agent or ()),
        endpoint=endpoint,
    )
    console = make_console()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), transient=True) as bar:
        spinner = bar.add_task("preflight", total=None)
        checks = run_preflight(
            resolve_home(home), options, lambda name: bar.update(spinner, description=name)
        )
    for check in checks:
        mark = "[green]pass[/]" if check.ok else "[red]FAIL[/]"
        console.print(f"{mark} {escape(check.name)}: {escape(check.detail)}", highlight=False)
        if not check.ok and check.fix:
            console.print(f"     [yellow]fix:[/] {escape(check.fix)}", highlight=False)
    failed = sum(1 for c in checks if not c.ok)
    console.print(f"{len(checks) - failed} passed, {failed} failed", highlight=False)
    if failed:
        raise typer.Exit(1)
