"""The individual preflight checks; each returns :class:`Check` records, never raises."""

from __future__ import annotations

import json
import tempfile
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.agents.base import AgentContext
from m4bench.agents.registry import BUILTIN_ADAPTERS, get_adapter
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.provision.layout import SchemaVariant
from m4bench.provision.preflight import provisioning_checks
from m4bench.results.layout import CampaignFolder
from m4bench.runner.agent_command import check_agent_command, host_sees_programs
from m4bench.runner.builtin_agents import python_runtime_mounts
from m4bench.runner.canary import forbidden_paths, run_canary
from m4bench.runner.credentials import credential_source, missing_credentials
from m4bench.sandbox import Mount, SandboxSpec, get_sandbox
from m4bench.sandbox.bwrap import check_bwrap_available
from m4bench.sources.layout import Source, load_source
from m4bench.tasks.catalog import Task, catalog_roots
from m4bench.tasks.lint import lint_catalog

_SHOWN = 3


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def check_catalog_lint(run_references: bool = False, root: Path | None = None) -> Check:
    """The task catalog (default: the package's) passes every lint rule; reference
    queries run only when asked."""
    found = lint_catalog(root, run_references=run_references)
    findings = [f for f in found if f.severity == "error"]
    if not findings:
        return Check("catalog lint", True, "no errors in the task catalog")
    shown = "; ".join(str(f) for f in findings[:_SHOWN])
    return Check(
        "catalog lint",
        False,
        f"{len(findings)} lint errors: {shown}",
        "run `m4bench tasks lint` and fix each finding",
    )


def check_source(home: DataHome, name: str, dataset: str) -> tuple[Check, Source | None]:
    """The source exists and is readable."""
    try:
        source = load_source(home, name)
    except M4BenchError as exc:
        command = "mimic-iv" if dataset == "mimic-iv" else "eicu"
        return Check(
            f"source {name}",
            False,
            exc.message,
            f"`m4bench data synth {command}` (synthetic) or `m4bench data ingest {command} PATH`",
        ), None
    rows = sum(entry.rows for entry in source.manifest.tables.values())
    return Check(f"source {name}", True, f"{len(source.manifest.tables)} tables, {rows:,} rows"), (
        source
    )


def check_provisioning(
    home: DataHome, source: Source, tasks: Sequence[Task], variant: SchemaVariant
) -> Check:
    """Ground truth of every task and its agent catalog for ``variant`` are valid."""
    results = provisioning_checks(home, source, tasks, [variant])
    failed = [r for r in results if not r.ok]
    name = f"provisioning {source.name} ({variant})"
    if not failed:
        return Check(name, True, f"{len(results)} ground truth and agent catalog checks passed")
    shown = "; ".join(f"{r.name}: {r.detail}" for r in failed[:_SHOWN])
    schema = "" if variant == "native" else f" --schema {variant}"
    return Check(
        name,
        False,
        f"{len(failed)} of {len(results)} invalid: {shown}",
        f"`m4bench setup --source {source.name}{schema}`",
    )


def check_sandbox(name: str, home: DataHome, results: Path | None) -> Check:
    """The backend works and its filesystem canary sees none of the protected paths."""
    label = f"sandbox {name} and its canary"
    try:
        if name == "bwrap":
            check_bwrap_available()
        box = get_sandbox(name)
    except M4BenchError as exc:
        return Check(label, False, exc.message, exc.hint or "install bubblewrap")
    if not box.isolated:
        return Check(
            label, False, f"the {name} backend isolates nothing", "use --sandbox bwrap or docker"
        )
    protected = [*catalog_roots(), home.root, *([results] if results else [])]
    runtime = python_runtime_mounts()
    with tempfile.TemporaryDirectory(prefix="m4bench-preflight-") as scratch:
        workdir, logs = Path(scratch) / "workdir", Path(scratch) / "logs"
        workdir.mkdir()
        logs.mkdir()
        protected.append(logs)
        spec = SandboxSpec(
            workdir=workdir,
            log_dir=logs,
            mounts=tuple(Mount(host=h, sandbox=s) for h, s in runtime),
        )
        paths = forbidden_paths(protected, Path.home(), [h for h, _ in runtime])
        try:
            verdict = run_canary(box, spec, paths)
        except M4BenchError as exc:  # the backend is there but cannot start a sandbox
            return Check(label, False, exc.message, exc.hint or "see docs/sandbox.md")
    if verdict.passed:
        return Check(label, True, f"{len(verdict.probed)} protected paths invisible")
    seen = ", ".join(verdict.visible[:_SHOWN])
    return Check(
        label,
        False,
        f"{verdict.detail}{': ' + seen if seen else ''}",
        "run agents only in a sandbox that hides the data home and results (see docs/sandbox.md)",
    )


