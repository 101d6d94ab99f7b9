"""The package being built: its files, the actions taken on them, and the redactor setup."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from m4bench.errors import M4BenchError
from m4bench.evidence.archive import check_member_name
from m4bench.evidence.model import FileAction, FileEntry, OutputsMode, SkippedFile
from m4bench.evidence.records import sanitize_json_text
from m4bench.evidence.redact import Redactor
from m4bench.home import DataHome
from m4bench.sources.layout import load_source
from m4bench.tasks.catalog import Catalog

_SECRET_ENV = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")


@dataclass
class PackageOptions:
    """``salt``: private HMAC salt for ``row_key_hash`` (None: no key hashes);
    ``outputs``: ``auto`` keeps full outputs only for public sources, ``scores-only``
    never does, ``full`` requires every run's source to be public."""

    salt: bytes | None = None
    outputs: OutputsMode = "auto"
    home: DataHome | None = None
    redact_terms: list[str] = field(default_factory=list)


@dataclass
class Builder:
    results: Path
    options: PackageOptions
    catalog: Catalog
    staging: Path
    entries: dict[str, FileEntry] = field(default_factory=dict)
    actions: list[FileAction] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    public: dict[str, bool] = field(default_factory=dict)

    def add(self, path: str, data: bytes, action: FileAction | None = None) -> None:
        """Stage one packaged file on disk (only its size and hash stay in memory)."""
        target = self.staging / check_member_name(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        sha = hashlib.sha256(data).hexdigest()
        self.entries[path] = FileEntry(path=path, bytes=len(data), sha256=sha)
        if action is not None:
            self.actions.append(action)

    def skip(self, source: str, reason: str) -> None:
        self.skipped.append(SkippedFile(source=source, reason=reason))

    def redactor(self, identifiers: list[str]) -> Redactor:
        """A redactor for the run's own literals: paths, configured terms, credential
        values of the environment and the run's identifier values."""
        literals = [str(self.results), str(Path.home()), *self.options.redact_terms]
        if self.options.home is not None:
            literals.append(str(self.options.home.root))
        env = os.environ.items()
        literals += [v for k, v in env if any(s in k.upper() for s in _SECRET_ENV)]
        numbers = frozenset(i for i in identifiers if i.isdigit())
        words = [i for i in identifiers if not i.isdigit()]
        return Redactor(literals=[*literals, *words], identifiers=numbers)

    def add_json(self, source: str, target: str, redactor: Redactor) -> dict[str, Any]:
        """Sanitize the JSON file ``source`` into ``target``; return the sanitized value."""
        raw = (self.results / source).read_bytes()
        counts: Counter[str] = Counter()
        text = sanitize_json_text(raw.decode("utf-8"), redactor, counts)
        data = text.encode("utf-8")
        self.add(
            target, data, action(target, source, "sanitized JSON", raw, data, redactor, counts)
        )
        value: dict[str, Any] = json.loads(text)
        return value

    def is_public(self, source: str) -> bool:
        """Whether the source is marked public (synthetic); an unknown source is not."""
        if source not in self.public:
            home = self.options.home
            try:
                self.public[source] = home is not None and load_source(home, source).manifest.public
            except M4BenchError:
                self.public[source] = False
        return self.public[source]


def action(
    target: str,
    source: str,
    what: str,
    raw: bytes,
    data: bytes,
    redactor: Redactor,
    counts: Counter[str] | None = None,
    **extra: Any,
) -> FileAction:
    """The record of one file's sanitization (consumes the redactor's counts)."""
    total = Counter(redactor.counts) + (counts or Counter())
    redactor.counts.clear()
    return FileAction(
        path=target,
        source=source,
        action=what,
        source_sha256=hashlib.sha256(raw).hexdigest(),
        sha256=hashlib.sha256(data).hexdigest(),
        redactions=dict(sorted(total.items())),
        **extra,
    )
