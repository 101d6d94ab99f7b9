"""A run's identity: what is run (its cell) and which trial of it, and its one id.

Nothing time-dependent enters an identity, so the same run always gets the same
``run_id``: planning a profile twice gives the same ids, and a results folder can be
resumed by anyone holding the profile. Attempts (how many times a run was started) are
numbered apart and never change the identity.

To add a field to the identity: add it to :class:`Cell` and to :meth:`Cell.parts`.
Every run id hashes :meth:`Cell.parts`, so a field that is appended only when it differs
from its default keeps the ids of every run already on disk.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Condition = Literal[
    "no-skill",
    "with-skill",
    "with-skill-all",
    "with-skill-decoy",
    "with-skill-rawsql",
    "operational-spec",
]
SchemaName = Literal["native", "obfuscated", "restructured"]

CONDITIONS: tuple[Condition, ...] = get_args(Condition)
SCHEMAS: tuple[SchemaName, ...] = get_args(SchemaName)
DEFAULT_MODEL = "default"
DEFAULT_REASONING = "auto"
NON_BLANK = r"\S"
"""A model or reasoning setting names something: it is part of the run's identity."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SEPARATOR = "|"


class Cell(BaseModel):
    """What runs are compared by: a task under a condition and schema, by an agent,
    model and reasoning setting. A cell's trials are repeated runs of one setting."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_by_name=True, serialize_by_alias=True
    )

    task: str = Field(min_length=1)
    condition: Condition = "no-skill"
    schema_name: SchemaName = Field(default="native", alias="schema")
    agent: str = Field(min_length=1)
    model: str = Field(default=DEFAULT_MODEL, pattern=NON_BLANK)
    reasoning: str = Field(default=DEFAULT_REASONING, pattern=NON_BLANK)

    def parts(self) -> tuple[str, ...]:
        """The identity's values, in the order the key and the run id use them."""
        return (
            self.task,
            self.condition,
            self.schema_name,
            self.agent,
            self.model,
            self.reasoning,
        )

    @property
    def key(self) -> str:
        """``task|condition|schema|agent|model|reasoning``: stable and human readable."""
        return _SEPARATOR.join(self.parts())

    def cell(self) -> Cell:
        """The cell alone (a :class:`RunSpec` without its trial)."""
        return Cell.model_validate(self.model_dump(include=set(Cell.model_fields)))


class RunSpec(Cell):
    """One run: a cell and a trial number."""

    trial: int = Field(default=1, ge=1)

    @property
    def run_id(self) -> str:
        return run_id(self, self.trial)


def run_id(cell: Cell, trial: int) -> str:
    """A filesystem-safe id: a readable slug plus a hash of the exact identity.

    The hash keeps ids apart when sanitising would merge two names (``a/b``, ``a_b``)
    and when two agents share a model name. The hash reads the parts as the key spells
    them, so the ids of runs already recorded never change.
    """
    identity = json.dumps([*cell.key.split(_SEPARATOR), trial], separators=(",", ":"))
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:10]
    slug = _UNSAFE.sub("_", f"{cell.task}.{cell.condition}.{cell.schema_name}.{cell.model}")
    return f"{slug}.t{trial}-{digest}"


def spec_of(cell: Cell, trial: int) -> RunSpec:
    """The run of ``cell`` numbered ``trial``."""
    return RunSpec.model_validate({**cell.model_dump(), "trial": trial})
