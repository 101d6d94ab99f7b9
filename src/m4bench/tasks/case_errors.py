"""Problems in ``cases.toml``, located at their line and said in plain words.

TOML parsers forget where a value came from, so the lines are found again in the text:
the ``[[case]]`` headers split the file into cases, the ``[[case.rows]]``,
``[[case.expect]]`` and ``[[case.absent]]`` headers split a case into blocks, and a field
is the line that assigns it inside its case or block. Cases are named as a reader counts
them (``case 6``, with its name when it has one), never by a list index.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import ErrorDetails

from m4bench.errors import M4BenchError

_DOCS = "docs/tasks.md (Patient cases)"
_CASE = re.compile(r"^\s*\[\[\s*case\s*\]\]")
_BLOCK = re.compile(r"^\s*\[\[\s*case\s*\.\s*(rows|expect|absent)\s*\]\]")
_HEADER = re.compile(r"^\s*\[")

# What a plain reader should be told for a broken pattern, by field.
_PATTERN_WORDS = {
    "name": "lower-case letters and digits in words joined by hyphens, e.g. 'rrt-caps-creatinine'",
    "table": "a lower-case 'schema.table', e.g. 'mimiciv_icu.icustays'",
}


class CasesFileError(M4BenchError):
    """A problem of one ``cases.toml``: ``path``, ``line`` and the ``problem`` itself."""

    def __init__(self, path: Path, line: int, problem: str, hint: str | None = None) -> None:
        super().__init__(f"{path}:{line}: {problem}", hint or f"see {_DOCS} for the format")
        self.path = path
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class _Case:
    start: int
    end: int  # last line of the case
    blocks: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


@dataclass(frozen=True)
class CaseLines:
    """The lines of one ``cases.toml``: each case's span, and each block's in it."""

    lines: tuple[str, ...]
    cases: tuple[_Case, ...]

    @classmethod
    def of(cls, text: str) -> CaseLines:
        lines = tuple(text.splitlines())
        starts = [n for n, line in enumerate(lines, start=1) if _CASE.match(line)]
        ends = [s - 1 for s in starts[1:]] + [len(lines)]
        cases = []
        for start, end in zip(starts, ends, strict=True):
            blocks: dict[str, list[tuple[int, int]]] = {}
            for number in range(start + 1, end + 1):
                match = _BLOCK.match(lines[number - 1])
                if match:
                    blocks.setdefault(match.group(1), []).append(
                        (number, _block_end(lines, number, end))
                    )
            cases.append(_Case(start, end, blocks))
        return cls(lines, tuple(cases))

    def case_line(self, index: int) -> int:
        return self.cases[index].start if index < len(self.cases) else 1

    def block_line(self, index: int, block: str, row: int) -> int:
        """The header line of block ``row`` (0-based) of ``block`` in case ``index``."""
        if index >= len(self.cases):
            return 1
        spans = self.cases[index].blocks.get(block, [])
        return spans[row][0] if row < len(spans) else self.cases[index].start

    def line(self, loc: Sequence[int | str]) -> int:
        """The line of a validation error's location, as near as the text tells."""
        if not loc or loc[0] != "case":
            return self._key_line(1, len(self.lines), str(loc[0]) if loc else "")
        if len(loc) < 2 or not isinstance(loc[1], int) or loc[1] >= len(self.cases):
            return self.case_line(0)
        case = self.cases[loc[1]]
        rest = loc[2:]
        if len(rest) >= 2 and isinstance(rest[1], int) and rest[0] in case.blocks:
            spans = case.blocks[str(rest[0])]
            if rest[1] >= len(spans):
                return case.start
            start, end = spans[rest[1]]
            return self._key_line(start, end, str(rest[2])) if len(rest) > 2 else start
        if not rest:
            return case.start
        own_end = min((s for spans in case.blocks.values() for s, _ in spans), default=case.end)
        return self._key_line(case.start, own_end, str(rest[0]))

    def _key_line(self, start: int, end: int, key: str) -> int:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for number in range(start, min(end, len(self.lines)) + 1):
            if key and pattern.match(self.lines[number - 1]):
                return number
        return start


def _block_end(lines: Sequence[str], start: int, case_end: int) -> int:
    for number in range(start + 1, case_end + 1):
        if _HEADER.match(lines[number - 1]):
            return number - 1
    return case_end


def case_label(raw: Mapping[str, Any], index: int) -> str:
    """``case 6 ("rrt-caps")``: the case as a reader counts it, with its name if any."""
    cases = raw.get("case")
    name = None
    if isinstance(cases, list) and index < len(cases) and isinstance(cases[index], dict):
        name = cases[index].get("name")
    return f"case {index + 1} ({name!r})" if isinstance(name, str) else f"case {index + 1}"


def validation_problem(
    error: ErrorDetails, raw: Mapping[str, Any], fields: Mapping[str, Sequence[str]]
) -> str:
    """One validation error in words: where (case, block, field) and what to do.

    ``fields``: the fields each part of the file takes (``file``, ``case``, ``rows``).
    """
    loc = [part for part in error["loc"]]
    where, model = _where(loc, raw)
    name = str(loc[-1]) if loc else ""
    kind = error["type"]
    if kind == "extra_forbidden":
        allowed = list(fields[model])
        close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
        guess = f"did you mean {close[0]!r}? " if close else ""
        return f"{where}unknown field {name!r}: {guess}it takes {', '.join(allowed)}"
    if kind == "missing":
        return f"{where}{name} is missing"
    if kind == "string_pattern_mismatch":
        words = _PATTERN_WORDS.get(name, f"the pattern {error.get('ctx', {}).get('pattern')}")
        return f"{where}{name} {error['input']!r} must be {words}"
    if kind == "string_too_short":
        return f"{where}{name} is too short: say the rule in words (at least 10 characters)"
    if kind == "too_short":
        return f"{where}{name} needs at least one entry"
    if kind in ("greater_than_equal", "greater_than"):
        return f"{where}{name} must not be negative"
    if kind == "literal_error" and name == "format_version":
        return "format_version must be 1"
    return f"{where}{name}: {error['msg']}"


def _where(loc: list[int | str], raw: Mapping[str, Any]) -> tuple[str, str]:
    """The ``case 6 ('x'), rows block 2: `` prefix of a location, and its model's name."""
    if len(loc) < 3 or loc[0] != "case" or not isinstance(loc[1], int):
        return "", "file"
    where = case_label(raw, loc[1])
    if len(loc) >= 5 and isinstance(loc[3], int):
        where += f", {loc[2]} block {loc[3] + 1}"
        return f"{where}: ", "rows" if loc[2] == "rows" else "case"
    return f"{where}: ", "case"
