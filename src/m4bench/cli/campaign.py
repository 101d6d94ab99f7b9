"""``m4bench campaign``: plan, run, resume and inspect matrices of runs.

A thin layer over :mod:`m4bench.campaign` (the assembly is ``m4bench.campaign.launch``):
options in, the report and the live display out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from m4bench.agents.outcome import IN_WORDS
from m4bench.campaign import (
    CampaignReport,
    CampaignRequest,
    ExecutorChoice,
    PlannedRun,
    PlanOptions,
    ResultsDir,
    RunSettings,
    RunSetup,
    campaign_status,
    execute_campaign,
    load_profile,
    plan_profile,
    prepare_campaign,
    shipped_profiles,
)
from m4bench.campaign.launch import budget_overrides
from m4bench.campaign.profile import resolve_profile_path
from m4bench.campaign.simulate_spec import parse_simulation
from m4bench.campaign.status import CampaignStatus, status_document
from m4bench.cli.campaign_progress import LiveProgress
from m4bench.cli.campaign_resume import CampaignOptions, profile_of, with_recorded
from m4bench.cli.common import HomeOption, make_console
from m4bench.cli.unisolated import warn_if_unisolated
from m4bench.fileio import canonical_json
from m4bench.sandbox import default_sandbox_name
from m4bench.sources.defaults import DEFAULT_SOURCES

app = typer.Typer(help="Plan, run, resume and inspect campaigns.", no_args_is_help=True)

_SHOWN_REASONS = 3

AgentOpt = Annotated[
    list[str] | None, typer.Option("--agent", help="Agent to plan for (repeatable).")
]
ModelOpt = Annotated[
    list[str] | None, typer.Option("--model", help="Use these models in every block.")
]
TrialsOpt = Annotated[int | None, typer.Option("--trials", min=1, help="Trials per cell.")]
ProfileArg = Annotated[str, typer.Argument(help="A shipped profile name or a .toml path.")]
ResumedProfileArg = Annotated[
    str | None,
    typer.Argument(
        help="A shipped profile name or a .toml path (with --resume: the recorded one "
        "when left out).",
        show_default=False,
    ),
]
ReplayOpt = Annotated[
    Path | None,
    typer.Option(
        "--replay",
        help="For replay runs: a .sql/.py/.sh file for every run, or a folder of "
        "<task>.sql/.py/.sh files (default: the profile's `replay`).",
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="Ray cluster: 'auto' (the one this machine is in), 'local' (a fresh one), "
        "HEAD:6379, ray://HEAD:10001 (Ray Client); default: $RAY_ADDRESS or a local one.",
    ),
]
SimulateOpt = Annotated[
    str | None,
    typer.Option(
        "--simulate",
        help="Rehearse without agents: 'seconds=0.5:2,fail=0.1,transient=0.05,infra=0.02'.",
    ),
]
SandboxOpt = Annotated[
    str | None, typer.Option("--sandbox", help="bwrap (Linux default), docker or none.")
]
EndpointOpt = Annotated[
    str | None, typer.Option("--endpoint", help="OpenAI-compatible base URL (react).")
]
SourceOpt = Annotated[
    list[str] | None,
    typer.Option("--source", help="Data source per dataset, e.g. mimic-iv=mimic-iv-3.1."),
]


@app.command("profiles")
def profiles_command() -> None:
    """List the shipped profiles."""
    for name in shipped_profiles():
        profile = load_profile(name)
        summary = " ".join(profile.description.split())
        typer.echo(f"{name}: {summary}")


@app.command("plan")
def plan_command(
    profile: ProfileArg,
    agent: AgentOpt = None,
    model: ModelOpt = None,
    trials: TrialsOpt = None,
    replay: ReplayOpt = None,
    endpoint: EndpointOpt = None,
    runs: Annotated[bool, typer.Option("--runs/--no-runs", help="List every run.")] = True,
) -> None:
    """Print the planned runs of a profile and their count."""
    loaded = load_profile(profile)
    options = PlanOptions(tuple(agent or ()), tuple(model or ()), trials)
    where = str(resolve_profile_path(profile))
    planned, _ = plan_profile(loaded, options, where, True, replay, endpoint)
    if runs:
        for run in planned:
            typer.echo(f"{run.run_id}\t{run.cell.key}\t{run.trial}")
    make_console().print(_plan_table(planned))
    typer.echo(f"{len(planned)} runs planned")


@app.command("run")
def run_command(
    results: Annotated[Path, typer.Option("--results", help="Results directory.")],
    profile: ResumedProfileArg = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue a campaign, with the options it recorded."),
    ] = False,
    executor: Annotated[str, typer.Option("--executor", help="local or ray.")] = "local",
    jobs: Annotated[int | None, typer.Option("--jobs", min=1, help="Runs at once.")] = None,
    agent: AgentOpt = None,
    model: ModelOpt = None,
    trials: TrialsOpt = None,
    ray_address: RayAddressOpt = None,
    max_cost: Annotated[float | None, typer.Option("--max-cost", help="USD budget.")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="Token budget.")] = None,
    max_hours: Annotated[float | None, typer.Option("--max-hours", help="Wall-clock.")] = None,
    simulate: SimulateOpt = None,
    sandbox: SandboxOpt = None,
    endpoint: EndpointOpt = None,
    replay: ReplayOpt = None,
    source: SourceOpt = None,
    home: HomeOption = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Run every planned run that has no complete result record yet."""
    given = CampaignOptions(
        profile, tuple(source or ()), (), sandbox, endpoint, replay, simulate,
        tuple(agent or ()), tuple(model or ()), trials,
    )  # fmt: skip
    options = with_recorded(given, results) if resume else given
    request = _request(options, results, resume, home)
    if request.runs.simulation is None:
        warn_if_unisolated(request.runs.sandbox)
    request = dataclasses.replace(
        request,
        executor=ExecutorChoice(executor, jobs, ray_address),
        budget=budget_overrides(max_cost, max_tokens, max_hours),
    )
    prepared = prepare_campaign(request)
    try:
        if progress:
            with LiveProgress() as live:
                report = execute_campaign(prepared, live)
        else:
            report = execute_campaign(prepared)
    except KeyboardInterrupt:
        typer.echo("aborted; complete runs are kept, run again with --resume", err=True)
        raise typer.Exit(130) from None
    _print_report(report)
    if report.missing:
        raise typer.Exit(1)


