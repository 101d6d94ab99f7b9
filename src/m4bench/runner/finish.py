"""Everything after the agent stops: keep artifacts, lint, score, decide, record.

Only regular files are taken from the workdir, in bounded amounts (never through links
the agent planted; see :mod:`m4bench.runner.workdir_files`): whatever the agent left
where ``output.csv`` should be ends as its failure, never the harness's. Traces and
stderr are redacted line by line with a cap on line length before they are stored; the
raw logs are then removed, and every kept file is private (0600).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from m4bench.agents.atif import EPOCH, UNKNOWN_VERSION, TrajectoryContext, write_trajectory
from m4bench.agents.base import TraceSummary
from m4bench.agents.outcome import IN_WORDS, InfraFailure
from m4bench.agents.usage import Usage
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, make_private, sha256_file
from m4bench.home import DataHome
from m4bench.results.layout import (
    ARTIFACTS,
    DIFF_FILE,
    EGRESS_FILE,
    INSTRUCTION_FILE,
    OUTPUT_FILE,
    STDERR_FILE,
    TRACE_FILE,
    TRAJECTORY_FILE,
)
from m4bench.results.record import (
    INFRASTRUCTURE,
    UNFINISHED,
    Artifact,
    ResultRecord,
    SandboxRecord,
    Status,
    Timings,
    infra_kind,
)
from m4bench.results.reward import reward_for
from m4bench.results.verdicts import CanaryVerdict, EgressVerdict, LintVerdict, TraceVerdict
from m4bench.runner.contamination import lint_workdir, redact_file
from m4bench.runner.lifecycle import decide_status, egress_verdict
from m4bench.runner.prepare import PreparedRun
from m4bench.runner.trace_check import check_trace, suspect_reason
from m4bench.runner.workdir import RunPaths
from m4bench.runner.workdir_files import explain_refusal, take_regular_file
from m4bench.runner.workdir_sweep import discard_attempt_files
from m4bench.sandbox import SandboxResult
from m4bench.scoring import Score, score_output


def finish_run(
    prepared: PreparedRun,
    paths: RunPaths,
    home: DataHome,
    record: ResultRecord,
    canary: CanaryVerdict,
    result: SandboxResult | None,
    timings: Timings,
    keep_workdir: bool = False,
) -> ResultRecord:
    clock = time.monotonic()
    atomic_write_text(paths.artifact(INSTRUCTION_FILE), prepared.instruction)
    taken = take_regular_file(
        paths.workdir / OUTPUT_FILE, paths.artifact(OUTPUT_FILE), prepared.max_output_bytes
    )
    has_output = taken.copied
    kept = _keep_trace(prepared, paths, home, result) if result is not None else None
    summary, agent_version, truncated = kept if kept is not None else (None, None, {})
    summary, trace = _checked(prepared, paths, summary, result)
    egress = egress_verdict(prepared.sandbox_spec)
    if prepared.sandbox_spec.egress_log_path.exists():
        shutil.copyfile(prepared.sandbox_spec.egress_log_path, paths.artifact(EGRESS_FILE))
    lint = _lint(prepared, paths, home) if result is not None else None
    failure = _infrastructure_failure(prepared, paths, result)
    status, detail = decide_status(canary, egress, result, has_output, failure)
    score_clock = time.monotonic()
    # The output of a run the provider ended is not the model's answer: never scored.
    score = _score(prepared, paths) if has_output and status not in INFRASTRUCTURE else None
    timings.score = time.monotonic() - score_clock
    detail = explain_refusal(status, detail, taken.refusal)
    publishable, reason = publishability(prepared, canary, egress, lint, status)
    if publishable and trace is not None and trace.suspect:
        publishable, reason = False, suspect_reason(trace)
    discard_attempt_files(paths, keep_workdir)
    timings.finish = time.monotonic() - clock - timings.score
    return record.model_copy(
        update={
            "skills": prepared.skills,
            "sandbox": _sandbox_record(prepared, result, canary, egress, lint),
            "status": status,
            "status_detail": detail,
            "timings": timings,
            "usage": summary.usage if summary is not None else Usage(),
            "score": score,
            "ground_truth": prepared.ground_truth if score is not None else None,
            "reward": reward_for(score),
            "publishable": publishable,
            "publishable_reason": reason,
            "trace": trace,
            "artifacts": _artifacts(paths, truncated),
            "versions": record.versions.model_copy(
                update={
                    "agent": agent_version,
                    "models_reported": summary.model_strings if summary else [],
                }
            ),
            "error": detail if status in UNFINISHED else None,
            "retry_after": failure.retry_after if failure and status == failure.kind else None,
        }
    )


def _checked(
    prepared: PreparedRun,
    paths: RunPaths,
    summary: TraceSummary | None,
    result: SandboxResult | None,
) -> tuple[TraceSummary | None, TraceVerdict | None]:
    """The summary with the counts the record keeps, and the verdict on the trace
    (:mod:`m4bench.runner.trace_check`); nothing when the agent did not run."""
    if summary is None or result is None:
        return summary, None
    return check_trace(
        prepared.spec.agent,
        paths.artifact(TRACE_FILE),
        summary,
        result.observed_usage,
        prepared.context.max_tokens,
    )


def _infrastructure_failure(
    prepared: PreparedRun, paths: RunPaths, result: SandboxResult | None
) -> InfraFailure | None:
    """The adapter's explicit report that the model provider or its endpoint failed."""
    if result is None or not result.sandbox_started or result.timed_out:
        return None
    trace = paths.artifact(TRACE_FILE)
    stderr = paths.artifact(STDERR_FILE)
    return prepared.adapter.infrastructure_failure(
        prepared.context, result.returncode, trace, stderr if stderr.is_file() else None
    )


