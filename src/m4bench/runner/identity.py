"""A run's identity: what is run (task, condition, schema, agent, model, reasoning) and
which trial of it.

Nothing time-dependent enters the identity, so the same spec always gives the same
``run_id`` and a results directory can be resumed. Attempts (how many times the run
was started) are numbered separately and never change the identity.
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
    "with-skill-decoy",
    "with-skill-rawsql",
    "operational-spec",
    "with-skill-all",
]
SchemaName = Literal["native", "obfuscated", "restructured"]

CONDITIONS: tuple[Condition, ...] = get_args(Condition)
SCHEMAS: tuple[SchemaName, ...] = get_args(SchemaName)
DEFAULT_MODEL = "default"
DEFAULT_REASONING = "auto"
NON_BLANK = r"\S"
"""A model or reasoning setting names something: it is part of the run's identity."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class RunSpec(BaseModel):
    """One run: a task under a condition and schema, by an agent and model, trial N."""

    task: str = Field(min_length=1)
    condition: Condition = "no-skill"
    schema_name: SchemaName = Field(default="native", alias="schema")
    agent: str = Field(min_length=1)
    model: str = Field(default=DEFAULT_MODEL, pattern=NON_BLANK)
    reasoning: str = Field(default=DEFAULT_REASONING, pattern=NON_BLANK)
    trial: int = Field(default=1, ge=1)

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @property
    def key(self) -> str:
        """``task|condition|schema|agent|model|reasoning``: stable and human readable."""
        parts = (self.task, self.condition, self.schema_name, self.agent, self.model)
        return "|".join((*parts, self.reasoning))

    @property
    def run_id(self) -> str:
        """A filesystem-safe id: a readable slug plus a hash of the exact identity.

        The hash keeps ids apart when sanitising would merge two names (``a/b``, ``a_b``)
        and when two agents share a model name. Same formula as a campaign's run ids.
        """
        identity = json.dumps([*self.key.split("|"), self.trial], separators=(",", ":"))
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:10]
        slug = _UNSAFE.sub("_", f"{self.task}.{self.condition}.{self.schema_name}.{self.model}")
        return f"{slug}.t{self.trial}-{digest}"
