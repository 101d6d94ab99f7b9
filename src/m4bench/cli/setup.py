"""``m4bench setup``: agent catalogs, ground truth and schema perturbations for tasks."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from m4bench.cli.common import HomeOption, make_console, resolve_home, source_for_tasks
from m4bench.errors import M4BenchError
from m4bench.provision.layout import SCHEMA_VARIANTS, SchemaVariant
from m4bench.provision.provisioner import SetupReport, setup


def setup_command(
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Source to provision (default: the tasks' dataset's synthetic source when "
            "built, else its only source; MIMIC-IV when no --task is given).",
        ),
    ] = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", help="A task to provision (repeatable).")
    ] = None,
    all_tasks: Annotated[
        bool, typer.Option("--all", help="Every task of the source's dataset (the default).")
    ] = False,
    schema: Annotated[
        str, typer.Option("--schema", help="native, obfuscated or restructured.")
    ] = "native",
    verify: Annotated[
        bool, typer.Option("--verify", help="Re-run each reference and compare.")
    ] = False,
    verify_equivalence: Annotated[
        bool,
        typer.Option(
            "--verify-equivalence",
            help="Prove the perturbed references give the native answers (both "
            "perturbations unless --schema names one).",
        ),
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the opaque name mapping.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bars.")] = False,
    home: HomeOption = None,
) -> None:
    """Build what runs need: ground truth, agent catalogs, perturbed schemas."""
    if task and all_tasks:
        raise M4BenchError("--task and --all exclude each other", hint="give one of them")
    variant = _variant(schema)
    data_home = resolve_home(home)
    report = setup(
        data_home,
        source or source_for_tasks(data_home, task or [], "one setup"),
        task or None,
        variant,
        verify=verify,
        check_equivalence=verify_equivalence,
        seed=seed,
        progress=not quiet,
    )
    if not show_report(report, make_console()):
        raise typer.Exit(1)


def _variant(schema: str) -> SchemaVariant:
    for variant in SCHEMA_VARIANTS:
        if schema == variant:
            return variant
    raise typer.BadParameter(f"must be one of {', '.join(SCHEMA_VARIANTS)}", param_hint="--schema")


def show_report(report: SetupReport, console: Console) -> bool:
    """Print what was built and checked; False when a check failed."""
    truths = Table("ground truth", "action", "rows", "sha256")
    for truth in report.truths:
        truths.add_row(
            truth.key, truth.action, str(truth.manifest.rows), truth.manifest.output_sha256[:12]
        )
    console.print(truths)
    for truth in report.truths:
        if truth.manifest.rows == 0:
            console.print(
                f"[yellow]warning[/] {truth.key}: the reference returns no rows on "
                f"{truth.manifest.inputs.source}, so every run of its tasks scores 0 here "
                "(a larger source, or a reference that selects too little?)",
                highlight=False,
            )
    built = sum(1 for _, action in report.catalogs if action == "built")
    console.print(f"agent catalogs: {built} built, {len(report.catalogs) - built} up to date")
    ok = True
    for name, problem in report.verified:
        ok &= problem is None
        console.print(
            f"{'[green]verified' if problem is None else '[red]differs'}[/] {name}"
            + (f": {escape(problem)}" if problem else ""),
            highlight=False,
        )
    for result in report.equivalence:
        ok &= result.ok
        mark = "[green]equivalent[/]" if result.ok else "[red]NOT equivalent[/]"
        detail = escape(result.detail)
        console.print(f"{mark} {result.variant} {result.name}: {detail}", highlight=False)
    return ok
