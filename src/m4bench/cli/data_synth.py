"""``m4bench data synth``: build deterministic synthetic sources.

One command per dataset: ``mimic-iv`` here; ``eicu`` is registered on the same
``app`` by its own module.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.sources.datasets import Dataset
from m4bench.sources.layout import Source
from m4bench.sources.synth.coverage_plan import coverage_note
from m4bench.sources.synth.mimic_iv import DEFAULT_NAME, synthesize_mimic_iv

app = typer.Typer(
    help="Generate synthetic sources with the official schemas.", no_args_is_help=True
)

SeedOption = Annotated[int, typer.Option("--seed", help="Random seed (a non-negative integer).")]
ScaleOption = Annotated[
    float | None,
    typer.Option("--scale", help="Fraction of the real dataset's size (1.0 = real cardinalities)."),
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Replace an existing source of that name.")
]
QuietOption = Annotated[bool, typer.Option("--quiet", help="No progress bar.")]


def _report(
    console: Console, name: str, rows: int, tables: int, seconds: float, root: object
) -> None:
    console.print(
        f"source [bold]{name}[/]: {tables} tables, {rows:,} rows in {seconds:.1f} s; {root}",
        highlight=False,
    )


def report_coverage(console: Console, source: Source) -> None:
    """Say which engineered states (and so which scoring bins) a small source lacks."""
    dataset: Dataset = "eicu" if source.manifest.dataset == "eicu" else "mimic-iv"
    note = coverage_note(dataset, source.manifest.parameters)
    if note:
        console.print(f"[yellow]note:[/] {note}", highlight=False)


@app.command("mimic-iv")
def mimic_iv(
    patients: Annotated[
        int | None,
        typer.Option(
            "--patients",
            help="About this many patients (the size is set in ICU stays, N x 0.26).",
        ),
    ] = None,
    scale: ScaleOption = None,
    stays: Annotated[int | None, typer.Option("--stays", help="Number of ICU stays.")] = None,
    seed: SeedOption = 0,
    name: Annotated[str, typer.Option("--name", help="Source name.")] = DEFAULT_NAME,
    force: ForceOption = False,
    quiet: QuietOption = False,
    home: HomeOption = None,
    workers: Annotated[
        int,
        typer.Option("--workers", help="Processes building chartevents chunks in parallel."),
    ] = 1,
) -> None:
    """Generate a synthetic MIMIC-IV v3.1 source (default about 1,000 ICU stays)."""
    console = make_console(stderr=True)
    started = time.perf_counter()
    source = synthesize_mimic_iv(
        resolve_home(home), name, stays=stays, patients=patients, scale=scale, seed=seed,
        force=force, progress=not quiet, workers=workers,
    )  # fmt: skip
    rows = sum(entry.rows for entry in source.manifest.tables.values())
    _report(
        console,
        source.name,
        rows,
        len(source.manifest.tables),
        time.perf_counter() - started,
        source.layout.root,
    )
    report_coverage(console, source)


# The eICU command (``eicu``, module ``data_synth_eicu``) is registered on this same ``app`` in
# ``m4bench.cli``; it reuses the option types above.
