"""``m4bench evidence``: package a campaign for publication, and verify a package."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.errors import M4BenchError
from m4bench.evidence import (
    IntegrityAudit,
    PackageOptions,
    audit_results_dir,
    package_results,
    verify_package,
)
from m4bench.evidence.audit import result_records
from m4bench.evidence.model import OutputsMode
from m4bench.evidence.package import check_out

_MODES: dict[str, OutputsMode] = {"auto": "auto", "scores-only": "scores-only", "full": "full"}
app = typer.Typer(help="Sanitized, verifiable evidence packages.", no_args_is_help=True)


@app.command("package")
def package_command(
    results: Annotated[Path, typer.Argument(help="Results directory of a campaign.")],
    out: Annotated[Path, typer.Option("--out", help="Package to write (FILE.tar.zst).")],
    salt_file: Annotated[
        Path | None,
        typer.Option("--salt-file", help="Private salt: adds HMAC row_key_hash columns."),
    ] = None,
    outputs: Annotated[
        str,
        typer.Option(
            "--outputs",
            help="auto (full only for public synthetic sources), scores-only or full.",
        ),
    ] = "auto",
    redact: Annotated[
        list[str] | None, typer.Option("--redact", help="A further term to redact (repeatable).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Write a sanitized package of every run, its manifest, audit and report."""
    mode = _MODES.get(outputs)
    if mode is None:
        raise typer.BadParameter("must be auto, scores-only or full", param_hint="--outputs")
    check_out(results.expanduser().resolve(), out)  # before any work, not after it
    options = PackageOptions(
        salt=_salt(salt_file), outputs=mode, home=resolve_home(home), redact_terms=redact or []
    )
    total = len(result_records(results.expanduser().resolve()))
    columns = (TextColumn("package"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=make_console(stderr=True), transient=True) as progress:
        bar = progress.add_task("package", total=total)
        result = package_results(results, out, options, lambda _run: progress.advance(bar))
    console = make_console()
    show_audit(console, result.audit)
    console.print(f"{out}: {result.files} files, sha256 {result.sha256}", highlight=False)


@app.command("verify")
def verify_command(
    package: Annotated[Path, typer.Argument(help="The .tar.zst package.")],
    strict: Annotated[
        bool, typer.Option("--strict", help="Also fail on audit problems (missing runs, ...).")
    ] = False,
) -> None:
    """Check every hash in the package and recompute its audit. Exit 1 on failure."""
    if not package.is_file():
        raise typer.BadParameter(f"{package}: no such file", param_hint="PACKAGE")
    console = make_console()
    try:
        report = verify_package(package)
    except M4BenchError as exc:  # not a package, or one too damaged to read
        console.print(f"[red]FAIL:[/] {escape(exc.message)}", highlight=False)
        console.print(f"[red]NOT verified[/]: {escape(str(package))}", highlight=False)
        raise typer.Exit(1) from None
    if report.audit is not None:
        show_audit(console, report.audit)
    # Under --strict the audit's own problems fail the package; say so where they print.
    failing = set(report.audit.problems()) if strict and report.audit else set()
    for line in report.warnings:
        label = "[red]FAIL:[/]" if line in failing else "[yellow]warning:[/]"
        console.print(f"{label} {escape(line)}", highlight=False)
    for line in report.failures:
        console.print(f"[red]FAIL:[/] {escape(line)}", highlight=False)
    ok = report.passed and not failing
    console.print(
        f"{'[green]verified' if ok else '[red]NOT verified'}[/]: {report.files} files",
        highlight=False,
    )
    if not ok:
        raise typer.Exit(1)


@app.command("audit")
def audit_command(
    results: Annotated[Path, typer.Argument(help="Results directory of a campaign.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")] = False,
) -> None:
    """Print a campaign's integrity audit without packaging it; exit 1 on problems."""
    audit = audit_results_dir(results.expanduser().resolve())
    if as_json:
        typer.echo(audit.model_dump_json(indent=2))
    else:
        console = make_console()
        show_audit(console, audit)
        for line in audit.problems():
            console.print(f"[yellow]•[/] {escape(line)}", highlight=False)
    if audit.problems():
        raise typer.Exit(1)


def show_audit(console: Console, audit: IntegrityAudit) -> None:
    expected = "?" if audit.expected_runs is None else str(audit.expected_runs)
    console.print(
        f"runs {audit.runs}/{expected} (missing {audit.missing_runs}), cells {audit.cells}; "
        f"failures: publishable {audit.publishable_failures}, isolation "
        f"{audit.isolation_failures}, canary {audit.canary_failures}, lint "
        f"{audit.lint_failures}; nonzero exits {audit.nonzero_exits}; missing rewards "
        f"{audit.missing_rewards}; strict passes {audit.strict_passes}; superseded attempts "
        f"{len(audit.superseded_attempts)}",
        highlight=False,
    )


def _salt(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        data = path.read_bytes().strip()
    except OSError as exc:
        raise M4BenchError(
            f"{path}: cannot read the salt file ({exc.strerror or exc})",
            hint=f"check the path, or create a salt with: head -c 32 /dev/urandom > {path} "
            "(keep it private, and reuse it for packages that should join)",
        ) from exc
    if len(data) < 16:
        raise M4BenchError(
            f"{path}: the salt is {len(data)} bytes; at least 16 are needed",
            hint="create one with: head -c 32 /dev/urandom > salt.key",
        )
    return data
