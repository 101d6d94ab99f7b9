"""One agent process from start to verdict: timeout, egress verdict, status.

The sandbox backend enforces the timeout (SIGTERM to the whole process group, then
SIGKILL after the grace period). The status is decided from harness-side facts only
(the canary verdict, the egress log outside the workdir, how the process ended, whether
``output.csv`` exists) in a fixed order of precedence; the output is scored whatever
the status, so a complete output followed by a timeout stays visible as such.
"""

from __future__ import annotations

import json

from m4bench.agents.outcome import InfraFailure
from m4bench.results.record import Status
from m4bench.results.verdicts import CanaryVerdict, EgressVerdict
from m4bench.sandbox import SandboxResult, SandboxSpec

_SAMPLE = 10


def egress_verdict(spec: SandboxSpec) -> EgressVerdict:
    """Connection attempts the proxy logged; malformed log lines count as refused."""
    verdict = EgressVerdict(
        network=str(spec.network), allowed_endpoints=list(spec.allowed_endpoints)
    )
    log = spec.egress_log_path
    if not log.exists():
        return verdict
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        verdict.connections += 1
        try:
            event = json.loads(line)
            allowed = bool(event.get("allowed"))
            target = f"{event.get('method')} {event.get('host')}:{event.get('port')}"
        except (json.JSONDecodeError, AttributeError):
            allowed, target = False, "unreadable log line"
        if not allowed:
            verdict.refused += 1
            if len(verdict.refused_sample) < _SAMPLE:
                verdict.refused_sample.append(target)
    return verdict


def decide_status(
    canary: CanaryVerdict,
    egress: EgressVerdict | None,
    result: SandboxResult | None,
    has_output: bool,
    failure: InfraFailure | None = None,
) -> tuple[Status, str]:
    """The run's status, most serious first. ``failure``: the adapter's explicit report
    that the model provider or its endpoint failed (the status is then its kind: an
    infrastructure outcome, never scored as the model's answer, retried by a campaign)."""
    if canary.enforced and not canary.passed:
        return "sandbox_violation", f"filesystem canary: {canary.detail} {canary.visible}"
    if egress is not None and egress.refused:
        sample = ", ".join(egress.refused_sample)
        return "egress_violation", f"{egress.refused} refused connection(s): {sample}"
    if result is None:
        return "harness_error", "the agent did not run"
    if not result.sandbox_started:
        return "harness_error", f"the sandbox could not start: {result.sandbox_error or ''}"
    if result.timed_out:
        return "timeout", f"killed after {result.elapsed_seconds:.1f} s"
    if failure is not None:
        return failure.kind, failure.describe()
    if result.returncode != 0:
        return "nonzero_exit", f"exit status {result.returncode}"
    if not has_output:
        return "no_output", "the agent exited cleanly without writing output.csv"
    return "ok", ""
