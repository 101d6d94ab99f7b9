"""Tie points: where a query keeps one of several rows that the clinical definition does
not order, and the other orders an equally correct derivation may use.

Any SQL file ``<stem>.sql`` (a concept of the library, or a family's reference query)
may have ``<stem>.ties.toml`` beside it::

    format_version = 1

    [[tie]]
    name = "simultaneous-gases"
    rows = "blood gases of one subject charted at the same time"   # which rows tie
    kept = "the lowest specimen_id"                                # which one the SQL keeps
    why = "no clinical rule prefers one of two gases drawn together"

    [[tie.alternative]]                       # another order, equally correct
    name = "highest-specimen-id"
    kept = "the highest specimen_id"

    [[tie.alternative.edits]]                 # each find occurs exactly once in the SQL
    find = "gas.specimen_id\\n"
    replace = "gas.specimen_id DESC\\n"

Provisioning runs a task's reference again under the alternatives of every tie point
it depends on and stores the cells that change beside the ground truth
(``m4bench.provision.alternatives``); the scorer accepts them as well as the truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import read_toml_model, read_user_text, reject_duplicate_names, sha256_text

TIES_SUFFIX = ".ties.toml"
_DOCS = "docs/scoring.md (Ties)"
_NAME = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextEdit(_Record):
    """One exact-text edit: ``find`` occurs exactly once in the SQL."""

    find: str = Field(min_length=1)
    replace: str


class TieOrder(_Record):
    """One alternative order of a tie point: the SQL's edits that give it."""

    name: str = Field(pattern=_NAME)
    kept: str = Field(min_length=3, description="which of the tied rows this order keeps")
    edits: list[TextEdit] = Field(min_length=1)


class TiePoint(_Record):
    """Rows the query must choose among without a clinical rule, and the other orders."""

    name: str = Field(pattern=_NAME)
    rows: str = Field(min_length=10, description="which rows tie")
    kept: str = Field(min_length=3, description="which one the SQL keeps")
    why: str = Field(min_length=10, description="why no clinical rule decides")
    alternative: list[TieOrder] = Field(min_length=1)


class TiesFile(_Record):
    format_version: Literal[1] = 1
    tie: list[TiePoint] = Field(min_length=1)


@dataclass(frozen=True)
class DeclaredTie:
    """One tie point of one SQL file. ``owner`` names the file: a concept's name, or
    ``<family>/<reference file>`` for a reference query."""

    owner: str
    point: TiePoint
    path: Path
    text: str

    @property
    def id(self) -> str:
        return f"{self.owner}:{self.point.name}"

    def order(self, name: str) -> TieOrder:
        for order in self.point.alternative:
            if order.name == name:
                return order
        raise M4BenchError(f"{self.path}: tie {self.point.name!r} has no order {name!r}")


def ties_path(sql_path: Path) -> Path:
    """Where the tie points of ``sql_path`` are declared."""
    return sql_path.with_name(sql_path.stem + TIES_SUFFIX)


def load_ties(sql_path: Path, owner: str, sql: str) -> list[DeclaredTie]:
    """The tie points declared beside ``sql_path`` (none when it has no ties file),
    each of its edits checked to occur exactly once in ``sql``."""
    path = ties_path(sql_path)
    parsed = read_toml_model(path, TiesFile, _DOCS)
    if parsed is None:
        return []
    reject_duplicate_names(path, [tie.name for tie in parsed.tie], "tie")
    text = read_user_text(path)
    declared = [DeclaredTie(owner, point, path, text) for point in parsed.tie]
    for tie in declared:
        reject_duplicate_names(path, [order.name for order in tie.point.alternative], "order")
        for order in tie.point.alternative:
            apply_orders(sql, [(tie, order)])
    return declared


def apply_orders(sql: str, choices: Sequence[tuple[DeclaredTie, TieOrder]]) -> str:
    """``sql`` with the edits of every chosen order applied; each ``find`` must occur
    exactly once in the SQL as the earlier choices left it."""
    edited = sql
    for tie, order in choices:
        for edit in order.edits:
            found = edited.count(edit.find)
            if found != 1:
                raise M4BenchError(
                    f"{tie.path}: tie {tie.point.name!r}, order {order.name!r}: the text "
                    f"{edit.find.strip()!r} occurs {found} times in the SQL, not once",
                    hint="quote enough of the ORDER BY that breaks the tie to be unique",
                )
            edited = edited.replace(edit.find, edit.replace)
    return edited


def ties_sha256(files: Iterable[tuple[str, Path]]) -> str:
    """One hash of the tie declarations ``(owner, ties file)`` that exist; "" for none."""
    texts = sorted((owner, read_user_text(path)) for owner, path in set(files) if path.is_file())
    return sha256_text("\n".join(f"{owner}\n{text}" for owner, text in texts)) if texts else ""
