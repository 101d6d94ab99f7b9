"""``m4bench data synth eicu``: the synthetic eICU-CRD v2.0 source."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.cli.data_synth import (
    ForceOption,
    QuietOption,
    ScaleOption,
    SeedOption,
    report_coverage,
)
from m4bench.sources.datasets import DEFAULT_SOURCES
from m4bench.sources.synth.eicu import synthesize_eicu

DEFAULT_NAME = DEFAULT_SOURCES["eicu"]


def eicu_command(
    stays: Annotated[int | None, typer.Option("--stays", help="Number of ICU unit stays.")] = None,
    scale: ScaleOption = None,
    seed: SeedOption = 0,
    name: Annotated[str, typer.Option("--name", help="Source name.")] = DEFAULT_NAME,
    force: ForceOption = False,
    quiet: QuietOption = False,
    workers: Annotated[
        int, typer.Option("--workers", help="Processes building chunks of 2,000 stays in parallel.")
    ] = 1,
    home: HomeOption = None,
) -> None:
    """Generate a synthetic eICU-CRD v2.0 source (default about 1,000 unit stays)."""
    console = make_console(stderr=True)
    started = time.perf_counter()
    source = synthesize_eicu(
        resolve_home(home),
        name,
        stays=stays,
        scale=scale,
        seed=seed,
        force=force,
        progress=not quiet,
        workers=workers,
    )
    rows = sum(entry.rows for entry in source.manifest.tables.values())
    console.print(
        f"source [bold]{source.name}[/]: {len(source.manifest.tables)} tables, {rows:,} rows "
        f"in {time.perf_counter() - started:.1f} s; {source.layout.root}",
        highlight=False,
    )
    report_coverage(console, source)
