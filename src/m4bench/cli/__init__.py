"""The ``m4bench`` command: thin typer commands over the library API.

One module per command group; each defines ``app`` and is registered here.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType
from typing import Annotated, NoReturn

import duckdb
import typer
from rich.console import Console
from rich.markup import escape

from m4bench import __version__
from m4bench.cli import analyze as analyze_cli
from m4bench.cli import audit as audit_cli
from m4bench.cli import campaign as campaign_cli
from m4bench.cli import concepts as concepts_cli
from m4bench.cli import data as data_cli
from m4bench.cli import data_profile as data_profile_cli
from m4bench.cli import data_synth as data_synth_cli
from m4bench.cli import data_synth_eicu as data_synth_eicu_cli
from m4bench.cli import demo as demo_cli
from m4bench.cli import evidence as evidence_cli
from m4bench.cli import export as export_cli
from m4bench.cli import preflight as preflight_cli
from m4bench.cli import run as run_cli
from m4bench.cli import score as score_cli
from m4bench.cli import setup as setup_cli
from m4bench.cli import tasks as tasks_cli
from m4bench.cli import view as view_cli
from m4bench.errors import M4BenchError, from_os_error, is_interruption

app = typer.Typer(
    name="m4bench",
    help="Benchmark AI coding agents on clinical concept derivation (MIMIC-IV, eICU).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(data_cli.app, name="data")
data_cli.app.add_typer(data_synth_cli.app, name="synth")
data_synth_cli.app.command("eicu")(data_synth_eicu_cli.eicu_command)
data_cli.app.command("profile")(data_profile_cli.profile_command)
app.add_typer(tasks_cli.app, name="tasks")
app.command("reference")(tasks_cli.reference_command)
app.add_typer(concepts_cli.app, name="concepts")
app.add_typer(campaign_cli.app, name="campaign")
app.command("analyze")(analyze_cli.analyze_command)
app.command("score")(score_cli.score_command)
app.command("run")(run_cli.run_command)
app.command("setup")(setup_cli.setup_command)
app.command("audit")(audit_cli.audit_command)
app.add_typer(evidence_cli.app, name="evidence")
app.add_typer(export_cli.app, name="export")
app.command("preflight")(preflight_cli.preflight_command)
app.command("demo")(demo_cli.demo_command)
app.command("view")(view_cli.view_command)


@app.command()
def version() -> None:
    """Print the m4bench version."""
    typer.echo(__version__)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the m4bench version and exit.",
        ),
    ] = False,
) -> None:
    """Benchmark AI coding agents on clinical concept derivation (MIMIC-IV, eICU)."""


DEBUG_ENV = "M4BENCH_DEBUG"


def main() -> None:
    """Console entry point: user errors print a message and a hint, exit code 2.

    A file-system failure that names a file (a file where a folder is needed, permission
    denied, ...) is a user error too. ``M4BENCH_DEBUG=1`` shows the traceback instead.
    """
    signal.signal(signal.SIGTERM, _terminate)
    try:
        app()
    except M4BenchError as exc:
        if _debugging():
            raise
        _fail(exc)
    except OSError as exc:
        error = from_os_error(exc)
        if error is None or _debugging():
            raise
        _fail(error)
    except (KeyboardInterrupt, RuntimeError, duckdb.Error) as exc:
        if not is_interruption(exc) or _debugging():
            raise
        Console(stderr=True).print("interrupted", highlight=False)
        sys.exit(130)


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (kill, a scheduler, a container stop) stops a command as Ctrl-C does, so
    a run in progress is recorded as interrupted and its agent stopped."""
    raise KeyboardInterrupt


def _debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip() not in ("", "0")


def _fail(exc: M4BenchError) -> NoReturn:
    # soft_wrap: a long path in a message must stay whole, whatever the terminal width
    console = Console(stderr=True, soft_wrap=True)
    # escape: messages quote fields ("[case.2.name]"), patterns and paths verbatim
    console.print(f"[bold red]error:[/] {escape(exc.message)}", highlight=False)
    if exc.hint:
        console.print(f"[yellow]hint:[/] {escape(exc.hint)}", highlight=False)
    sys.exit(2)
