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

import itertools
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from m4bench.results.verdicts import LintFinding, LintVerdict

_DATABASE_SUFFIXES = (".duckdb", ".db", ".sqlite", ".sqlite3", ".parquet")
_ALLOWED_DATABASES = {"agent.duckdb", "agent.duckdb.wal"}
_CHUNK = 1 << 20
_OVERLAP = 4096
_MAX_FINDINGS = 50
_SECRET_MARGIN = 512
SECRET_PATTERN = re.compile(
    r"(sk-ant-[A-Za-z0-9_\-]{16,}|sk-[A-Za-z0-9_\-]{20,}|AIza[0-9A-Za-z_\-]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----)"
)
REDACTED = "[redacted]"


def _alternation(values: Iterable[str]) -> re.Pattern[str] | None:
    needles = sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)
    return re.compile("|".join(re.escape(n) for n in needles)) if needles else None


@dataclass(frozen=True)
class LintLimits:
    """How much of a workdir the lint reads: the agent decides its size, not the harness."""

    bytes_per_file: int = 64 << 20
    entries: int = 100_000
    depth: int = 64

    def describe(self) -> str:
        return (
            f"at most {self.bytes_per_file >> 20} MiB of each file, {self.entries} entries, "
            f"{self.depth} folders deep; links, FIFOs, sockets and devices are not read"
        )


@dataclass
class _Tally:
    files: int = 0
    bytes: int = 0
    entries: int = 0
    skipped: int = 0
    truncated: int = 0
    complete: bool = True


def lint_workdir(
    workdir: Path,
    sensitive_paths: Iterable[str],
    credentials: Iterable[str] = (),
    limits: LintLimits | None = None,
) -> LintVerdict:
    """Scan the regular files under ``workdir``, within ``limits``: links are never
    followed, only regular files are opened, each is read up to the byte cap. A walk
    stopped by the entry or depth cap fails the lint (what it did not read is unknown)."""
    limits = limits or LintLimits()
    patterns = _Patterns(_alternation(sensitive_paths), _alternation(credentials))
    findings: list[LintFinding] = []
    tally = _Tally()
    for dir_fd, name, relative, size in _regular_files(workdir, limits, tally):
        tally.files += 1
        tally.bytes += size
        if name.endswith(_DATABASE_SUFFIXES) and relative not in _ALLOWED_DATABASES:
            findings.append(LintFinding(path=relative, kind="database", detail=name))
        elif relative not in _ALLOWED_DATABASES:
            findings += _scan_file(dir_fd, name, relative, patterns, limits, tally)
    if not tally.complete:
        findings.append(
            LintFinding(path=".", kind="unscanned", detail=f"the walk stopped: {limits.describe()}")
        )
    return LintVerdict(
        passed=not findings,
        files=tally.files,
        bytes=tally.bytes,
        findings=findings[:_MAX_FINDINGS],
        skipped=tally.skipped,
        truncated=tally.truncated,
        complete=tally.complete,
        caps=limits.describe(),
    )


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _regular_files(
    root: Path, limits: LintLimits, tally: _Tally
) -> Iterator[tuple[int, str, str, int]]:
    """(folder descriptor, name, path relative to ``root``, size) of each regular file,
    depth first in name order, without recursion; one descriptor per level is held."""
    try:
        top = os.open(root, _DIR_FLAGS)
    except OSError:
        tally.complete = False
        return
    stack = [(top, "", iter(_listing(top, limits, tally)))]
    try:
        while stack:
            fd, prefix, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(fd)
                stack.pop()
                continue
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                tally.skipped += 1
                continue
            if stat.S_ISREG(info.st_mode):
                yield fd, name, prefix + name, info.st_size
            elif not stat.S_ISDIR(info.st_mode):
                tally.skipped += 1
            elif len(stack) >= limits.depth:
                tally.complete = False
            else:
                child = _open_dir(name, fd, tally)
                if child is not None:
                    stack.append((child, f"{prefix}{name}/", iter(_listing(child, limits, tally))))
    finally:
        for fd, _, _ in stack:
            os.close(fd)


def _open_dir(name: str, parent: int, tally: _Tally) -> int | None:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError:
        tally.skipped += 1
        return None


