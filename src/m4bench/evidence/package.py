"""``package_results``: a campaign's results directory as a sanitized, verifiable package.

Layout of the package::

    MANIFEST.json                  size and SHA-256 of every other file
    AUDIT.json                     the integrity audit (IntegrityAudit)
    SANITIZATION_REPORT.json       every action, file by file
    campaign.json                  the planned set
    runs/<run_id>/result.json      the result record (samples emptied, strings redacted)
    runs/<run_id>/instruction.md   the instruction the agent got
    runs/<run_id>/trace.jsonl      the trace, redacted, data blocks replaced by a stub
    runs/<run_id>/trajectory.json  the ATIF trajectory, sanitized (still valid ATIF)
    runs/<run_id>/egress.jsonl     the egress log, times relative to its first event
    runs/<run_id>/output.csv       scores-only (full for a public synthetic source)

Nothing else of a run is packaged (not ``diff.parquet``, not ``stderr.log``); earlier
attempts of a run appear only as metadata in the audit.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.evidence.archive import write_directory
from m4bench.evidence.audit import (
    RETAINED,
    IntegrityAudit,
    SupersededAttempt,
    audit_records,
    result_records,
    superseded_attempts,
)
from m4bench.evidence.builder import Builder, PackageOptions
from m4bench.evidence.model import (
    AUDIT_FILE,
    MANIFEST_FILE,
    REPORT_FILE,
    FileEntry,
    PackageManifest,
    SanitizationReport,
)
from m4bench.evidence.redact import Redactor
from m4bench.evidence.run_files import package_run
from m4bench.fileio import atomic_write_text, canonical_json, sha256_file
from m4bench.results.layout import CAMPAIGN_FILE, RUNS_DIR
from m4bench.results.read import planned_run_ids
from m4bench.results.record import ResultRecord
from m4bench.tasks.catalog import load_catalog

RULES = [
    "secrets (token-shaped strings, key/token/password fields, private keys, credential "
    "values from the environment) -> [secret] or [redacted]",
    "e-mail addresses -> [email]",
    "home, temporary and local paths, the results directory and the data home -> "
    "[local-path] or [redacted]",
    "dates and date-times -> [time]; egress event times made relative to the first event",
    "integers of seven or more digits and the run's identifier values -> [id] or [redacted]",
    "tabular data blocks (two or more delimited rows of numbers or dates) -> a stub with "
    "their line count and SHA-256 prefix",
    "row samples in result records (fields ending in _sample) emptied",
    "output.csv: scores-only (row_id, optional row_key_hash, numeric scored columns) "
    "unless the source is public and full outputs were allowed",
    "trajectory.json: step times made relative to the epoch; observation contents -> a "
    "stub with their length and SHA-256 prefix unless full outputs are kept",
]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class PackageResult:
    path: Path
    sha256: str
    files: int
    audit: IntegrityAudit
    report: SanitizationReport


def package_results(
    results: Path,
    out: Path,
    options: PackageOptions | None = None,
    progress: Progress | None = None,
) -> PackageResult:
    """Sanitize ``results`` into the ``.tar.zst`` package ``out`` (and ``out.sha256``)."""
    opts = options or PackageOptions()
    results = results.expanduser().resolve()
    check_out(results, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".m4bench-package-", dir=out.parent) as staging:
        builder = Builder(results, opts, load_catalog(), Path(staging))
        audit, report = _stage(builder, progress)
        write_directory(out, builder.staging, builder.entries)
    digest = sha256_file(out)
    atomic_write_text(sidecar(out), f"{digest}  {out.name}\n")
    return PackageResult(out, digest, len(builder.entries), audit, report)


def _stage(
    builder: Builder, progress: Progress | None
) -> tuple[IntegrityAudit, SanitizationReport]:
    """Stage every packaged file; return the audit and the sanitization report."""
    results, opts = builder.results, builder.options
    records = result_records(results)
    planned, profile = planned_run_ids(results)
    step = progress or (lambda _name: None)
    sanitized: dict[str, ResultRecord] = {}
    for run_id, record in records.items():
        sanitized[run_id] = package_run(builder, run_id, record)
        step(run_id)
    if (results / CAMPAIGN_FILE).exists():
        builder.add_json(CAMPAIGN_FILE, CAMPAIGN_FILE, builder.redactor([]))
    superseded = _clean_superseded(superseded_attempts(results, records), builder.redactor([]))
    audit = audit_records(sanitized, planned, profile, superseded, retained_counts(builder.entries))
    builder.add(AUDIT_FILE, (canonical_json(audit.model_dump(mode="json"))).encode("utf-8"))
    report = SanitizationReport(
        outputs=opts.outputs,
        key_hash=opts.salt is not None,
        rules=RULES,
        files=sorted(builder.actions, key=lambda a: a.path),
        skipped=sorted(builder.skipped, key=lambda s: s.source),
    )
    builder.add(REPORT_FILE, canonical_json(report.model_dump(mode="json")).encode("utf-8"))
    builder.add(MANIFEST_FILE, manifest_bytes(builder.entries.values()))
    return audit, report


def sidecar(out: Path) -> Path:
    return out.with_name(out.name + ".sha256")


def manifest_bytes(entries: Iterable[FileEntry]) -> bytes:
    """``MANIFEST.json`` over ``entries`` (any entry for the manifest itself is left out)."""
    kept = sorted((e for e in entries if e.path != MANIFEST_FILE), key=lambda e: e.path)
    manifest = PackageManifest(files=kept, files_sha256=PackageManifest.digest(kept))
    return canonical_json(manifest.model_dump(mode="json")).encode("utf-8")


def entries_of(files: dict[str, bytes]) -> list[FileEntry]:
    """Manifest entries of in-memory files."""
    return [
        FileEntry(path=name, bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
        for name, data in files.items()
    ]


def retained_counts(files: Iterable[str]) -> dict[str, int]:
    """Packaged artifacts per kind, from the package's file names."""
    names = [name.rsplit("/", 1)[-1] for name in files if name.startswith(f"{RUNS_DIR}/")]
    return {artifact: names.count(artifact) for artifact in RETAINED}


def check_out(results: Path, out: Path) -> None:
    """Refuse an ``--out`` the package cannot be written to, before any work is done.

    ``results`` is the resolved results directory.
    """
    if not out.name.endswith(".tar.zst"):
        raise M4BenchError(f"{out}: the package name must end in .tar.zst", hint="rename --out")
    if out.resolve().is_relative_to(results):
        raise M4BenchError(
            f"{out}: the package may not be written inside the results directory {results}",
            hint="choose an --out path outside the results directory",
        )
    for path in (out, sidecar(out)):
        if path.is_dir():
            raise M4BenchError(
                f"{path}: is a folder, where the package file is to be written",
                hint=f"choose another --out, or move the folder {path} away",
            )
    folder = next(p for p in out.absolute().parents if p.exists() or p.is_symlink())
    if not folder.is_dir():
        raise M4BenchError(
            f"{folder}: is a file, where a folder is needed (for --out {out})",
            hint="choose another --out, or move the file away",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise M4BenchError(
            f"{folder}: permission denied: the package {out} cannot be written there",
            hint=f"check the permissions of {folder} (ls -ld {folder}), or choose another --out",
        )


def _clean_superseded(
    items: list[SupersededAttempt], redactor: Redactor
) -> list[SupersededAttempt]:
    return [
        item.model_copy(update={"error": redactor.text(item.error) if item.error else None})
        for item in items
    ]
