"""``m4bench data profile NAME``: row counts, items and quirk rates of a source."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.fileio import write_model
from m4bench.sources.layout import load_source
from m4bench.sources.profile import BinReach, SourceProfile, profile_source
from m4bench.validity.reach import reached_bins


def profile_command(
    name: Annotated[str, typer.Argument(help="Source name (see `m4bench data list`).")],
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the whole profile as JSON here.")
    ] = None,
    items: Annotated[
        int, typer.Option("--items", help="Items shown per event table (the JSON has all).")
    ] = 25,
    bins: Annotated[
        bool,
        typer.Option(
            "--bins/--no-bins",
            help="Count the rows reaching each scoring bin of the task catalog (builds the "
            "concepts and ground truths that are not current).",
        ),
    ] = True,
    home: HomeOption = None,
) -> None:
    """Profile a source: rows per table, items with value ranges, quirk rates present, and
    the rows reaching each scoring bin."""
    data_home = resolve_home(home)
    source = load_source(data_home, name)
    profile = profile_source(source, progress=True)
    console = make_console()
    if bins:
        with console.status("counting the rows reaching each scoring bin") as status:
            reached = reached_bins(
                source, home=data_home, on_step=lambda key: status.update(f"bins of {key}")
            )
        profile = profile.model_copy(update={"bins": reached})
    print_profile(console, profile, items)
    if json_file is not None:
        write_model(json_file, profile)
        console.print(f"wrote {json_file}", highlight=False)


def print_profile(console: Console, profile: SourceProfile, items: int) -> None:
    """Render the profile as rich tables."""
    title = f"{profile.source} ({profile.dataset} {profile.dataset_version}, {profile.kind})"
    rows = Table("table", "rows", title=title)
    for count in profile.tables:
        rows.add_row(count.table, f"{count.rows:,}")
    console.print(rows)
    for group in profile.items:
        if group.skipped:
            console.print(f"{group.table}: items skipped ({group.skipped})", highlight=False)
            continue
        shown = sorted(group.items, key=lambda stat: -stat.rows)[:items]
        grid = Table(group.key, "label", "rows", "numeric", "min", "max")
        grid.title = f"{group.table}: {len(group.items)} items by {group.key} ({group.value})"
        for stat in shown:
            grid.add_row(
                stat.key,
                stat.label or "",
                f"{stat.rows:,}",
                f"{stat.numeric_rows:,}",
                _number(stat.min),
                _number(stat.max),
            )
        console.print(grid)
    quirks = Table("quirk", "rate", "configured", "count", "of", "population", title="quirks")
    for quirk in profile.quirks:
        if quirk.skipped:
            quirks.add_row(quirk.name, "skipped", "", "", "", quirk.skipped)
            continue
        quirks.add_row(
            quirk.name,
            _percent(quirk.rate),
            _percent(quirk.configured),
            f"{quirk.numerator:,}" if quirk.numerator is not None else "",
            f"{quirk.denominator:,}" if quirk.denominator is not None else "",
            quirk.description,
        )
    console.print(quirks)
    if profile.bins:
        console.print(bin_table(profile.bins))


def bin_table(bins: list[BinReach]) -> Table:
    """One row per scoring bin: the rows reaching it and the engineered states placed for it."""
    reached = sum(1 for b in bins if b.rows)
    grid = Table("family", "bin", "rows", "engineered for it")
    grid.title = f"scoring bins: {reached} of {len(bins)} reached"
    for b in bins:
        rows = f"{b.rows:,}" if b.rows is not None else f"error: {b.error}"
        grid.add_row(b.family, b.name, rows, ", ".join(b.engineered))
    return grid


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _percent(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f} %"
