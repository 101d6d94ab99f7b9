"""A run's identity: what is run (its cell) and which trial of it, and its one id.

Nothing time-dependent enters an identity, so the same run always gets the same
``run_id``: planning a profile twice gives the same ids, and a results folder can be
resumed by anyone holding the profile. Attempts (how many times a run was started) are
numbered apart and never change the identity.

To add a field to the identity: add it to :class:`Cell` and to :meth:`Cell.parts`.
Every run id hashes :meth:`Cell.parts`, so a field that is appended only when it differs
from its default keeps the ids of every run already on disk. Such a field is also left
out of the cell's JSON while it holds its default (``exclude_if``), so the files that
hash planned cells (a campaign's ``campaign.json``) keep their hashes too.

Besides what a run is compared by (task, condition, schema, agent, model, reasoning),
the identity holds the inputs that change what the agent sees or does, when a run has
them: the digest of the file a ``replay`` agent replays and the model endpoint an agent
talks to (without credentials: :func:`public_endpoint`). The runner decides which
agents have them (``m4bench.runner.identity_inputs``).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal, get_args
from urllib.parse import urlsplit, urlunsplit

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

SHA256_HEX = r"^[0-9a-f]{64}$"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SEPARATOR = "|"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _unset(value: object) -> bool:
    return value is None


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
    replay_sha256: str | None = Field(
        default=None,
        pattern=SHA256_HEX,
        exclude_if=_unset,
        description="sha256 of the file a replay agent replays (None: not a replay run)",
    )
    endpoint: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9+.-]*://[^|@\s]+$",
        exclude_if=_unset,
        description="the model endpoint the agent talks to, as public_endpoint spells "
        "it (None: the agent's default, or an agent that reaches none)",
    )

    def parts(self) -> tuple[str, ...]:
        """The identity's values, in the order the key and the run id use them; the
        inputs a run may lack are appended, named, only when it has them."""
        inputs = (("replay", self.replay_sha256), ("endpoint", self.endpoint))
        return (
            self.task,
            self.condition,
            self.schema_name,
            self.agent,
            self.model,
            self.reasoning,
            *(f"{name}={value}" for name, value in inputs if value is not None),
        )

    @property
    def key(self) -> str:
        """``task|condition|schema|agent|model|reasoning``, then ``|replay=<sha256>``
        and ``|endpoint=<url>`` when the run has them: stable and human readable."""
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


def public_endpoint(url: str) -> str:
    """``url`` as an identity holds it: scheme and host in lower case, without user
    name and password, query or fragment (where keys travel), without the scheme's
    default port and a trailing slash. ``HTTP://key:s3cret@Host:80/v1/?k=x`` becomes
    ``http://host/v1``."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if not scheme or not parts.hostname:
        raise ValueError(f"{url!r} is not a URL with a scheme and a host (http://host:port)")
    host = parts.hostname.lower()
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/").replace(_SEPARATOR, "%7C")
    return urlunsplit((scheme, host, path, "", ""))


def spec_of(cell: Cell, trial: int) -> RunSpec:
    """The run of ``cell`` numbered ``trial``."""
    return RunSpec.model_validate({**cell.model_dump(), "trial": trial})
