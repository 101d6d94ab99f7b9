"""The status precedence, from harness-side facts only."""

from __future__ import annotations

from pathlib import Path

from m4bench.agents.outcome import InfraFailure
from m4bench.results.verdicts import CanaryVerdict, EgressVerdict
from m4bench.runner.lifecycle import decide_status, egress_verdict
from m4bench.sandbox import NetworkMode, SandboxResult, SandboxSpec

PASSED = CanaryVerdict(ran=True, passed=True, enforced=True)
CLEAN = EgressVerdict(network="none", allowed_endpoints=[])


def ended(**fields: object) -> SandboxResult:
    base: dict[str, object] = {
        "backend": "bwrap",
        "isolated": True,
        "returncode": 0,
        "timed_out": False,
        "killed": False,
        "elapsed_seconds": 1.0,
        "stdout_path": Path("/x/out"),
        "stderr_path": Path("/x/err"),
        "publishable": True,
        "publishable_reason": "",
    }
    return SandboxResult.model_validate({**base, **fields})


def test_precedence() -> None:
    failed = CanaryVerdict(ran=True, passed=False, enforced=True, visible=["/truth"])
    refused = CLEAN.model_copy(update={"refused": 1, "refused_sample": ["CONNECT a:443"]})
    timed_out = ended(timed_out=True, killed=True, returncode=-15)
    assert decide_status(failed, refused, timed_out, True)[0] == "sandbox_violation"
    assert decide_status(PASSED, refused, timed_out, True)[0] == "egress_violation"
    assert decide_status(PASSED, CLEAN, timed_out, True)[0] == "timeout"
    assert decide_status(PASSED, CLEAN, ended(returncode=2), True)[0] == "nonzero_exit"
    assert decide_status(PASSED, CLEAN, ended(), False)[0] == "no_output"
    assert decide_status(PASSED, CLEAN, ended(), True) == ("ok", "")
    unstarted = ended(returncode=1, sandbox_started=False, sandbox_error="bwrap: no")
    status, detail = decide_status(PASSED, CLEAN, unstarted, False)
    assert status == "harness_error" and "bwrap: no" in detail
    skipped = CanaryVerdict(ran=False, passed=False, enforced=False)
    assert decide_status(skipped, CLEAN, ended(), True)[0] == "ok"


def test_egress_verdict_counts_refusals_and_unreadable_lines(tmp_path: Path) -> None:
    spec = SandboxSpec(
        workdir=tmp_path / "w",
        log_dir=tmp_path / "logs",
        network=NetworkMode.PROXY,
        allowed_endpoints=("api.example.org:443",),
    )
    spec.log_dir.mkdir()
    spec.egress_log_path.write_text(
        '{"ts": 0.1, "method": "CONNECT", "host": "api.example.org", "port": 443, '
        '"allowed": true, "reason": "allowlisted"}\n'
        '{"ts": 0.2, "method": "CONNECT", "host": "evil.example", "port": 443, '
        '"allowed": false, "reason": "not on the allowlist"}\n'
        "garbage\n"
    )
    verdict = egress_verdict(spec)
    assert (verdict.connections, verdict.refused) == (3, 2)
    assert verdict.refused_sample == ["CONNECT evil.example:443", "unreadable log line"]


def test_a_provider_failure_is_its_infrastructure_outcome() -> None:
    unreachable = InfraFailure(
        kind="endpoint_unreachable", detail="http://127.0.0.1:9/v1 (refused)"
    )
    status, detail = decide_status(PASSED, CLEAN, ended(returncode=5), False, unreachable)
    assert (status, detail) == (
        "endpoint_unreachable",
        "the model endpoint could not be reached: http://127.0.0.1:9/v1 (refused)",
    )
    # Whether or not the agent wrote an output before the provider failed.
    limited = InfraFailure(kind="rate_limited", detail="HTTP 429", retry_after=30.0)
    assert decide_status(PASSED, CLEAN, ended(returncode=5), True, limited) == (
        "rate_limited",
        "the provider rate-limited the agent: HTTP 429",
    )
    # Without the adapter's explicit report, the same exit status is the agent's failure.
    assert decide_status(PASSED, CLEAN, ended(returncode=5), False)[0] == "nonzero_exit"
    # A timeout or a refused connection still comes first.
    timed_out = ended(timed_out=True, killed=True, returncode=-15)
    assert decide_status(PASSED, CLEAN, timed_out, False, unreachable)[0] == "timeout"
    refused = CLEAN.model_copy(update={"refused": 1, "refused_sample": ["CONNECT a:443"]})
    assert decide_status(PASSED, refused, ended(returncode=5), False, limited)[0] == (
        "egress_violation"
    )
