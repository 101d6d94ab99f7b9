"""``run_preflight``: the checks a campaign's profile calls for, in a fixed order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from m4bench.campaign import PlanOptions, facts_from_catalog, load_profile, plan_campaign
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.preflight.checks import (
    Check,
    check_agent_programs,
    check_catalog_lint,
    check_credentials,
    check_endpoint,
    check_provisioning,
    check_results_dir,
    check_sandbox,
    check_source,
)
from m4bench.provision.layout import SchemaVariant
from m4bench.sandbox import default_sandbox_name
from m4bench.sources.defaults import DEFAULT_SOURCES
from m4bench.tasks.catalog import load_catalog

Step = Callable[[str], None]


@dataclass
class PreflightOptions:
    results: Path | None = None
    profile: str | None = None
    sources: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SOURCES))
    sandbox: str = field(default_factory=default_sandbox_name)
    run_references: bool = False
    lint: bool = True
    tasks: list[str] | None = None
    """Tasks to check without a profile (default: every task of the catalog)."""
    agents: tuple[str, ...] = ()
    """Agents the profile's campaign runs (default: its default agent)."""
    endpoint: str | None = None
    """The model endpoint the campaign's react agent will use, checked when given."""


@dataclass(frozen=True)
class _Needs:
    tasks: dict[str, set[str]]
    """Task names per dataset."""
    variants: set[SchemaVariant]
    profile: str | None = None
    agents: frozenset[str] = frozenset()


def _needs(profile: str | None, names: list[str] | None, agents: tuple[str, ...] = ()) -> _Needs:
    """Tasks per dataset, schema variants and agents the profile plans (without a
    profile: the named tasks, else all, native only, no agent)."""
    catalog = load_catalog()
    if profile is None:
        tasks: dict[str, set[str]] = {}
        chosen = [catalog.task(n) for n in names] if names is not None else catalog.tasks
        for task in chosen:
            tasks.setdefault(task.card.dataset, set()).add(task.name)
        return _Needs(tasks, {"native"})
    loaded = load_profile(profile)
    runs = plan_campaign(loaded, PlanOptions(agents, strict=False), facts_from_catalog())
    tasks = {}
    variants: set[SchemaVariant] = set()
    for run in runs:
        tasks.setdefault(catalog.task(run.cell.task).card.dataset, set()).add(run.cell.task)
        variants.add(run.cell.schema_name)
    return _Needs(tasks, variants, loaded.name, frozenset(run.cell.agent for run in runs))


def run_preflight(
    home: DataHome, options: PreflightOptions | None = None, step: Step | None = None
) -> list[Check]:
    """Every check, in order: catalog lint, sources, provisioning per schema the profile
    needs, perturbed schemas, sandbox and canary, agent programs and credentials, model
    endpoint, results directory."""
    opts = options or PreflightOptions()
    say = step or (lambda _name: None)
    checks: list[Check] = []
    try:
        needs = _needs(opts.profile, opts.tasks, opts.agents)
    except M4BenchError as exc:
        return [Check(f"profile {opts.profile}", False, exc.message, exc.hint or "")]
    if opts.lint:
        say("catalog lint")
        checks.append(check_catalog_lint(opts.run_references))
    catalog = load_catalog()
    for dataset in sorted(needs.tasks):
        name = opts.sources.get(dataset, DEFAULT_SOURCES.get(dataset, dataset))
        say(f"source {name}")
        source_check, source = check_source(home, name, dataset)
        checks.append(source_check)
        if source is None:
            continue
        chosen = [catalog.task(t) for t in sorted(needs.tasks[dataset])]
        for variant in sorted(needs.variants):
            if variant != "native" and dataset != "mimic-iv":
                continue
            say(f"provisioning {name} {variant}")
            checks.append(check_provisioning(home, source, chosen, variant))
    checks.append(_perturbed_note(needs.variants, needs.profile is not None))
    say("sandbox")
    checks.append(check_sandbox(opts.sandbox, home, opts.results))
    if needs.profile is not None:
        checks.append(check_agent_programs(sorted(needs.agents), opts.sandbox))
        checks.append(check_credentials(sorted(needs.agents), opts.endpoint))
    if opts.endpoint is not None:
        say("model endpoint")
        checks.append(check_endpoint(opts.endpoint))
    if opts.results is not None:
        checks.append(check_results_dir(opts.results.expanduser().resolve(), needs.profile))
    return checks


def _perturbed_note(variants: set[SchemaVariant], from_profile: bool) -> Check:
    needed = sorted(v for v in variants if v != "native")
    if not needed:
        why = "this profile runs the native schema only" if from_profile else "no --profile given"
        return Check("perturbed schemas", True, f"not checked: {why}")
    return Check("perturbed schemas", True, f"needed: {', '.join(needed)} (checked above)")
