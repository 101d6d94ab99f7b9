"""``m4bench tasks`` (list, show, lint) and ``m4bench reference``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.errors import M4BenchError
from m4bench.sources.defaults import check_same_dataset, choose_source
from m4bench.sources.layout import load_source
from m4bench.tasks.case_run import CaseResult, run_task_cases, task_cases
from m4bench.tasks.cases import cases_path
from m4bench.tasks.catalog import (
    CATALOG_ROOT,
    TASKS_ENV,
    Task,
    extra_task_roots,
    load_catalog,
)
from m4bench.tasks.evaluation import ColumnTolerance
from m4bench.tasks.facts import Fact, load_facts
from m4bench.tasks.facts_lint import task_facts_path, text_lengths
from m4bench.tasks.lint import lint_report
from m4bench.tasks.lint_select import chosen_task_dirs
from m4bench.tasks.reference import run_reference, write_reference
from m4bench.tasks.task_copy import CopyRequest, copy_task
from m4bench.wording import counted

REFERENCE_SUFFIXES = (".csv", ".parquet")

app = typer.Typer(
    help="List, inspect, lint and test the task catalog; copy a task to start your own.",
    no_args_is_help=True,
)


def task_summary(task: Task) -> dict[str, Any]:
    """What ``tasks list --json`` prints for one task."""
    card = task.card
    return {
        "name": task.name,
        "family": task.family,
        "database": card.dataset,
        "mode": card.mode,
        "difficulty": card.metadata.difficulty,
        "key_columns": card.evaluation.key_columns,
        "scored_columns": card.evaluation.scored_columns,
        "skills": list(task.skill_paths),
        "decoy_skill": card.controls.decoy_skill,
        "sentinel": card.controls.sentinel,
        "depends_on": task.depends_on,
        "dependency_depth": task.dependency_depth,
        "folder": str(task.dir),
    }


@app.command("list")
def list_tasks(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List every task with its family, mode and dependency depth."""
    catalog = load_catalog()
    if as_json:
        typer.echo(json.dumps([task_summary(t) for t in catalog.tasks], indent=2))
        return
    table = Table("task", "family", "db", "mode", "difficulty", "depth", "skills", "sentinel")
    table.columns[0].no_wrap = True
    for task in catalog.tasks:
        card = task.card
        table.add_row(
            task.name,
            task.family,
            card.dataset,
            card.mode,
            card.metadata.difficulty,
            str(task.dependency_depth),
            ", ".join(task.skill_paths),
            "yes" if card.controls.sentinel else "",
        )
    console = make_console()
    console.print(table)
    if len(catalog.roots) > 1:
        extra = ", ".join(str(root) for root in catalog.roots[1:])
        console.print(f"with the tasks of {TASKS_ENV}: {extra}", highlight=False)


@app.command("show")
def show_task(
    name: Annotated[str, typer.Argument(help="Task name.")],
    facts: Annotated[
        bool,
        typer.Option(
            "--facts",
            help="Print the facts the instruction, skills and operational spec convey "
            "(facts.toml) and each text's length beside the paper's, instead of the card.",
        ),
    ] = False,
) -> None:
    """Show one task: card, dependencies, files and instruction (or, with --facts, its facts)."""
    task = load_catalog().task(name)
    if facts:
        _print_facts(task)
        return
    card, spec = task.card, task.card.evaluation
    console = make_console()
    console.print(f"[bold]{task.name}[/] ({task.family}, {card.dataset}, {card.mode})")
    console.print(card.metadata.description, highlight=False)
    rows = [
        ("folder", str(task.dir)),
        ("reference", str(task.reference_path)),
        ("reads (direct)", ", ".join(task.direct_dependencies) or "source tables only"),
        ("depends_on", ", ".join(task.depends_on) or "-"),
        ("dependency depth", str(task.dependency_depth)),
        ("drop_tables", ", ".join(card.database.drop_tables) or "-"),
        ("keys", ", ".join(spec.key_columns)),
        ("scored", ", ".join(spec.scored_columns)),
        (
            "thresholds",
            f"coverage {spec.row_coverage_threshold}, accuracy {spec.accuracy_threshold}",
        ),
        ("tolerance", _tolerances(spec.tolerance) or "exact"),
        ("skills", ", ".join(task.skill_paths)),
        ("decoy", card.controls.decoy_skill),
        ("operational spec", "yes" if task.operational_spec else "no"),
        ("patient cases", _cases_summary(task)),
        ("review status", task.provenance.review_status),
    ]
    table = Table(show_header=False, box=None)
    for label, value in rows:
        table.add_row(f"[cyan]{label}[/]", value)
    console.print(table)
    console.rule("instruction")
    console.print(task.instruction, highlight=False, markup=False)


