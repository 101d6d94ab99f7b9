"""``m4bench data``: build, ingest and inspect sources."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.sources.attach import attach_m4
from m4bench.sources.ingest import ingest_dataset
from m4bench.sources.inventory import list_sources, summarize, table_infos
from m4bench.sources.layout import load_source
from m4bench.sources.schema import dataset_schema

app = typer.Typer(help="Build, ingest and inspect source datasets.", no_args_is_help=True)


class DatasetName(StrEnum):
    mimic_iv = "mimic-iv"
    eicu = "eicu"


NameOption = Annotated[
    str | None, typer.Option("--name", help="Source name (default: from the input's name).")
]
PublicOption = Annotated[
    bool,
    typer.Option("--public", help="Open data (the PhysioNet demos): outputs may be shared."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _megabytes(size: int) -> str:
    if size < 100_000:
        return f"{size / 1e3:,.1f} kB"
    return f"{size / 1e6:,.1f} MB"


def _parameter_lines(key: str, value: str) -> list[str]:
    """``key = value``; a JSON object (the quirk rates) one entry per line beneath its key."""
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return [f"  {key} = {value}"]
    return [f"  {key}:"] + [f"    {name} = {parsed[name]}" for name in sorted(parsed)]


class _TableBars:
    """One rich progress bar per table, created when the table starts.

    The display starts with the first table, so an input error found before any work
    prints alone.
    """

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._tasks: dict[str, TaskID] = {}

    def stop(self) -> None:
        if self._tasks:
            self._progress.stop()

    def __call__(self, qualified: str, fraction: float) -> None:
        task = self._tasks.get(qualified)
        if task is None:
            if not self._tasks:
                self._progress.start()
            task = self._progress.add_task(qualified, total=1.0)
            self._tasks[qualified] = task
        self._progress.update(task, completed=fraction)


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description:<34}"),
        BarColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


@app.command()
def ingest(
    dataset: Annotated[DatasetName, typer.Argument(help="Which release the files are.")],
    path: Annotated[Path, typer.Argument(help="The release directory (hosp/, icu/ or *.csv.gz).")],
    name: NameOption = None,
    table: Annotated[
        list[str] | None,
        typer.Option("--table", help="Ingest only this table (repeatable)."),
    ] = None,
    public: PublicOption = False,
    home: HomeOption = None,
) -> None:
    """Ingest a MIMIC-IV or eICU-CRD CSV release (or its open demo); resumable."""
    console = make_console(stderr=True)
    bars = _TableBars(_progress(console))
    try:
        report = ingest_dataset(
            resolve_home(home),
            dataset.value,
            path,
            name=name,
            tables=table or None,
            public=public,
            progress=bars,
        )
    finally:
        bars.stop()
    ingested = [t for t in report.tables if t.status == "ingested"]
    rows = sum(t.rows for t in ingested)
    seconds = sum(t.seconds for t in ingested)
    console.print(
        f"source [bold]{report.source.name}[/]: {len(ingested)} table(s) ingested "
        f"({rows:,} rows in {seconds:.1f} s), "
        f"{len(report.tables) - len(ingested)} unchanged; {report.source.layout.root}",
        highlight=False,
    )


@app.command("attach-m4")
def attach(
    path: Annotated[Path, typer.Argument(help="The M4 database, e.g. mimic_iv.duckdb.")],
    name: NameOption = None,
    public: PublicOption = False,
    home: HomeOption = None,
) -> None:
    """Register a DuckDB database built by the M4 toolkit as a source (no copy)."""
    console = make_console(stderr=True)
    with _progress(console) as progress:
        task = progress.add_task("hashing Parquet files", total=None)

        def step(qualified: str, index: int, total: int) -> None:
            progress.update(task, description=qualified, completed=index, total=total)

        report = attach_m4(resolve_home(home), path, name=name, public=public, progress=step)
        progress.update(task, completed=len(report.source.manifest.tables))
    summary = summarize(report.source)
    console.print(
        f"source [bold]{summary.name}[/]: {summary.tables} table(s), {summary.rows:,} rows "
        f"attached from {path}",
        highlight=False,
    )
    if report.missing_tables:
        console.print(
            f"[yellow]not in the database:[/] {', '.join(report.missing_tables)}",
            highlight=False,
        )


@app.command("list")
def list_command(home: HomeOption = None, as_json: JsonOption = False) -> None:
    """List the sources in the data home."""
    summaries = list_sources(resolve_home(home))
    if as_json:
        typer.echo(json.dumps([vars(s) for s in summaries], indent=2, sort_keys=True))
        return
    table = RichTable("name", "dataset", "version", "kind", "public", "tables", "rows", "size")
    for s in summaries:
        if s.problem:
            table.add_row(s.name, "[red]damaged[/]", "", "", "", "", "", s.problem)
            continue
        table.add_row(
            s.name, s.dataset, s.dataset_version, s.kind, "yes" if s.public else "no",
            str(s.tables), f"{s.rows:,}", _megabytes(s.bytes),
        )  # fmt: skip
    make_console().print(
        table
        if summaries
        else "no sources yet: build a synthetic one with `m4bench data synth mimic-iv` "
        "(or `eicu`), or bring real data with `m4bench data ingest`"
    )


@app.command()
def info(
    name: Annotated[str, typer.Argument(help="Source name (see `m4bench data list`).")],
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a source's manifest and its tables (rows, size, file)."""
    source = load_source(resolve_home(home), name)
    if as_json:
        typer.echo(json.dumps(source.manifest.model_dump(mode="json"), indent=2, sort_keys=True))
        return
    manifest = source.manifest
    console = make_console()
    console.print(
        f"[bold]{manifest.name}[/]: {manifest.dataset} {manifest.dataset_version}, "
        f"{manifest.kind}, {'public' if manifest.public else 'restricted'}, "
        f"m4bench {manifest.m4bench_version}\n{source.layout.root}\n"
        f"fingerprint {manifest.fingerprint()}",
        highlight=False,
    )
    for key, value in sorted(manifest.parameters.items()):
        console.print("\n".join(_parameter_lines(key, str(value))), highlight=False)
    table = RichTable("table", "rows", "size", "file")
    for t in table_infos(source):
        shown = Path(t.path)
        if shown.is_relative_to(source.layout.root):
            shown = shown.relative_to(source.layout.root)
        table.add_row(t.qualified, f"{t.rows:,}", _megabytes(t.bytes), str(shown))
    console.print(table)


@app.command()
def tables(
    dataset: Annotated[DatasetName, typer.Argument(help="Which release.")],
    columns: Annotated[bool, typer.Option("--columns", help="Also list the columns.")] = False,
) -> None:
    """List the official tables of a dataset (and their typed columns)."""
    schema = dataset_schema(dataset.value)
    console = make_console()
    for table in schema.tables:
        key = f"  key ({', '.join(table.primary_key)})" if table.primary_key else ""
        console.print(
            f"[bold]{table.qualified}[/] {len(table.columns)} columns{key}", highlight=False
        )
        if columns:
            for column in table.columns:
                null = "" if column.nullable else " NOT NULL"
                console.print(f"    {column.name} {column.type}{null}", highlight=False)
