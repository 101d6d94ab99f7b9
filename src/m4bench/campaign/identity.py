"""A run's identity: its cell (what is compared) plus its trial number.

Nothing time-dependent enters an identity, so planning the same profile twice gives
the same run ids, and a results directory can be resumed by anyone holding the profile.
Attempts (how many times a run was started) are numbered separately and never change
the identity.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Condition = Literal[
    "no-skill",
    "with-skill",
    "with-skill-all",
    "with-skill-decoy",
    "with-skill-rawsql",
    "operational-spec",
]
Schema = Literal["native", "obfuscated", "restructured"]

CONDITIONS: tuple[Condition, ...] = (
    "no-skill",
    "with-skill",
    "with-skill-all",
    "with-skill-decoy",
    "with-skill-rawsql",
    "operational-spec",
)
SCHEMAS: tuple[Schema, ...] = ("native", "obfuscated", "restructured")

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class Cell(BaseModel):
    """One cell of a campaign matrix; its trials are repeated runs of the same setting."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_by_name=True, serialize_by_alias=True
    )

    task: str
    condition: Condition
    schema_name: Schema = Field(alias="schema")
    agent: str
    model: str = Field(pattern=r"\S")
    reasoning: str = Field("auto", pattern=r"\S")

    @property
    def key(self) -> str:
        """``task|condition|schema|agent|model|reasoning``: stable and human readable."""
        parts = (self.task, self.condition, self.schema_name, self.agent, self.model)
        return "|".join((*parts, self.reasoning))


class PlannedRun(BaseModel):
    """One run of a campaign: a cell, a trial, and how the run is to be executed."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    cell: Cell
    trial: int = Field(ge=1)
    timeout_seconds: float = Field(gt=0)
    provider: str
    prior_seconds: float = Field(gt=0, description="expected duration, for scheduling")

    @property
    def run_id(self) -> str:
        return run_id(self.cell, self.trial)


def run_id(cell: Cell, trial: int) -> str:
    """A filesystem-safe id: a readable slug plus a hash of the exact identity.

    The hash keeps ids distinct when sanitising would merge two names (``a/b``, ``a_b``).
    """
    identity = json.dumps([*cell.key.split("|"), trial], separators=(",", ":"))
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:10]
    slug = _UNSAFE.sub("_", f"{cell.task}.{cell.condition}.{cell.schema_name}.{cell.model}")
    return f"{slug}.t{trial}-{digest}"
