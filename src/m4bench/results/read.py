"""Typed readers of a results folder: each checks the format version of what it reads.

Result records of format 1 and 2 are read (format 1 through :mod:`m4bench.results.legacy`);
a newer format is refused with what to do. A campaign's manifest and attempt records
are read as their models. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from m4bench.errors import M4BenchError
from m4bench.results.campaign_files import AttemptRecord, CampaignManifest
from m4bench.results.layout import (
    RESULT_FILE,
    CampaignFolder,
    RunFolder,
    is_campaign_folder,
)
from m4bench.results.legacy import from_format1
from m4bench.results.record import RESULT_FORMAT_VERSION, ResultRecord
from m4bench.results.validation import read_json_object, validated

READ_FORMATS = (1, RESULT_FORMAT_VERSION)
NEWER_HINT = "it was written by a newer m4bench: upgrade m4bench to read it"


@dataclass(frozen=True)
class StoredResult:
    """A result record and the file it was read from."""

    path: Path
    record: ResultRecord

    @property
    def run_id(self) -> str:
        return self.record.run_id


def parse_result(data: Any, where: str) -> ResultRecord:
    """A result record of any format this m4bench reads; ``where`` names it in errors."""
    if not isinstance(data, dict):
        raise M4BenchError(f"{where}: a result record is a JSON object")
    version = data.get("format_version")
    if version == RESULT_FORMAT_VERSION:
        return validated(ResultRecord, data, where)
    if version == 1:
        return from_format1(data, where)
    _refuse_version(where, "result record", version, READ_FORMATS)


def read_result(path: Path) -> ResultRecord:
    """The result record in ``path`` (a ``result.json`` or the run folder holding it)."""
    target = path / RESULT_FILE if path.is_dir() else path
    if not target.exists():
        raise M4BenchError(f"{target}: no result record", hint="the run has not finished")
    return parse_result(read_json_object(target), str(target))


def result_files(root: Path) -> list[Path]:
    """Every run's ``result.json`` under ``root``, sorted: a campaign's folder gives its
    ``runs/*/result.json`` (never the runner's files under ``work/``), a folder of runs
    its ``<run_id>/result.json``, one run's folder (or its ``result.json``) that record,
    any other folder those of the folders below it."""
    if root.is_file() and root.name == RESULT_FILE:
        return [root]
    if is_campaign_folder(root):
        return sorted(CampaignFolder(root).runs.glob(f"*/{RESULT_FILE}"))
    if RunFolder(root).result.is_file():
        return [RunFolder(root).result]
    found: list[Path] = []
    for child in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if RunFolder(child).result.is_file():
            found.append(RunFolder(child).result)
        else:
            found.extend(result_files(child))
    return found


def read_results(root: Path) -> list[StoredResult]:
    """Every result record under ``root`` (see :func:`result_files`), by path."""
    return [StoredResult(path, read_result(path)) for path in result_files(root)]


def read_manifest(path: Path) -> CampaignManifest:
    """A campaign's ``campaign.json``."""
    data = read_json_object(path)
    version = data.get("format_version", 1)
    if version != 1:
        _refuse_version(str(path), "campaign manifest", version, (1,))
    return validated(CampaignManifest, data, str(path))


def read_attempt(path: Path) -> AttemptRecord:
    """One ``attempts/<n>.json`` of a campaign's run."""
    data = read_json_object(path)
    version = data.get("format_version", 1)
    if version != 1:
        _refuse_version(str(path), "attempt record", version, (1,))
    return validated(AttemptRecord, data, str(path))


def read_attempts(folder: CampaignFolder, run_id: str) -> list[AttemptRecord]:
    """The attempt records of a run, by number."""
    directory = folder.attempts_dir(run_id)
    if not directory.is_dir():
        return []
    files = [p for p in directory.glob("*.json") if p.stem.isdigit()]
    return [read_attempt(path) for path in sorted(files, key=lambda p: int(p.stem))]


def planned_run_ids(root: Path) -> tuple[list[str] | None, str | None]:
    """The run ids and profile of the campaign whose folder ``root`` is, or
    (None, None) when it has no manifest (a folder not made by a campaign)."""
    folder = CampaignFolder(root)
    if not folder.manifest.is_file():
        return None, None
    manifest = read_manifest(folder.manifest)
    return [run.run_id for run in manifest.runs], manifest.profile


def _refuse_version(where: str, what: str, version: object, known: tuple[int, ...]) -> NoReturn:
    formats = " and ".join(str(v) for v in known)
    if isinstance(version, int) and not isinstance(version, bool) and version > max(known):
        raise M4BenchError(
            f"{where}: {what} of format {version}; this m4bench reads format {formats}",
            hint=NEWER_HINT,
        )
    if version is None:
        raise M4BenchError(
            f"{where}: not an m4bench {what} (it has no format_version)",
            hint="point at a results folder written by m4bench; a runs CSV in the "
            "released layout is read as a file (m4bench analyze runs.csv)",
        )
    raise M4BenchError(
        f"{where}: {what} of unknown format {version!r}; this m4bench reads format {formats}",
        hint="the file is damaged or was changed by hand; restore it, or move the run out",
    )


def is_complete(path: Path) -> bool:
    """True when ``path`` (a ``result.json`` or its run folder) holds a valid record of
    a run that happened; a ``harness_error`` or ``interrupted`` record, a damaged or a
    missing one is not complete, so the run may be run again."""
    try:
        return read_result(path).complete
    except (M4BenchError, OSError):
        return False
