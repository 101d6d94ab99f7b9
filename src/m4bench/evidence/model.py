"""The records a package carries about itself: its manifest and its sanitization report."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.fileio import canonical_json

PACKAGE_FORMAT_VERSION: Literal[1] = 1
MANIFEST_FILE = "MANIFEST.json"
AUDIT_FILE = "AUDIT.json"
REPORT_FILE = "SANITIZATION_REPORT.json"
OutputsMode = Literal["auto", "scores-only", "full"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FileEntry(_Frozen):
    path: str
    bytes: int = Field(ge=0)
    sha256: str


class PackageManifest(_Frozen):
    """``MANIFEST.json``: every other file of the package with its size and hash, and a
    digest over that list (a manifest edited by hand no longer matches its digest)."""

    format_version: Literal[1] = PACKAGE_FORMAT_VERSION
    files: list[FileEntry]
    files_sha256: str

    @staticmethod
    def digest(files: list[FileEntry]) -> str:
        payload = canonical_json([entry.model_dump() for entry in files])
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class FileAction(_Frozen):
    """What was done to one packaged file."""

    path: str = Field(description="path inside the package")
    source: str = Field(description="path relative to the results directory")
    action: str
    source_sha256: str
    sha256: str
    redactions: dict[str, int] = Field(default_factory=dict)
    rows: int | None = None
    kept_columns: list[str] = Field(default_factory=list)
    dropped_columns: dict[str, str] = Field(default_factory=dict)


class SkippedFile(_Frozen):
    source: str
    reason: str


class SanitizationReport(_Frozen):
    """``SANITIZATION_REPORT.json``: every action taken, file by file."""

    format_version: Literal[1] = PACKAGE_FORMAT_VERSION
    outputs: OutputsMode
    key_hash: bool = Field(description="row_key_hash columns were written (a salt was given)")
    rules: list[str]
    files: list[FileAction]
    skipped: list[SkippedFile]
