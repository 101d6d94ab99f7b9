"""``m4bench export``: m4bench tasks in other harnesses' formats (Harbor)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.integrations.harbor_export import (
    DEFAULT_CONDITIONS,
    ExportRequest,
    export_harbor,
    sources_by_dataset,
)

app = typer.Typer(
    help="Export m4bench tasks to other harnesses (see docs/integrations.md).",
    no_args_is_help=True,
)


@app.command("harbor")
def harbor_command(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the task folders into.")],
    task: Annotated[
        list[str] | None,
        typer.Option("--task", help="A task to export (repeatable; default: all tasks)."),
    ] = None,
    condition: Annotated[
        list[str] | None,
        typer.Option(
            "--condition",
            help=f"A condition to export (repeatable; default: {', '.join(DEFAULT_CONDITIONS)}).",
        ),
    ] = None,
    schema: Annotated[
        str, typer.Option("--schema", help="native, obfuscated or restructured.")
    ] = "native",
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source",
            help="A provisioned source (repeatable, one per dataset; default: the synthetic ones).",
        ),
    ] = None,
    home: HomeOption = None,
) -> None:
    """One Harbor task folder per task and condition, from provisioned tasks."""
    data_home = resolve_home(home)
    request = ExportRequest(
        tasks=task or (),
        conditions=condition or DEFAULT_CONDITIONS,
        schema=schema,
        sources=sources_by_dataset(data_home, source or []),
    )
    console = make_console()

    def step(name: str) -> None:
        console.print(f"  {out / name}", highlight=False)

    written = export_harbor(data_home, out, request, progress=step)
    console.print(f"wrote {len(written)} Harbor task folders under {out}", highlight=False)