def publishability(
    prepared: PreparedRun,
    canary: CanaryVerdict,
    egress: EgressVerdict,
    lint: LintVerdict | None,
    status: Status,
) -> tuple[bool, str]:
    """Whether the run may count in published results, and why (the first reason)."""
    if not prepared.isolated:
        return False, not_isolated_reason(prepared.backend)
    if not canary.passed:
        return False, "the filesystem canary saw forbidden paths"
    if egress.refused:
        return False, "the agent tried to reach a host that is not allowlisted"
    if lint is not None and not lint.passed:
        return False, "the contamination lint flagged the workdir"
    if status == "harness_error":
        return False, "the harness failed"
    kind = infra_kind(status)
    if kind is not None:
        return False, f"not the model's answer: {IN_WORDS[kind]}"
    return True, "isolated; canary, egress and lint clean"


def _keep_trace(
    prepared: PreparedRun, paths: RunPaths, home: DataHome, result: SandboxResult
) -> tuple[TraceSummary, str | None, dict[str, int]]:
    """Store the redacted trace and stderr and the ATIF trajectory; return the trace's
    summary, the agent version the trajectory names (None when unknown) and the lines
    cut or dropped from each stored log."""
    spec = prepared.sandbox_spec
    secrets = list(prepared.credentials.values())
    hidden = [str(Path.home()), str(home.root), str(paths.run_dir)]
    inner = prepared.adapter.trace_file(prepared.context)
    raw = spec.stdout_path
    if inner is not None:
        host = spec.workdir / inner.relative_to(prepared.context.workdir)
        raw = paths.logs / "trace.raw"
        if not take_regular_file(host, raw, prepared.max_output_bytes).copied:
            raw.write_bytes(b"")
    truncated: dict[str, int] = {}
    for source, name in ((raw, TRACE_FILE), (spec.stderr_path, STDERR_FILE)):
        if not source.exists():
            source.write_bytes(b"")
        truncated[name] = redact_file(source, paths.artifact(name), secrets, hidden).truncated
    for source in (spec.stdout_path, spec.stderr_path, raw):
        source.unlink(missing_ok=True)
    context = TrajectoryContext(
        started_at=result.started_at or EPOCH,
        instruction=prepared.instruction,
        session_id=prepared.spec.run_id,
    )
    try:
        summary = prepared.adapter.parse_trace(paths.artifact(TRACE_FILE))
        trajectory = prepared.adapter.to_atif(paths.artifact(TRACE_FILE), context)
    except (ValueError, OSError, M4BenchError) as exc:
        failed = TraceSummary(agent=prepared.spec.agent, errors=[f"unreadable trace: {exc}"])
        return failed, None, truncated
    write_trajectory(paths.artifact(TRAJECTORY_FILE), trajectory)
    version = trajectory.agent.version
    return summary, None if version == UNKNOWN_VERSION else version, truncated


def _lint(prepared: PreparedRun, paths: RunPaths, home: DataHome) -> LintVerdict:
    sensitive = [str(p) for p in prepared.forbidden] + [str(home.root), str(paths.run_dir)]
    return lint_workdir(paths.workdir, sensitive, prepared.credentials.values())


def _score(prepared: PreparedRun, paths: RunPaths) -> Score:
    return score_output(
        prepared.task.card.evaluation,
        prepared.truth,
        paths.artifact(OUTPUT_FILE),
        diff_path=paths.artifact(DIFF_FILE),
    )


def _sandbox_record(
    prepared: PreparedRun,
    result: SandboxResult | None,
    canary: CanaryVerdict,
    egress: EgressVerdict,
    lint: LintVerdict | None,
) -> SandboxRecord:
    limits = prepared.sandbox_spec.limits.model_dump()
    return SandboxRecord(
        backend=prepared.backend,
        isolated=prepared.isolated,
        limits={k: int(v) if v is not None else None for k, v in limits.items()},
        returncode=result.returncode if result else None,
        timed_out=result.timed_out if result else False,
        killed=result.killed if result else False,
        canary=canary,
        egress=egress,
        lint=lint,
        limit_exceeded=result.limit_exceeded if result else None,
    )


def _artifacts(paths: RunPaths, truncated: dict[str, int]) -> dict[str, Artifact]:
    """The kept files, each made private (0600): outputs, logs and the diff hold rows."""
    kept = {}
    for name in ARTIFACTS:
        path = paths.artifact(name)
        if path.is_file():
            make_private(path)
            kept[name] = Artifact(
                path=str(path.relative_to(paths.run_dir)),
                sha256=sha256_file(path),
                bytes=path.stat().st_size,
                truncated_lines=truncated.get(name, 0),
            )
    return kept


def not_isolated_reason(backend: str) -> str:
    """Why a run of an unisolating backend may not be published, in words."""
    return (
        f"the {backend} backend does not isolate the agent: it can read the host's "
        "filesystem (the ground truth included) and other runs' files, and reach the network"
    )
