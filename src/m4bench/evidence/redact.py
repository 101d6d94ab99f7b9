"""Text redaction for published evidence: secrets, e-mails, paths, times, ids, data blocks.

Every rule has a name; :class:`Redactor` counts what each rule replaced so the package's
sanitization report can say exactly what happened to each file. Rules run in a fixed
order (data blocks first, so a table's rows are hashed before their cells are touched).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-]{16,}"),
    re.compile(
        r"(?i)(\"?(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password)\"?\s*[:=]\s*)"
        r"\"?[^\s\",}]{6,}\"?"
    ),
)
EMAIL = re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b")
LOCAL_PATH = re.compile(
    r"(?<![\w.])(?:/home/[^/\s\"']+|/Users/[^/\s\"']+|/root|/tmp|/var/folders|/private/var)"
    r"(?:/[^\s\"'`,;)\]}]*)?"
)
DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
)
LONG_ID = re.compile(r"(?<![\w.])\d{7,}(?![\w.])")
NUMBER_TOKEN = re.compile(r"(?<![\w.])\d{4,}(?![\w.])")
_CELL_SPLIT = re.compile(r"\s*[,|\t│┃]\s*")
_NUMERIC_CELL = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$|^\d{4}-\d{2}-\d{2}.*$|^$")
_MIN_BLOCK_ROWS = 2
_MIN_FIELDS = 3


@dataclass
class Redactor:
    """Redacts text; ``literals`` are exact strings (known secrets, the run's paths)
    removed wherever they occur; ``identifiers`` are the run's identifier values, removed
    where they stand as whole numbers."""

    literals: Iterable[str] = ()
    identifiers: frozenset[str] = frozenset()
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        kept = sorted({s for s in self.literals if len(s) >= 4}, key=lambda s: (-len(s), s))
        alternatives = "|".join(re.escape(s) for s in kept)
        self._literal = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)") if kept else None

    def text(self, text: str) -> str:
        text = self._blocks(text)
        for pattern in SECRET_PATTERNS:
            text = self._sub(pattern, "[secret]", text, "secret")
        if self._literal is not None:
            text = self._sub(self._literal, "[redacted]", text, "literal")
        text = self._sub(EMAIL, "[email]", text, "email")
        text = self._sub(LOCAL_PATH, "[local-path]", text, "local_path")
        text = self._sub(DATETIME, "[time]", text, "timestamp")
        if self.identifiers:
            text = self._ids(text)
        return self._sub(LONG_ID, "[id]", text, "identifier")

    def _ids(self, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            if match.group() in self.identifiers:
                self.counts["identifier"] += 1
                return "[id]"
            return match.group()

        return NUMBER_TOKEN.sub(replace, text)

    def _sub(self, pattern: re.Pattern[str], replacement: str, text: str, rule: str) -> str:
        result, count = pattern.subn(replacement, text)
        if count:
            self.counts[rule] += count
        return result

    def _blocks(self, text: str) -> str:
        lines = text.split("\n")
        out: list[str] = []
        index = 0
        while index < len(lines):
            end = index
            while end < len(lines) and is_data_row(lines[end]):
                end += 1
            if end - index >= _MIN_BLOCK_ROWS:
                start = index - 1 if out and _looks_like_header(out[-1], lines[index]) else index
                block = lines[start:end]
                if start < index:
                    out.pop()
                out.append(data_block_stub(block))
                self.counts["data_block"] += 1
                index = end
                continue
            out.append(lines[index])
            index += 1
        return "\n".join(out)


def is_data_row(line: str) -> bool:
    """A line of a table: three or more delimited cells, most of them numbers or dates."""
    cells = [c for c in _CELL_SPLIT.split(line.strip().strip("|│┃")) if c != ""]
    if len(cells) < _MIN_FIELDS:
        return False
    numeric = sum(1 for c in cells if _NUMERIC_CELL.match(c))
    return numeric * 2 >= len(cells) and numeric >= 2


def _looks_like_header(line: str, first_row: str) -> bool:
    fields = [c for c in _CELL_SPLIT.split(line.strip().strip("|│┃")) if c]
    return len(fields) >= _MIN_FIELDS and len(fields) == len(_CELL_SPLIT.split(first_row.strip()))


def data_block_stub(lines: list[str]) -> str:
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]
    return f"[data block removed: {len(lines)} lines, sha256 {digest}]"
