"""After the run: the contamination lint of the workdir, and redaction of stored logs.

The lint reads each file of this run's workdir once (no scan of earlier runs, so its
cost is linear in the workdir's size) and flags:

* database files other than the run's own ``agent.duckdb`` (and its WAL);
* host paths the agent should never know (ground truth, task catalog, data home,
  results), and the values of the credentials it was given, in any file;
* token-shaped secrets (API keys, private keys).

Redaction replaces credential values, token-shaped secrets and the user's home path
in text the harness keeps (traces, stderr) before it is stored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from m4bench.results.verdicts import LintFinding, LintVerdict

_DATABASE_SUFFIXES = (".duckdb", ".db", ".sqlite", ".sqlite3", ".parquet")
_ALLOWED_DATABASES = {"agent.duckdb", "agent.duckdb.wal"}
_CHUNK = 1 << 20
_OVERLAP = 4096
_MAX_FINDINGS = 50
SECRET_PATTERN = re.compile(
    r"(sk-ant-[A-Za-z0-9_\-]{16,}|sk-[A-Za-z0-9_\-]{20,}|AIza[0-9A-Za-z_\-]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----)"
)
REDACTED = "[redacted]"


def _alternation(values: Iterable[str]) -> re.Pattern[str] | None:
    needles = sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)
    return re.compile("|".join(re.escape(n) for n in needles)) if needles else None


def lint_workdir(
    workdir: Path, sensitive_paths: Iterable[str], credentials: Iterable[str] = ()
) -> LintVerdict:
    """Scan every regular file under ``workdir`` (links are not followed)."""
    patterns = _Patterns(_alternation(sensitive_paths), _alternation(credentials))
    findings: list[LintFinding] = []
    files = total = 0
    for parent, dirs, names in os.walk(workdir, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(parent) / name
            if path.is_symlink() or not path.is_file():
                continue
            relative = str(path.relative_to(workdir))
            files += 1
            total += path.stat().st_size
            if name.endswith(_DATABASE_SUFFIXES) and relative not in _ALLOWED_DATABASES:
                findings.append(LintFinding(path=relative, kind="database", detail=name))
                continue
            if relative in _ALLOWED_DATABASES:
                continue
            findings += _scan_file(path, relative, patterns)
    return LintVerdict(
        passed=not findings, files=files, bytes=total, findings=findings[:_MAX_FINDINGS]
    )


@dataclass(frozen=True)
class _Patterns:
    paths: re.Pattern[str] | None
    credentials: re.Pattern[str] | None


def _scan_file(path: Path, relative: str, patterns: _Patterns) -> list[LintFinding]:
    found: dict[str, LintFinding] = {}
    tail = ""
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            text = tail + chunk.decode("utf-8", errors="replace")
            if patterns.paths is not None:
                for match in patterns.paths.finditer(text):
                    key = f"path:{match.group(0)}"
                    found.setdefault(
                        key, LintFinding(path=relative, kind="host-path", detail=match.group(0))
                    )
            if patterns.credentials is not None and patterns.credentials.search(text):
                found.setdefault(
                    "credential",
                    LintFinding(path=relative, kind="credential", detail="a given credential"),
                )
            for match in SECRET_PATTERN.finditer(text):
                found.setdefault(
                    "secret", LintFinding(path=relative, kind="secret", detail=match.group(0)[:6])
                )
            tail = text[-_OVERLAP:]
    return list(found.values())


def redact_file(source: Path, target: Path, secrets: Iterable[str], paths: Iterable[str]) -> None:
    """Copy ``source`` to ``target`` line by line, redacted (memory bounded by one line)."""
    secret_list, path_list = list(secrets), list(paths)
    with (
        source.open("r", encoding="utf-8", errors="replace") as reader,
        target.open("w", encoding="utf-8") as writer,
    ):
        for line in reader:
            writer.write(redact(line, secret_list, path_list))


def redact(text: str, secrets: Iterable[str], paths: Iterable[str]) -> str:
    """``text`` with secret values, token-shaped strings and the given paths replaced."""
    for value in sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    text = SECRET_PATTERN.sub(REDACTED, text)
    for path in sorted({p for p in paths if len(p) > 1}, key=len, reverse=True):
        text = text.replace(path, "~")
    return text
