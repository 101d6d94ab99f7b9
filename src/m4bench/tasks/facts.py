"""A task's facts (``facts.toml``): what its instruction, skills and operational spec convey.

The benchmark's treatment is its texts. The no-skill condition must carry the task and
its output contract and no procedure beyond that; a skill must carry the whole procedure.
Each task therefore states, as data, the facts each of its texts conveys, each fact with
the numbers, item ids or codes and terms that a reader must find in the text. The lint
(``m4bench.tasks.facts_lint``) checks both directions: an instruction names no number,
id or code that is not among its instruction facts, and a skill or operational spec
misses no number, id or term of its facts.

Token rules, shared by the lint and the tests:

* a number is a run of digits (with one decimal part) not glued to a word, a dot, a
  caret or a slash before it and not written as part of a name such as ``ICD-10`` or
  ``Sepsis-3`` (letters, a hyphen, digits); ``1,000`` is the number ``1000``;
* a code is a letter followed by two digits and an optional decimal part (``E10.6``);
* a term is found case-insensitively, with runs of white space read as one space.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text, toml_syntax_error
from m4bench.tasks.card import line_of

FACTS_FILE = "facts.toml"
FACTS_FORMAT_VERSION: Literal[1] = 1

_NUMBER = re.compile(r"(?<![\w.^/])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\d)")
_CODE = re.compile(r"(?<![\w.])[A-Z]\d{2}(?:\.\d+)?(?![\w]|\.\d)")
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s", re.M)
_NUMBER_TEXT = re.compile(r"^\d+(\.\d+)?$")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Fact(_Model):
    """One fact a text conveys, with what a reader must find in that text."""

    fact: str = Field(min_length=3, description="the fact, in a few words")
    numbers: list[str] = Field(default_factory=list, description="numbers the text names")
    ids: list[str] = Field(
        default_factory=list, description="item ids and codes the text names (digits or E10.6)"
    )
    terms: list[str] = Field(default_factory=list, description="words or names the text uses")
    note: str | None = Field(
        default=None,
        description="why a text states this although the paper's text does not "
        "(a convention of the reference; named in PROVENANCE known_deviations)",
    )

    @field_validator("numbers")
    @classmethod
    def _plain_numbers(cls, values: list[str]) -> list[str]:
        for value in values:
            if not _NUMBER_TEXT.match(value):
                raise ValueError(f"{value!r} is not a plain number (digits, one decimal point)")
        return values

    @field_validator("terms", "ids")
    @classmethod
    def _not_blank(cls, values: list[str]) -> list[str]:
        if any(not value.strip() for value in values):
            raise ValueError("a blank entry matches every text")
        return values

    def tokens(self) -> list[str]:
        """Every number, id and term of the fact, in that order."""
        return [*self.numbers, *self.ids, *self.terms]


class SkillFact(Fact):
    """A fact of one skill; ``skill`` names its folder when a task has several."""

    skill: str | None = None


class PaperLengths(_Model):
    """Word counts (white-space separated) of the paper's texts for the task."""

    instruction: int = Field(gt=0)
    skill: int = Field(gt=0, description="all of the task's skills together")
    operational_spec: int | None = Field(default=None, gt=0)


class TaskFacts(_Model):
    """The whole ``facts.toml`` of one task."""

    format_version: Literal[1] = FACTS_FORMAT_VERSION
    lengths: PaperLengths | None = Field(
        default=None, description="the paper's word counts; absent for tasks of one's own"
    )
    instruction: list[Fact] = Field(min_length=1)
    instruction_excludes: list[str] = Field(
        default_factory=list,
        description="terms of the procedure that the instruction must not use",
    )
    skill: list[SkillFact] = Field(min_length=1)
    operational_spec: list[Fact] = Field(default_factory=list)


def load_facts(path: Path) -> TaskFacts:
    """Read and validate ``facts.toml``; errors name the file, the line and the field."""
    text = read_user_text(path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(path, exc, text) from exc
    try:
        return TaskFacts.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        leaf = next((str(p) for p in reversed(first["loc"]) if isinstance(p, str)), "")
        raise M4BenchError(
            f"{path}:{line_of(text, leaf)}: [{where}] {first['msg']}",
            hint="see docs/tasks.md, 'Facts of a task's texts'",
        ) from exc


def numbers_in(text: str) -> list[tuple[str, int]]:
    """Each number the text names, with its 1-based line (list markers are not numbers)."""
    text = _LIST_MARKER.sub(lambda m: " " * len(m.group(0)), text)
    found = []
    for match in _NUMBER.finditer(text):
        value = match.group(1).replace(",", "") + (match.group(2) or "")
        found.append((value, text.count("\n", 0, match.start()) + 1))
    return found


def codes_in(text: str) -> list[tuple[str, int]]:
    """Each code (a letter and two digits, ``E10.6``) the text names, with its line."""
    return [(m.group(0), text.count("\n", 0, m.start()) + 1) for m in _CODE.finditer(text)]


def words(text: str) -> int:
    """White-space separated words, as the paper's lengths count them."""
    return len(text.split())


TokenKind = Literal["number", "id", "term"]


def mentions(text: str, token: str, kind: TokenKind) -> bool:
    """Whether ``text`` names ``token``: numbers and ids at digit boundaries, terms as
    case-insensitive phrases."""
    if kind == "term":
        flat = " ".join(text.split()).casefold()
        return " ".join(token.split()).casefold() in flat
    left = r"(?<![\w.])" if token[:1].isalpha() else r"(?<![\d.])"
    pattern = left + re.escape(token) + r"(?![\w]|\.\d)"
    if token.isdigit() and len(token) > 3:
        grouped = f"{int(token):,}"
        pattern = f"(?:{pattern}|{left}{re.escape(grouped)}(?!\\d))"
    return re.search(pattern, text) is not None


def missing_tokens(text: str, fact: Fact) -> Iterator[str]:
    """The numbers, ids and terms of ``fact`` that ``text`` does not name."""
    kinds: tuple[tuple[TokenKind, list[str]], ...] = (
        ("number", fact.numbers),
        ("id", fact.ids),
        ("term", fact.terms),
    )
    for kind, tokens in kinds:
        for token in tokens:
            if not mentions(text, token, kind):
                yield token
