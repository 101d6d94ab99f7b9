"""``m4bench audit``: do the scorer and the data tell every known-wrong derivation apart?"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from m4bench.cli.common import HomeOption, make_console, resolve_home, source_for_tasks
from m4bench.sources.layout import load_source
from m4bench.validity import AuditReport, audit
from m4bench.validity.audit import StepHook
from m4bench.validity.model import TieAudit


def audit_command(
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Source to audit (default: the tasks' dataset's synthetic source when "
            "built, else its only source; MIMIC-IV when no --task is given).",
        ),
    ] = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", help="A task to audit (repeatable).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    detail: Annotated[
        bool, typer.Option("--detail", help="Also list every mutant's reward and moved columns.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    home: HomeOption = None,
) -> None:
    """Score every reference and mutant; check coverage of each scoring bin. Exit 1 on failure."""
    data_home = resolve_home(home)
    loaded = load_source(data_home, source or source_for_tasks(data_home, task or [], "one audit"))
    if as_json or quiet:
        report = audit(loaded, task or None, home=data_home)
    else:
        report = _with_progress(
            lambda hook: audit(loaded, task or None, home=data_home, on_step=hook)
        )
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        show_report(report, make_console(), detail=detail)
    if not report.passed:
        raise typer.Exit(1)


def _with_progress(run: Callable[[StepHook], AuditReport]) -> AuditReport:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True) as progress:
        bar = progress.add_task("audit", total=None)

        def hook(label: str, total: int) -> None:
            progress.update(bar, description=escape(label), total=total)
            progress.advance(bar)

        return run(hook)


def show_report(report: AuditReport, console: Console, detail: bool = False) -> None:
    """The per-task mutant table, optionally every mutant, coverage and the verdicts."""
    tasks = Table(title=f"mutants on {report.source}")
    headers = ("task", "ref", "mutants", "caught", "worst reward", "columns moved")
    for header in (*headers, "tie cells", "other tie-break", "verdict"):
        tasks.add_column(header)
    for t in report.tasks:
        rewards = [m.reward for m in t.mutants if m.reward is not None]
        caught = sum(1 for m in t.mutants if m.caught)
        moved = len(t.scored_columns) - len(t.unmoved_columns)
        tasks.add_row(
            t.task,
            "-" if t.reference_reward is None else reward_text(t.reference_reward),
            str(len(t.mutants)),
            f"{caught}/{len(t.mutants)}",
            reward_text(max(rewards)) if rewards else "-",
            f"{moved}/{len(t.scored_columns)}",
            *tie_cells(t.ties),
            "[green]pass[/]" if t.passed else "[red]FAIL[/]",
        )
    console.print(tasks)
    if detail:
        console.print(mutant_table(report))
    reached = sum(1 for b in report.coverage if b.reached)
    excused = sum(1 for b in report.coverage if not b.reached and b.passed)
    console.print(
        f"coverage: {reached} of {len(report.coverage)} bins reached, {excused} excused, "
        f"{len(report.gaps)} gaps",
        highlight=False,
    )
    for line in report.failures():
        console.print(f"[red]•[/] {escape(line)}", highlight=False)
    verdict = "[green]audit passed[/]" if report.passed else "[red]audit failed[/]"
    console.print(verdict)


def tie_cells(ties: TieAudit | None) -> tuple[str, str]:
    """The audit table's tie columns: truth cells (and keys) with admissible
    alternatives, and the other tie-break's reward with its strict verdict."""
    if ties is None:
        return "-", "-"
    keys = ties.added_keys + ties.absent_keys
    cells = f"{ties.total_cells}" + (f" +{keys} keys" if keys else "")
    if ties.tie_break_order is None:
        return cells, "-"
    if ties.tie_break_reward is None:
        return cells, "[red]error[/]"
    verdict = "strict" if ties.tie_break_strict_pass else "not strict"
    text = f"{reward_text(ties.tie_break_reward)} {verdict}"
    return cells, text if ties.passed else f"[red]{text}[/]"


def mutant_table(report: AuditReport) -> Table:
    """One row per (task, mutant): reward, moved columns, key effects."""
    table = Table(title="every mutant")
    for header in ("task", "mutant", "reward"):
        table.add_column(header, no_wrap=True)
    table.add_column("moved columns", max_width=40)
    table.add_column("keys -/+", no_wrap=True)
    table.add_column("rationale", max_width=60, overflow="ellipsis", no_wrap=True)
    for t in report.tasks:
        for m in t.mutants:
            reward = "error" if m.reward is None else reward_text(m.reward)
            table.add_row(
                t.task,
                m.name,
                reward if m.caught else f"[red]{reward}[/]",
                escape(", ".join(m.moved_columns) or "-"),
                f"{m.missing_keys}/{m.extra_keys}",
                escape(m.error or m.rationale),
            )
    return table


def reward_text(reward: float) -> str:
    """Four decimals; a reward just below 1.0 never prints as 1.0000."""
    text = f"{reward:.4f}"
    return "<1.0000" if reward < 1.0 and text == "1.0000" else text
