"""``m4bench run``: one agent run in a sandbox, recorded in a result.json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.cli.run_outcome import infrastructure_exit
from m4bench.cli.score import show_checks, show_disagreements
from m4bench.cli.unisolated import warn_if_unisolated
from m4bench.errors import M4BenchError
from m4bench.results.layout import RunFolder
from m4bench.runner import (
    CONDITIONS,
    SCHEMAS,
    ResultRecord,
    RunOptions,
    RunSpec,
    execute_run,
    read_result,
)
from m4bench.runner.agent_choice import check_agent_name
from m4bench.runner.checks import check_run, check_timeout
from m4bench.runner.identity_inputs import identified
from m4bench.sandbox import SANDBOX_NAMES, default_sandbox_name
from m4bench.scoring import Score
from m4bench.sources.defaults import choose_source
from m4bench.tasks.catalog import load_catalog
from m4bench.tasks.mutants import catalog_mutant_source

INTERRUPTED_MESSAGE = "interrupted: the run was stopped; its record says so"
SHOWN_DISAGREEMENTS = 8
"""Lines of first disagreements a run's summary shows (``m4bench score`` shows all)."""


def _choice(value: str, allowed: tuple[str, ...], option: str) -> str:
    if value not in allowed:
        raise typer.BadParameter(f"choose one of: {', '.join(allowed)}", param_hint=option)
    return value


def _check_identity_and_timeout(model: str, reasoning: str, timeout: float | None) -> None:
    check_named("--model", model)
    check_named("--reasoning", reasoning)
    if timeout is not None:
        check_timeout(timeout, "--timeout", "give --timeout in that range, or leave it out")


def check_named(option: str, value: str) -> None:
    """A model or reasoning setting enters the run's id: it must name something."""
    if not value.strip():
        raise M4BenchError(
            f"{option}: {value!r} names nothing",
            hint=f"give {option} a name, or leave it out for the default",
        )


def _check_agent(agent: str) -> None:
    """A mistyped agent is a usage error, like a mistyped condition, not a failed run
    in the results directory."""
    try:
        check_agent_name(agent)
    except M4BenchError as exc:
        raise typer.BadParameter(f"{exc.message}; {exc.hint}", param_hint="--agent") from None