def _listing(fd: int, limits: LintLimits, tally: _Tally) -> list[str]:
    """The folder's names in order, no more than the entries the walk has left."""
    left = limits.entries - tally.entries
    try:
        with os.scandir(fd) as entries:
            names = [entry.name for entry in itertools.islice(entries, max(left, 0) + 1)]
    except OSError:
        tally.skipped += 1
        return []
    if len(names) > left:
        tally.complete = False
        names = names[:left]
    tally.entries += len(names)
    return sorted(names)


@dataclass(frozen=True)
class _Patterns:
    paths: re.Pattern[str] | None
    credentials: re.Pattern[str] | None


def _scan_file(
    dir_fd: int, name: str, relative: str, patterns: _Patterns, limits: LintLimits, tally: _Tally
) -> list[LintFinding]:
    found: dict[str, LintFinding] = {}
    tail = ""
    left = limits.bytes_per_file
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
        )
    except OSError:
        tally.skipped += 1
        return []
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the walk saw it
            tally.skipped += 1
            return []
        while left > 0 and (chunk := handle.read(min(_CHUNK, left))):
            left -= len(chunk)
            text = tail + chunk.decode("utf-8", errors="replace")
            _match(text, relative, patterns, found)
            tail = text[-_OVERLAP:]
        if left <= 0 and handle.read(1):
            tally.truncated += 1
    return list(found.values())


def _match(text: str, relative: str, patterns: _Patterns, found: dict[str, LintFinding]) -> None:
    if patterns.paths is not None:
        for match in patterns.paths.finditer(text):
            found.setdefault(
                f"path:{match.group(0)}",
                LintFinding(path=relative, kind="host-path", detail=match.group(0)),
            )
    if patterns.credentials is not None and patterns.credentials.search(text):
        found.setdefault(
            "credential", LintFinding(path=relative, kind="credential", detail="a given credential")
        )
    for match in SECRET_PATTERN.finditer(text):
        found.setdefault(
            "secret", LintFinding(path=relative, kind="secret", detail=match.group(0)[:6])
        )


@dataclass(frozen=True)
class LogLimits:
    """How much of an agent's log the harness keeps: a line is cut at ``line_chars``
    characters; past ``total_chars`` the remaining lines are dropped (counted)."""

    line_chars: int = 1 << 20
    total_chars: int = 256 << 20


@dataclass(frozen=True)
class Kept:
    """What redacting a log cut: lines cut at the line cap, lines dropped past the cap."""

    lines_cut: int = 0
    lines_dropped: int = 0

    @property
    def truncated(self) -> int:
        return self.lines_cut + self.lines_dropped


def redact_file(
    source: Path,
    target: Path,
    secrets: Iterable[str],
    paths: Iterable[str],
    limits: LogLimits | None = None,
) -> Kept:
    """Copy ``source`` to ``target`` (mode 0600) line by line, redacted. Memory is
    bounded by the line cap whatever the agent printed: a longer line is cut (its
    rest read and discarded in pieces) and ends with a note saying so."""
    limits = limits or LogLimits()
    secret_list, path_list = list(secrets), list(paths)
    cut = dropped = written = 0
    with (
        source.open("r", encoding="utf-8", errors="replace") as reader,
        target.open("w", encoding="utf-8") as writer,
    ):
        target.chmod(0o600)
        while line := reader.readline(limits.line_chars):
            whole = line.endswith("\n") or not _skip_rest(reader, limits.line_chars)
            if written >= limits.total_chars:
                dropped += 1
                continue
            if not whole:
                cut += 1  # the end of a cut line may be the start of a secret: dropped too
                line = line[: max(len(line) - _SECRET_MARGIN, 0)]
                line += f" [m4bench: line cut at {limits.line_chars} characters]\n"
            text = redact(line, secret_list, path_list)
            writer.write(text)
            written += len(text)
        if dropped:
            writer.write(f"[m4bench: {dropped} more lines dropped past {written} characters]\n")
    return Kept(lines_cut=cut, lines_dropped=dropped)


def _skip_rest(reader: TextIO, size: int) -> bool:
    """Read and discard the rest of a long line; True when there was a rest."""
    rest = False
    while piece := reader.readline(size):
        rest = True
        if piece.endswith("\n"):
            break
    return rest


def redact(text: str, secrets: Iterable[str], paths: Iterable[str]) -> str:
    """``text`` with secret values, token-shaped strings and the given paths replaced."""
    for value in sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    text = SECRET_PATTERN.sub(REDACTED, text)
    for path in sorted({p for p in paths if len(p) > 1}, key=len, reverse=True):
        text = text.replace(path, "~")
    return text