def check_results_dir(results: Path, profile: str | None) -> Check:
    """The results directory is new or empty (fresh), or holds this profile's campaign."""
    name = f"results {results}"
    if not results.exists() or (results.is_dir() and not any(results.iterdir())):
        return Check(name, True, "fresh")
    manifest = CampaignFolder(results).manifest
    if not manifest.is_file():
        return Check(
            name,
            False,
            "not empty and holds no campaign",
            "choose a new --results directory or empty this one",
        )
    try:
        recorded = json.loads(manifest.read_text(encoding="utf-8")).get("profile")
    except (OSError, ValueError) as exc:
        return Check(name, False, f"{manifest} is unreadable: {exc}", "remove or repair it")
    if profile is not None and recorded != profile:
        return Check(
            name,
            False,
            f"holds campaign {recorded!r}, not {profile!r}",
            "choose a new --results directory for this profile",
        )
    return Check(name, True, f"resumable: campaign {recorded!r} (pass --resume)")


def check_agent_programs(agents: Sequence[str], sandbox: str) -> Check:
    """Every CLI agent the profile runs has its program where the sandbox sees it.

    The harness's own agents (oracle, replay, mutants, react) run the harness's Python
    and are not looked up.
    """
    checked = sorted(set(agents) & set(BUILTIN_ADAPTERS) - {"react"})
    if checked and not host_sees_programs(sandbox):
        detail = f"{', '.join(checked)}: provided by the {sandbox} image, not looked up here"
        return Check("agent programs", True, detail)
    missing: list[str] = []
    probe = AgentContext(workdir=Path("/work"), instruction_path=Path("/work/instruction.md"))
    for name in checked:
        adapter = get_adapter(name)
        path = adapter.environment(probe).get("PATH", "")
        try:
            check_agent_command(name, adapter.command(probe), path, sandbox)
        except M4BenchError as exc:
            missing.append(exc.message)
    if missing:
        return Check("agent programs", False, "; ".join(missing), "install them: docs/agents.md")
    detail = f"found: {', '.join(checked)}" if checked else "no CLI agent in this profile"
    return Check("agent programs", True, detail)


def check_credentials(agents: Sequence[str], endpoint: str | None = None) -> Check:
    """Every agent the profile runs has an API key in one of its adapter's variables
    (the runner passes those from the environment); the react agent needs none for a
    local endpoint. Names variables, never values."""
    missing: list[str] = []
    found: list[str] = []
    for name in sorted(set(agents) & set(BUILTIN_ADAPTERS)):
        adapter = get_adapter(name)
        problem = missing_credentials(name, adapter, endpoint)
        if problem is None:
            found.append(credential_source(name, adapter, endpoint))
        else:
            missing.append(problem)
    if missing:
        return Check(
            "agent credentials",
            False,
            "; ".join(missing),
            "export the agent's key in the shell that runs m4bench (e.g. `export "
            "OPENAI_API_KEY=...`); see docs/agents.md",
        )
    return Check("agent credentials", True, "; ".join(found) or "no agent needs a key")


def check_endpoint(endpoint: str, timeout: float = 5.0) -> Check:
    """A model server answers at ``endpoint`` (any HTTP status will do: something is
    listening). Connected to directly, as the sandbox's egress proxy connects to it."""
    name = f"model endpoint {endpoint}"
    url = endpoint.rstrip("/") + "/models"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        fix = "start the model server, or fix --endpoint (an http(s) URL ending in /v1)"
        return Check(name, False, f"no answer from {url}: {reason}", fix)
    return Check(name, True, f"{url} answered (HTTP {status})")