def _print_facts(task: Task) -> None:
    path = task_facts_path(task)
    if not path.exists():
        raise M4BenchError(
            f"{path}: {task.name} states no facts",
            hint="write a facts.toml beside its texts (docs/tasks.md, 'Facts of a task's texts')",
        )
    facts = load_facts(path)
    console = make_console()
    console.print(f"[bold]{task.name}[/]: facts of its texts ({path})", highlight=False)
    sections: list[tuple[str, Sequence[Fact]]] = [("instruction", facts.instruction)]
    for skill in task.skill_paths:
        mine = [f for f in facts.skill if f.skill in (skill, None)]
        sections.append((f"skill {skill}", mine))
    if facts.operational_spec:
        sections.append(("operational spec", facts.operational_spec))
    for title, entries in sections:
        console.rule(title)
        for fact in entries:
            tokens = ", ".join(fact.tokens())
            console.print(f"- {fact.fact}" + (f"  [dim]({tokens})[/]" if tokens else ""))
            if fact.note:
                console.print(f"  [yellow]note:[/] {fact.note}", highlight=False)
    if facts.instruction_excludes:
        console.print(f"kept out of the instruction: {', '.join(facts.instruction_excludes)}")
    console.rule("lengths (words)")
    for what, (ours, paper) in text_lengths(task, facts).items():
        beside = f" / paper {paper} ({ours / paper:.2f}x)" if paper else ""
        console.print(f"{what}: {ours}{beside}", highlight=False)


def _tolerances(tolerance: Mapping[str, ColumnTolerance]) -> str:
    """``meld=1.0``; ``meld=0.5 or 5%`` when a relative bound is set too."""
    shown = []
    for name, rule in tolerance.items():
        parts = [str(rule.absolute)] if rule.absolute or rule.relative is None else []
        if rule.relative is not None:
            parts.append(f"{rule.relative * 100:g}% relative")
        shown.append(f"{name}={' or '.join(parts)}")
    return ", ".join(shown)


def _cases_summary(task: Task) -> str:
    if not cases_path(task.dir).exists():
        return "none (see docs/tasks.md, Patient cases)"
    try:
        return f"{len(task_cases(task))} (m4bench tasks test {task.name})"
    except M4BenchError as exc:
        return escape(f"cases.toml does not load: {exc.message}")


@app.command("lint")
def lint(
    names: Annotated[
        list[str] | None, typer.Argument(help="Lint only these tasks (default: every task).")
    ] = None,
    folders: Annotated[
        list[Path] | None,
        typer.Option("--path", help="Lint only the tasks under this folder (repeatable)."),
    ] = None,
    no_run: Annotated[
        bool, typer.Option("--no-run", help="Skip running each reference on an empty database.")
    ] = False,
) -> None:
    """Check every task (the shipped ones and those of $M4BENCH_TASKS), or only the named
    ones, against the catalog rules; exit 1 when any rule fails."""
    only = chosen_task_dirs(names or [], folders or []) if names or folders else None
    console = make_console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("lint", total=None)

        def step(name: str, total: int) -> None:
            progress.update(bar, description=f"lint {name}", total=total, advance=1)

        report = lint_report(run_references=not no_run, on_task=step, only=only)
    cwd = Path.cwd()
    for finding in report.findings:
        path = finding.path.relative_to(cwd) if finding.path.is_relative_to(cwd) else finding.path
        colour = "red" if finding.severity == "error" else "yellow"
        typer.echo(f"{path}:{finding.line}: ", nl=False)
        label = escape(f"[{finding.rule}]")
        make_console().print(
            f"[{colour}]{finding.severity}[/] {label} {escape(finding.message)}", highlight=False
        )
    errors = report.errors
    warnings = len(report.findings) - errors
    found = f"{counted(errors, 'error')}, {counted(warnings, 'warning')}"
    typer.echo(f"{counted(report.tasks, 'task')}: {found}")
    if errors:
        raise typer.Exit(1)