def _request(
    options: CampaignOptions, results: Path, resume: bool, home: Path | None
) -> CampaignRequest:
    """The campaign the options describe (executor and budget left at their defaults)."""
    if options.profile is None:
        if resume:
            profile_of(options, results)  # raises, naming what to give
        raise typer.BadParameter("give a shipped profile name or a .toml path")
    sources, named = _sources(list(options.sources), dict(options.recorded_sources))
    simulate = options.simulate
    return CampaignRequest(
        profile=load_profile(options.profile),
        where=str(resolve_profile_path(options.profile)),
        results=results,
        plan=PlanOptions(options.agents, options.models, options.trials, simulate is None),
        runs=RunSetup(
            home=home,
            sources=sources,
            named_sources=named,
            sandbox=options.sandbox or default_sandbox_name(),
            endpoint=options.endpoint,
            simulation=None if simulate is None else parse_simulation(simulate),
            simulation_spec=simulate,
            replay=options.replay,
        ),
        resume=resume,
        profile_name=options.profile,
    )


def _print_report(report: CampaignReport) -> None:
    typer.echo(
        f"{report.complete}/{report.planned} complete ({report.done} done and "
        f"{report.failed} failed now, {report.complete_before} before"
        + (
            f", {report.completed_elsewhere} by another driver"
            if report.completed_elsewhere
            else ""
        )
        + "); "
        f"{report.infra_errors} infrastructure errors; ${report.cost_usd:,.2f}, "
        f"{report.tokens:,} tokens"
    )
    _print_provider_counts(report)
    _print_infra_reasons(report.infra_reasons, report.infra_hints, "infrastructure errors")
    if report.stopped:
        typer.echo(f"stopped: {report.stopped}")
    if report.missing:
        typer.echo(f"{report.missing} runs missing; run again with --resume to continue")


def _print_provider_counts(report: CampaignReport) -> None:
    """The attempts the provider ended that were tried again, and the runs left as the
    provider's outcome, by kind in words: never the model's failures."""
    if report.provider_retries:
        tried = sum(report.provider_retries.values())
        typer.echo(
            f"provider retries: {tried} attempts the provider ended were tried again "
            f"({_kinds_in_words(report.provider_retries)})"
        )
    if report.provider_outcomes:
        ended = sum(report.provider_outcomes.values())
        typer.echo(
            f"runs the provider ended: {ended}, not the model's failures, missing until "
            f"--resume runs them ({_kinds_in_words(report.provider_outcomes)})"
        )


