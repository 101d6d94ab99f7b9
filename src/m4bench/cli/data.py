"""``m4bench data``: build, ingest and inspect sources."""

from __future__ import annotations

import typer

app = typer.Typer(help="Build, ingest and inspect source datasets.", no_args_is_help=True)