@app.command("test")
def test_command(
    names: Annotated[
        list[str] | None, typer.Argument(help="Tasks (default: every task with cases).")
    ] = None,
) -> None:
    """Run the patient cases (cases.toml) of tasks; exit 1 when a case fails or a task's
    cases cannot run."""
    catalog = load_catalog()
    tasks = [catalog.task(n) for n in names] if names else list(catalog.tasks)
    chosen = [task for task in tasks if cases_path(task.dir).exists()]
    console = make_console()
    uncovered = [task for task in tasks if task not in chosen] if names else []
    for task in uncovered:
        console.print(f"[red]no cases[/] {task.name}: no {escape(str(cases_path(task.dir)))}")
    results = list(_print_case_results(console, run_task_cases(chosen)))
    errors = sum(result.error for result in results)
    ran = [result for result in results if not result.error]
    failed = sum(not result.passed for result in ran)
    summary = (
        f"{counted(len(ran), 'case')} in {counted(len(chosen), 'task')}: "
        f"{len(ran) - failed} passed, {failed} failed"
    )
    if errors:
        summary += f"; the cases of {counted(errors, 'task')} could not run"
    console.print(summary, highlight=False)
    if not chosen and not names:
        console.print("no task has a cases.toml (see docs/tasks.md, Patient cases)")
    if failed or errors or uncovered:
        raise typer.Exit(1)


def _print_case_results(console: Console, results: Iterable[CaseResult]) -> Iterator[CaseResult]:
    """Print each result as it arrives (a task error once, a failed case with its rule)."""
    for result in results:
        if result.error:
            console.print(f"[red]ERROR[/] {escape(result.task)}", highlight=False)
        else:
            mark = "[green]pass[/]" if result.passed else "[red]FAIL[/]"
            console.print(f"{mark} {escape(result.task)} {escape(result.case)}", highlight=False)
            if result.problems:
                console.print(f"     rule: {escape(result.rule)}", highlight=False)
        for problem in result.problems:
            console.print(f"     {escape(problem)}", highlight=False)
        yield result


@app.command("copy")
def copy_command(
    name: Annotated[str, typer.Argument(help="The task to start from.")],
    new_name: Annotated[str, typer.Option("--name", help="The new task's name.")],
    family: Annotated[str, typer.Option("--family", help="The new family (a new folder).")],
    author: Annotated[str, typer.Option("--author", help="Who creates it (provenance).")],
    into_option: Annotated[
        Path | None,
        typer.Option(
            "--into", help="Your task folder (default: the one folder of $M4BENCH_TASKS)."
        ),
    ] = None,
) -> None:
    """Copy a task into a folder of your own as the start of a new task and family."""
    roots = extra_task_roots()
    if into_option is None and len(roots) != 1:
        raise typer.BadParameter(
            f"{TASKS_ENV} names {len(roots)} folders: say which with --into",
            param_hint="--into",
        )
    into = into_option.expanduser().resolve() if into_option is not None else roots[0]
    known = (CATALOG_ROOT.resolve(), *roots)  # the package's catalog, for its own authors
    extra = roots if into in known or not into.is_dir() else (*roots, into)
    catalog = load_catalog(extra_roots=extra)
    request = CopyRequest(catalog.task(name), new_name, family, into, author)
    created = copy_task(request, catalog)
    console = make_console()
    console.print(f"copied {name} to {created}", highlight=False)
    if into not in known:
        console.print(f"next: export {TASKS_ENV}={into}", highlight=False)
    console.print(
        "then edit its reference, instruction, skills, patient cases, mutants and coverage, "
        f"and run `m4bench tasks lint {new_name}` (see docs/tasks.md)",
        highlight=False,
    )


def reference_command(
    name: Annotated[str, typer.Argument(help="Task name.")],
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Built source (default: the dataset's synthetic one when built, else its "
            "only one).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Output file (.csv or .parquet; default <task>.csv)."),
    ] = None,
    home: HomeOption = None,
) -> None:
    """Run a task's reference query on a built source and write its rows."""
    if out is not None and out.suffix not in REFERENCE_SUFFIXES:
        ending = f"ends in {out.suffix!r}" if out.suffix else "has no suffix"
        raise typer.BadParameter(
            f"{out} {ending}: the reference is written as {' or '.join(REFERENCE_SUFFIXES)}; "
            "give the file one of these suffixes",
            param_hint="--out",
        )
    task = load_catalog().task(name)
    data_home = resolve_home(home)
    built = load_source(data_home, source or choose_source(data_home, task.card.dataset))
    # As `score` and `setup` do: another dataset's source lacks every table it reads.
    check_same_dataset(task.name, task.card.dataset, built.name, built.manifest.dataset)
    target = out or Path(f"{task.name}.csv")
    console = make_console(stderr=True)
    with console.status(f"running the {task.name} reference on {built.name}"):
        con = built.connect(read_only=True)
        try:
            table = run_reference(task, con)
        finally:
            con.close()
        write_reference(table, target)
    console.print(f"{counted(table.num_rows, 'row')} → {target}", highlight=False)
