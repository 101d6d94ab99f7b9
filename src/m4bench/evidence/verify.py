"""``verify_package``: every hash of a package, and its audit recomputed from its records."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from m4bench.errors import M4BenchError
from m4bench.evidence.archive import Member, iter_archive
from m4bench.evidence.audit import IntegrityAudit, audit_records
from m4bench.evidence.model import AUDIT_FILE, MANIFEST_FILE, PackageManifest
from m4bench.evidence.package import retained_counts, sidecar
from m4bench.fileio import read_user_text, sha256_file
from m4bench.results.campaign_files import CampaignManifest
from m4bench.results.layout import CAMPAIGN_FILE, RESULT_FILE, RUNS_DIR
from m4bench.results.read import parse_result
from m4bench.results.record import ResultRecord
from m4bench.results.validation import validated


@dataclass
class VerifyReport:
    """Failures make a package untrustworthy; warnings are what its audit reports."""

    path: Path
    files: int = 0
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    audit: IntegrityAudit | None = None

    @property
    def passed(self) -> bool:
        return not self.failures


def verify_package(path: Path) -> VerifyReport:
    """Check the archive's sidecar hash, every manifest entry, and the audit."""
    if not path.is_file():
        raise M4BenchError(f"{path}: no such package", hint="pass the .tar.zst file to verify")
    report = VerifyReport(path)
    _check_sidecar(path, report)
    seen: dict[str, Member] = {}
    for member in iter_archive(path, _needed):
        if member.name in seen:
            report.failures.append(f"{member.name}: appears twice in the archive")
        seen[member.name] = member
    files = {name: m.data for name, m in seen.items() if m.data is not None}
    manifest = _manifest(files, report)
    if manifest is None:
        return report
    report.files = len(manifest.files)
    _check_files(seen, manifest, report)
    _check_audit(files, set(seen), report)
    return report


def _needed(name: str) -> bool:
    """Members whose bytes verification reads (the rest are only hashed)."""
    if name in (MANIFEST_FILE, AUDIT_FILE, CAMPAIGN_FILE):
        return True
    return name.startswith(f"{RUNS_DIR}/") and name.endswith(f"/{RESULT_FILE}")


def _check_sidecar(path: Path, report: VerifyReport) -> None:
    side = sidecar(path)
    if not side.exists():
        report.warnings.append(f"no {side.name}: the archive's own hash was not checked")
        return
    try:
        words = read_user_text(side).split()
    except M4BenchError as exc:  # not the text `evidence package` writes
        report.failures.append(exc.message)
        return
    expected = words[0] if words else ""
    if sha256_file(path) != expected:
        report.failures.append(f"{path.name}: SHA-256 differs from {side.name}")


def _manifest(files: dict[str, bytes], report: VerifyReport) -> PackageManifest | None:
    if MANIFEST_FILE not in files:
        report.failures.append(f"{MANIFEST_FILE} is missing")
        return None
    try:
        manifest = PackageManifest.model_validate_json(files[MANIFEST_FILE])
    except ValidationError as exc:
        report.failures.append(f"{MANIFEST_FILE}: invalid ({exc.errors()[0]['msg']})")
        return None
    if PackageManifest.digest(manifest.files) != manifest.files_sha256:
        report.failures.append(f"{MANIFEST_FILE}: its file list does not match its digest")
    return manifest


def _check_files(seen: dict[str, Member], manifest: PackageManifest, report: VerifyReport) -> None:
    listed = {entry.path for entry in manifest.files}
    for name in sorted(set(seen) - listed - {MANIFEST_FILE}):
        report.failures.append(f"{name}: in the archive but not in {MANIFEST_FILE}")
    for entry in manifest.files:
        member = seen.get(entry.path)
        if member is None:
            report.failures.append(f"{entry.path}: listed in {MANIFEST_FILE} but missing")
        elif member.size != entry.bytes or member.sha256 != entry.sha256:
            report.failures.append(f"{entry.path}: size or SHA-256 differs from {MANIFEST_FILE}")


def _check_audit(files: dict[str, bytes], names: set[str], report: VerifyReport) -> None:
    try:
        stated = IntegrityAudit.model_validate_json(files[AUDIT_FILE])
    except (KeyError, ValidationError) as exc:
        report.failures.append(f"{AUDIT_FILE}: missing or invalid ({type(exc).__name__})")
        return
    report.audit = stated
    try:
        recomputed = _recompute(files, names, stated)
    except (ValueError, ValidationError, M4BenchError) as exc:
        report.failures.append(f"the audit could not be recomputed from the records: {exc}")
        return
    stated_fields = stated.model_dump()
    for name, value in recomputed.model_dump().items():
        if stated_fields[name] != value:
            report.failures.append(
                f"{AUDIT_FILE}: {name} is {stated_fields[name]!r}, the records give {value!r}"
            )
    report.warnings += stated.problems()


def _recompute(files: dict[str, bytes], names: set[str], stated: IntegrityAudit) -> IntegrityAudit:
    records: dict[str, ResultRecord] = {}
    prefix, suffix = f"{RUNS_DIR}/", f"/{RESULT_FILE}"
    for name in sorted(files):
        if name.startswith(prefix) and name.endswith(suffix) and name.count("/") == 2:
            records[name[len(prefix) : -len(suffix)]] = parse_result(json.loads(files[name]), name)
    planned: list[str] | None = None
    profile: str | None = None
    if CAMPAIGN_FILE in files:
        campaign = validated(CampaignManifest, json.loads(files[CAMPAIGN_FILE]), CAMPAIGN_FILE)
        planned = [run.run_id for run in campaign.runs]
        profile = campaign.profile
    return audit_records(
        records, planned, profile, stated.superseded_attempts, retained_counts(names)
    )
