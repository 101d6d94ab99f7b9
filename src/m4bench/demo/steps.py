"""The demo's later stages: preflight, the campaign, analysis and the evidence package."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from m4bench.demo.stages import DemoSources, Outcome, Unavailable
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_bytes, atomic_write_text
from m4bench.home import DataHome
from m4bench.results.layout import CampaignFolder
from m4bench.results.read import result_files

if TYPE_CHECKING:
    from m4bench.campaign.launch import CampaignRequest, PreparedCampaign
    from m4bench.demo.run import DemoOptions

ANALYSIS_REPS = 2000
SALT_FILE = "salt.key"


def preflight(
    home: DataHome, names: DemoSources, tasks: list[str], sandbox: str, data_ok: bool
) -> Outcome:
    """The preflight checks of the campaign's tasks (their sources and provisioning),
    the catalog lint and the sandbox."""
    from m4bench.preflight import PreflightOptions, run_preflight

    if not data_ok:
        raise Unavailable("the data stages did not finish")
    options = PreflightOptions(sources=names.by_dataset(), sandbox=sandbox, tasks=tasks)
    checks = run_preflight(home, options)
    failed = [c for c in checks if not c.ok]
    if failed:
        raise M4BenchError(
            "; ".join(f"{c.name}: {c.detail}" for c in failed),
            hint="; ".join(c.fix for c in failed if c.fix),
        )
    return Outcome(f"{len(checks)} checks passed")


def campaign(
    home: DataHome,
    names: DemoSources,
    results: Path,
    tasks: list[str],
    opts: DemoOptions,
    ready: bool,
) -> Outcome:
    """The demo campaign in the sandbox, assembled as ``m4bench campaign run`` assembles
    one; complete runs of an earlier demo are kept."""
    from m4bench.campaign import (
        CampaignRequest,
        PlanOptions,
        RunSetup,
        execute_campaign,
    )
    from m4bench.demo.agents import REPLAY_DIR, write_half_answers
    from m4bench.demo.profile import demo_agents, demo_profile
    from m4bench.tasks.catalog import load_catalog

    if not ready:
        raise Unavailable("preflight did not pass (see above)")
    react = opts.react_endpoint is not None
    replay = write_half_answers(
        home, names.by_dataset(), tasks, load_catalog(), results.resolve() / REPLAY_DIR
    )
    request = CampaignRequest(
        profile=demo_profile(tasks, opts.react_model if react else None),
        where="<demo profile>",
        results=results.resolve(),
        plan=PlanOptions(agents=demo_agents(react)),
        runs=RunSetup(
            home=home.root,
            sources=names.by_dataset(),
            sandbox=opts.sandbox,
            endpoint=opts.react_endpoint,
            replay=replay,
        ),
        resume=True,
        check=False,  # the preflight stage checked the sources, sandbox and agents
    )
    prepared = _prepared(request)
    if opts.campaign_progress is None:
        report = execute_campaign(prepared)
    else:
        with opts.campaign_progress() as live:
            report = execute_campaign(prepared, live)
    if report.missing:
        raise M4BenchError(
            f"{report.missing} of {report.planned} runs missing after "
            f"{report.infra_errors} infrastructure errors",
            hint="run the demo again to retry them",
        )
    now = report.done + report.failed
    detail = (
        f"{report.complete}/{report.planned} runs ({now} run now, {report.complete_before} "
        f"reused; {report.failed} recorded agent failures)"
    )
    return Outcome(detail, reused=now == 0)


def _prepared(request: CampaignRequest) -> PreparedCampaign:
    """The campaign prepared; an earlier demo's campaign of other options in the same
    folder is refused with how to keep both."""
    from m4bench.campaign.launch import prepare_campaign

    try:
        return prepare_campaign(request)
    except M4BenchError as exc:
        folder = request.results
        if not (CampaignFolder(folder).manifest.exists() and exc.message.startswith(str(folder))):
            raise
        raise M4BenchError(
            f"{folder} holds the campaign of an earlier demo run with other options "
            f"({exc.message.removeprefix(str(folder)).lstrip('/: ')})",
            hint="pass --results DIR to run this demo in a folder of its own, or remove "
            f"{folder.parent} to start this size's demo over",
        ) from exc


def analyze_demo(results: Path, out: Path, ran: bool) -> Outcome:
    from m4bench.analysis import AnalysisSettings, analyze

    if not ran and not CampaignFolder(results).runs.is_dir():
        raise Unavailable("no campaign results to analyze")
    settings = AnalysisSettings(reps=ANALYSIS_REPS, permutation_reps=ANALYSIS_REPS)
    result = analyze(results, out, settings)
    earlier = "" if ran else " (of an earlier demo's runs)"
    return Outcome(f"{len(result.headline)} headline estimates{earlier}; {out / 'report.html'}")


def package_evidence(home: DataHome, results: Path, package: Path, ran: bool) -> Outcome:
    from m4bench.evidence import PackageOptions, package_results, verify_package

    if not ran and not CampaignFolder(results).runs.is_dir():
        raise Unavailable("no campaign results to package")
    stamp, digest = package.with_suffix(".stamp"), _results_digest(results)
    reuse = package.exists() and stamp.exists() and stamp.read_text(encoding="utf-8") == digest
    if not reuse:
        options = PackageOptions(salt=_salt(package.parent), outputs="scores-only", home=home)
        package_results(results, package, options)
        atomic_write_text(stamp, digest)
    verified = verify_package(package)
    if not verified.passed:
        raise M4BenchError(
            f"{package}: verification failed: {'; '.join(verified.failures[:3])}",
            hint="report this: a fresh package must verify",
        )
    sha = hashlib.sha256(package.read_bytes()).hexdigest()[:16]
    return Outcome(f"{verified.files} files, verified; sha256 {sha}", reused=reuse)


def _results_digest(results: Path) -> str:
    """A digest of every result record and the plan: a package built from the same
    records is the same package."""
    folder = CampaignFolder(results)
    digest = hashlib.sha256()
    for path in sorted([folder.manifest, *result_files(results)]):
        digest.update(str(path.relative_to(results)).encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest() + "\n"


def _salt(folder: Path) -> bytes:
    """The demo's private HMAC salt, created once and kept beside (never in) the package."""
    path = folder / SALT_FILE
    if not path.exists():
        atomic_write_bytes(path, os.urandom(32))
        path.chmod(0o600)
    return path.read_bytes()
