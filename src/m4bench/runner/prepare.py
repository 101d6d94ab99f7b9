"""Everything before the agent starts: task, truth, workdir, adapter, sandbox spec."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from m4bench.agents.base import AgentAdapter, AgentContext
from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, sha256_file, sha256_text
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import agent_mounts, load_catalog_manifest
from m4bench.provision.ground_truth import (
    GroundTruthManifest,
    manifest_path_for,
)
from m4bench.provision.layout import (
    DICTIONARY_FILE,
    mapping_path,
    task_catalog_paths,
)
from m4bench.results.identity import DEFAULT_MODEL, RunSpec
from m4bench.results.layout import INSTRUCTION_FILE
from m4bench.results.record import GroundTruthRecord, SkillRecord
from m4bench.runner.agent_choice import AgentInputs, resolve_adapter
from m4bench.runner.agent_command import check_agent_command
from m4bench.runner.canary import forbidden_paths
from m4bench.runner.checks import run_timeout, task_inputs
from m4bench.runner.conditions import condition_skills, schema_rewriter
from m4bench.runner.instruction import assemble_instruction, read_dictionary
from m4bench.runner.workdir import (
    RunPaths,
    place_database,
    place_instruction,
    place_skills,
)
from m4bench.runner.workdir_files import DEFAULT_MAX_OUTPUT_BYTES
from m4bench.runner.workdir_sweep import sweep_unfinished_attempts
from m4bench.sandbox import Limits, Mount, NetworkMode, ProcessSandbox, SandboxSpec
from m4bench.sandbox.spec import DEFAULT_WORKDIR_IN_SANDBOX
from m4bench.sources.layout import load_source
from m4bench.sources.parquet_check import check_parquet_files
from m4bench.tasks.catalog import Task, load_catalog

if TYPE_CHECKING:
    from m4bench.runner.execute import RunOptions

AGENT_HOME = ".home"  # HOME of an unisolated agent; a sandboxed one gets its private /tmp
_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class PreparedRun:
    """A run ready to start."""

    spec: RunSpec
    task: Task
    truth: Path
    ground_truth: GroundTruthRecord | None
    adapter: AgentAdapter
    context: AgentContext
    sandbox_spec: SandboxSpec
    argv: list[str]
    timeout: float
    skills: list[SkillRecord]
    forbidden: list[Path]
    credentials: Mapping[str, str]
    isolated: bool
    backend: str
    instruction: str
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES


def prepare_run(
    spec: RunSpec,
    home: DataHome,
    source: str,
    paths: RunPaths,
    box: ProcessSandbox,
    opts: RunOptions,
) -> PreparedRun:
    sweep_unfinished_attempts(paths)
    catalog = opts.catalog or load_catalog()
    task, truth, mapping = task_inputs(spec, home, source, catalog)
    dictionary = _dictionary(spec, home, source)
    text = assemble_instruction(task, spec.condition, spec.schema_name, dictionary)
    place_instruction(paths.workdir, text)
    mounted = agent_mounts(home, source, spec.schema_name, task.name)
    check_parquet_files((host for host, _ in mounted), load_source(home, source))
    mounts = place_database(home, source, spec.schema_name, task.name, paths.workdir, box.isolated)
    catalog_paths = task_catalog_paths(home, source, spec.schema_name, task.name)
    present = set(load_catalog_manifest(catalog_paths).relations)
    inputs = AgentInputs(
        task, present, spec.schema_name, mapping, opts.replay_file, opts.mutants, opts.endpoint
    )
    adapter = resolve_adapter(spec.agent, inputs)
    timeout = run_timeout(task, opts.timeout)
    credentials = _credentials(adapter, opts.credentials)
    agent_workdir = DEFAULT_WORKDIR_IN_SANDBOX if box.isolated else paths.workdir
    ctx = _context(spec, agent_workdir, opts, timeout, credentials, box.isolated)
    if not box.isolated:
        (paths.workdir / AGENT_HOME).mkdir()
    rewrite = schema_rewriter(spec.schema_name, mapping)
    skills = condition_skills(task, spec.condition, catalog, rewrite)
    place_skills(adapter, ctx, paths.workdir, skills)
    runtime = [Mount(host=h, sandbox=s) for h, s in adapter.runtime_mounts()]
    sandbox_spec = _sandbox_spec(adapter, ctx, paths, mounts + runtime, opts, timeout)
    argv = adapter.command(ctx)
    check_agent_command(adapter.name, argv, sandbox_spec.env.get("PATH", ""), box.name)
    protected = [truth.parent, *catalog.roots, home.root, paths.run_dir.parent, paths.logs]
    if mapping is not None:
        protected.append(mapping_path(home, source))
    return PreparedRun(
        spec=spec,
        task=task,
        truth=truth,
        ground_truth=ground_truth_record(truth),
        adapter=adapter,
        context=ctx,
        sandbox_spec=sandbox_spec,
        argv=argv,
        timeout=timeout,
        skills=[
            SkillRecord(folder=s.folder, origin=s.origin, sha256=sha256_text(s.text))
            for s in skills
        ],
        forbidden=forbidden_paths(protected, Path.home(), [m.host for m in runtime]),
        credentials=credentials,
        isolated=box.isolated,
        backend=box.name,
        instruction=text,
        max_output_bytes=opts.max_output_bytes,
    )


def _sandbox_spec(
    adapter: AgentAdapter,
    ctx: AgentContext,
    paths: RunPaths,
    mounts: list[Mount],
    opts: RunOptions,
    timeout: float,
) -> SandboxSpec:
    endpoints = adapter.default_endpoints(ctx)
    return SandboxSpec(
        workdir=paths.workdir,
        log_dir=paths.logs,
        mounts=tuple(mounts),
        env=adapter.environment(ctx),
        network=NetworkMode.PROXY if endpoints else NetworkMode.NONE,
        allowed_endpoints=endpoints,
        limits=opts.limits or default_limits(timeout),
        kill_grace_seconds=_GRACE_SECONDS,
    )


def default_limits(timeout: float) -> Limits:
    """CPU time a little above two cores for the whole timeout; 8 GiB per file; 256
    processes; a 1 GiB private /tmp. The rest are :class:`~m4bench.sandbox.Limits`'
    defaults: memory is capped per process by its writable data (RLIMIT_DATA, half the
    host's memory; not the address space, which DuckDB reserves and never touches), and
    the workdir by its bytes and entries (32 GiB, 200,000)."""
    return Limits(
        cpu_seconds=int(timeout * 2) + 60,
        file_size_bytes=8 << 30,
        processes=256,
        tmp_size_bytes=1 << 30,
    )


def ground_truth_record(truth: Path) -> GroundTruthRecord | None:
    """The truth's identity from the manifest provisioning wrote beside it (None when
    there is none). Raises before the agent starts when the manifest cannot be read or
    no longer describes the file: the score would rest on an unknown answer."""
    manifest_file = manifest_path_for(truth)
    if not manifest_file.exists():
        return None
    manifest = read_model(manifest_file, GroundTruthManifest)
    hint = "rebuild it with `m4bench setup` for this source and task"
    if truth.stat().st_size != manifest.output_bytes:
        raise M4BenchError(
            f"{truth}: the ground truth is not the file its manifest describes "
            f"({truth.stat().st_size} bytes, the manifest says {manifest.output_bytes})",
            hint=hint,
        )
    digest = sha256_file(truth)
    if digest != manifest.output_sha256:
        raise M4BenchError(
            f"{truth}: the ground truth is not the file its manifest describes "
            f"(sha256 {digest[:12]}..., the manifest says {manifest.output_sha256[:12]}...)",
            hint=hint,
        )
    return GroundTruthRecord(
        key=manifest.key,
        sha256=manifest.output_sha256,
        rows=manifest.rows,
        source_fingerprint=manifest.inputs.source_fingerprint,
    )


def _dictionary(spec: RunSpec, home: DataHome, source: str) -> str | None:
    if spec.schema_name == "native":
        return None
    root = task_catalog_paths(home, source, spec.schema_name, spec.task).root
    return read_dictionary(root / DICTIONARY_FILE)


def _credentials(adapter: AgentAdapter, given: Mapping[str, str] | None) -> dict[str, str]:
    """Only the adapter's own credential variables, from ``given`` or the environment."""
    pool = given if given is not None else os.environ
    return {name: pool[name] for name in adapter.credential_env if pool.get(name)}


def _context(
    spec: RunSpec,
    workdir: Path,
    opts: RunOptions,
    timeout: float,
    credentials: Mapping[str, str],
    isolated: bool,
) -> AgentContext:
    return AgentContext(
        workdir=workdir,
        instruction_path=workdir / INSTRUCTION_FILE,
        model=None if spec.model == DEFAULT_MODEL else spec.model,
        endpoint=opts.endpoint,
        database=workdir / "agent.duckdb",
        home=Path("/tmp") if isolated else workdir / AGENT_HOME,
        credentials=dict(credentials),
        reasoning_effort=None if spec.reasoning == "auto" else spec.reasoning,
        wall_seconds=max(timeout - _GRACE_SECONDS, 1.0),
    )