def run_command(
    task: Annotated[str, typer.Option("--task", help="Task name (see `m4bench tasks list`).")],
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            help="oracle, replay, mutant:NAME, react, claude-code, codex, gemini-cli, "
            "mini-swe-agent.",
        ),
    ],
    condition: Annotated[str, typer.Option("--condition", help="Skill condition.")] = "no-skill",
    model: Annotated[str, typer.Option("--model", help="Model name for the agent.")] = "default",
    schema: Annotated[str, typer.Option("--schema", help="native, obfuscated, restructured.")] = (
        "native"
    ),
    trial: Annotated[int, typer.Option("--trial", min=1, help="Trial number.")] = 1,
    reasoning: Annotated[str, typer.Option("--reasoning", help="Reasoning setting.")] = "auto",
    sandbox: Annotated[
        str | None, typer.Option("--sandbox", help="bwrap (Linux default), docker or none.")
    ] = None,
    results: Annotated[
        Path | None, typer.Option("--results", help="Results directory (default: <home>/results).")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Seconds before the agent is stopped (default: the card)."),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Source (default: the dataset's synthetic one when built, else its only one).",
        ),
    ] = None,
    endpoint: Annotated[
        str | None, typer.Option("--endpoint", help="OpenAI-compatible base URL (react).")
    ] = None,
    replay: Annotated[
        Path | None, typer.Option("--replay", help="File for --agent replay (.sql, .py, .sh).")
    ] = None,
    keep_workdir: Annotated[
        bool, typer.Option("--keep-workdir", help="Keep the agent's working directory.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Run one agent on one task under one condition; print and record the outcome."""
    _check_agent(agent)
    _choice(condition, CONDITIONS, "--condition")
    _choice(schema, SCHEMAS, "--schema")
    backend = _choice(sandbox or default_sandbox_name(), SANDBOX_NAMES, "--sandbox")
    warn_if_unisolated(backend)
    _check_identity_and_timeout(model, reasoning, timeout)
    data_home = resolve_home(home)
    catalog = load_catalog()
    found = catalog.task(task)
    spec = RunSpec.model_validate(
        {
            "task": task,
            "condition": condition,
            "schema": schema,
            "agent": agent,
            "model": model,
            "reasoning": reasoning,
            "trial": trial,
        }
    )
    options = RunOptions(
        sandbox=backend,
        timeout=timeout,
        endpoint=endpoint,
        replay_file=replay.resolve() if replay else None,
        mutants=catalog_mutant_source(catalog),
        keep_workdir=keep_workdir,
        catalog=catalog,
    )
    source_name = source or choose_source(data_home, found.card.dataset)
    # A mistake found before the run starts is refused (exit 2) with nothing written.
    check_run(spec, home=data_home, source=source_name, options=options, catalog=catalog)
    spec = identified(spec, options.endpoint, options.replay_file)
    results_dir = results or data_home.results
    try:
        record = execute_run(
            spec, home=data_home, source=source_name, results_dir=results_dir, options=options
        )
    except KeyboardInterrupt:
        make_console(stderr=True).print(INTERRUPTED_MESSAGE, highlight=False)
        raise typer.Exit(130) from None
    console = make_console()
    show_record(record, results_dir / record.run_id, console)
    show_kept_record(record, results_dir / record.run_id, console)
    code = infrastructure_exit(record, make_console(stderr=True))
    if code is not None:
        raise typer.Exit(code)


def show_record(record: ResultRecord, run_dir: Path, console: Console) -> None:
    colour = "green" if record.status == "ok" else "yellow"
    console.print(f"run {escape(record.run_id)} (attempt {record.attempt})")
    console.print(
        f"status [{colour}]{record.status}[/] {escape(record.status_detail)}",
        highlight=False,
        soft_wrap=True,  # a long detail (an endpoint's error) stays one line to copy
    )
    console.print(
        f"reward {record.reward:.4f}   publishable {record.publishable} "
        f"({escape(record.publishable_reason)})",
        highlight=False,
    )
    if record.score is not None and not record.score.strict_pass:
        show_checks(record.score, console, failed_only=True)
        show_disagreements(record.score, console, per_column=1, max_lines=SHOWN_DISAGREEMENTS)
        show_score_notes(record.score, console)
    usage = record.usage
    console.print(
        f"tokens in {usage.input_uncached} + cached {usage.input_cache_read}, "
        f"out {usage.output}; agent {record.timings.agent:.1f} s, "
        f"harness {record.timings.harness:.2f} s",
        highlight=False,
    )
    console.print(
        f"record {escape(str(_record_file(record, run_dir)))}", highlight=False, soft_wrap=True
    )


def _record_file(record: ResultRecord, run_dir: Path) -> Path:
    """The file the runner wrote ``record`` to: the attempt's own when the run's
    result.json kept an earlier complete record."""
    own = RunFolder(run_dir).attempt_result(record.attempt)
    return own if own.is_file() else RunFolder(run_dir).result


def show_kept_record(record: ResultRecord, run_dir: Path, console: Console) -> None:
    """Say so when the run's record is an earlier attempt's: a complete record is never
    replaced, so this attempt's record went to its attempt folder."""
    if _record_file(record, run_dir) == RunFolder(run_dir).result:
        return
    kept = RunFolder(run_dir).result
    try:
        earlier = read_result(kept)
    except M4BenchError:
        described = "a record this m4bench cannot read"
    else:
        described = (
            f"attempt {earlier.attempt}, status {earlier.status}, reward {earlier.reward:.4f}"
        )
    console.print(
        f"[yellow]the run's record stays the earlier one[/] ({escape(described)}): "
        f"{escape(str(kept))}; a complete record is never replaced. To run it afresh, "
        "use another --trial or --results folder",
        highlight=False,
        soft_wrap=True,
    )


def show_score_notes(score: Score, console: Console) -> None:
    """Why the output was not compared, and the scorer's diagnostics (as `m4bench score`
    prints them), so a reward of 0 never goes unexplained."""
    if score.failure:
        console.print(f"output not compared: {score.failure}", highlight=False)
    for note in score.diagnostics:
        console.print(f"note: {escape(note)}", highlight=False)
