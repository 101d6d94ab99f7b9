"""Options shared by command groups."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from m4bench.home import DataHome

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Data home (default: $M4BENCH_HOME, else ~/.m4bench)."),
]


def resolve_home(home: Path | None) -> DataHome:
    return DataHome.from_env(home)