def _kinds_in_words(counts: Mapping[str, int]) -> str:
    """``2 rate_limited: the provider rate-limited the agent; 1 auth_error: ...``,
    commonest first."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(f"{count} {kind}: {_in_words(kind)}" for kind, count in ranked)


def _in_words(kind: str) -> str:
    return next((words for name, words in IN_WORDS.items() if name == kind), kind)


def _print_infra_reasons(reasons: Mapping[str, int], hints: Mapping[str, str], title: str) -> None:
    """The commonest errors first, each with its hint (what to do); each attempt's full
    text is under runs/<id>/attempts/."""
    if not reasons:
        return
    typer.echo(f"{title}, commonest first (full text: runs/<run>/attempts/<n>.json):")
    ranked = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
    for reason, count in ranked[:_SHOWN_REASONS]:
        typer.echo(f"  {count}x {reason}")
        if reason in hints:
            typer.echo(f"     hint: {hints[reason]}")
    if len(ranked) > _SHOWN_REASONS:
        typer.echo(f"  ... and {len(ranked) - _SHOWN_REASONS} more")


@app.command("status")
def status_command(
    results: Annotated[Path, typer.Argument(help="Results directory of a campaign.")],
    incomplete: Annotated[
        bool, typer.Option("--incomplete", help="Show only cells with missing runs.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Show done, failed and missing runs per cell."""
    status = campaign_status(ResultsDir(results))
    if as_json:
        typer.echo(canonical_json(status_document(status)), nl=False)
        return
    if status.settings is not None:
        typer.echo(f"runs executed with: {_describe_settings(status.settings)}")
    make_console().print(_status_table(status, incomplete))
    typer.echo(
        f"{status.total('done')} done, {status.total('failed')} failed, "
        f"{status.total('missing')} missing ({status.total('running')} running) "
        f"of {status.total('planned')} planned"
    )
    if status.unplanned:
        typer.echo(f"{len(status.unplanned)} run directories not in the plan")
    _print_infra_reasons(
        status.infra_errors, status.infra_hints, "missing runs' last infrastructure errors"
    )
    for task, by_truth in status.mixed_truths.items():
        counts = ", ".join(f"{len(ids)} on {sha[:12]}" for sha, ids in by_truth.items())
        typer.echo(
            f"warning: runs of {task} were scored against {len(by_truth)} different ground "
            f"truths ({counts}), so their rewards do not compare. `--json` lists the runs "
            "under mixed_ground_truths: delete the stale ones under runs/ and run the "
            "campaign again with --resume"
        )


def _describe_settings(settings: RunSettings) -> str:
    if settings.simulated:
        return "--simulate (simulated runs: not publishable, no agent ran)"
    return settings.as_options()


def _sources(
    items: list[str], recorded: dict[str, str] | None = None
) -> tuple[dict[str, str], frozenset[str]]:
    """``--source DATASET=NAME`` options over the recorded (on --resume) and default
    sources, and the datasets they name."""
    sources = {**DEFAULT_SOURCES, **(recorded or {})}
    named: set[str] = set()
    for item in items:
        dataset, sep, name = item.partition("=")
        if not sep or dataset not in sources or not name:
            raise typer.BadParameter(
                f"{item!r}: expected mimic-iv=NAME or eicu=NAME", param_hint="--source"
            )
        sources[dataset] = name
        named.add(dataset)
    return sources, frozenset(named)


def _plan_table(planned: list[PlannedRun]) -> Table:
    counts: dict[tuple[str, ...], int] = {}
    for run in planned:
        cell = run.cell
        key: tuple[str, ...] = (cell.agent, cell.model, cell.condition, cell.schema_name)
        counts[key] = counts.get(key, 0) + 1
    table = Table(title="planned runs")
    for column in ("agent", "model", "condition", "schema", "runs"):
        table.add_column(column, justify="right" if column == "runs" else "left")
    for key in sorted(counts):
        table.add_row(*key, str(counts[key]))
    return table


def _status_table(status: CampaignStatus, incomplete: bool) -> Table:
    """One row per cell; columns that are the same for every cell go to the title."""
    shown = [c for c in status.cells if c.missing or not incomplete]
    fields = ("task", "condition", "schema_name", "agent", "model", "reasoning")
    varying = [f for f in fields if len({getattr(c.cell, f) for c in status.cells}) > 1]
    constant = [
        f"{name.removesuffix('_name')} {getattr(status.cells[0].cell, name)}"
        for name in fields
        if name not in varying and status.cells
    ]
    table = Table(title=f"campaign {status.profile}: " + ", ".join(constant))
    for name in varying:
        table.add_column(name.removesuffix("_name"), overflow="fold")
    for column in ("done", "failed", "missing", "mean reward"):
        table.add_column(column, justify="right")
    table.add_column("failure reasons", overflow="fold")
    provider = any(cell.infrastructure for cell in status.cells)
    if provider:
        table.add_column("provider ended (missing)", overflow="fold")
    for cell_status in shown:
        reasons = ", ".join(f"{k} x{v}" for k, v in sorted(cell_status.failure_reasons.items()))
        ended = ", ".join(f"{k} x{v}" for k, v in sorted(cell_status.infrastructure.items()))
        table.add_row(
            *(str(getattr(cell_status.cell, name)) for name in varying),
            str(cell_status.done),
            str(cell_status.failed),
            str(cell_status.missing),
            "" if cell_status.mean_reward is None else f"{cell_status.mean_reward:.3f}",
            reasons,
            *((ended,) if provider else ()),
        )
    return table
