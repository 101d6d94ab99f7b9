"""The inputs of a run that enter its identity besides its cell's names.

A ``replay`` run is identified by the digest of the file it replays, so two runs of two
files never share an id (and the second never takes the first's place); an agent that
talks to a model endpoint is identified by that endpoint, credentials left out
(:func:`m4bench.results.identity.public_endpoint`). The oracle and the mutants reach no
endpoint, and a replayed ``.sql`` file neither: the endpoint does not enter their ids.

``m4bench run`` and a campaign's planning both identify runs here, and
:func:`~m4bench.runner.execute.execute_run` checks (or fills in) the same values, so
the id a run is planned under is the id its record is written under.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TypeVar

from m4bench.errors import M4BenchError
from m4bench.results.identity import Cell, public_endpoint
from m4bench.runner.builtin_agents import MUTANT_PREFIX, SCRIPT_RUNNERS

C = TypeVar("C", bound=Cell)

_NO_ENDPOINT = ("oracle",)


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes; a missing or unreadable file is a user error."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise M4BenchError(
            f"{path}: replay file cannot be read ({exc.strerror or exc})",
            hint="pass an existing, readable .sql, .py or .sh file",
        ) from exc
    return digest.hexdigest()


def reaches_endpoint(agent: str, replay_file: Path | None) -> bool:
    """Whether ``agent`` talks to the endpoint it is given: every model-driven agent,
    and a replayed script (a ``.sql`` file runs in DuckDB only)."""
    if agent in _NO_ENDPOINT or agent.startswith(MUTANT_PREFIX):
        return False
    if agent == "replay":
        return replay_file is not None and replay_file.suffix in SCRIPT_RUNNERS
    return True


def identity_inputs(
    agent: str, endpoint: str | None, replay_file: Path | None
) -> dict[str, str | None]:
    """The ``replay_sha256`` and ``endpoint`` of a run of ``agent`` given these inputs."""
    replay = file_sha256(replay_file) if agent == "replay" and replay_file else None
    reached = endpoint if endpoint and reaches_endpoint(agent, replay_file) else None
    return {"replay_sha256": replay, "endpoint": _public(reached)}


def identified(cell: C, endpoint: str | None, replay_file: Path | None) -> C:
    """``cell`` (a :class:`Cell` or a ``RunSpec``) with its identity inputs set."""
    inputs = identity_inputs(cell.agent, endpoint, replay_file)
    data = {**cell.model_dump(by_alias=True), **inputs}
    return type(cell).model_validate(data)


def check_identified(cell: C, endpoint: str | None, replay_file: Path | None) -> C:
    """``cell`` with the inputs it lacks filled in; refuses a cell whose inputs are set
    to other values than these (a replay file changed since the run was planned)."""
    expected = identified(cell, endpoint, replay_file)
    for name in ("replay_sha256", "endpoint"):
        given, wanted = getattr(cell, name), getattr(expected, name)
        if given is not None and given != wanted:
            raise M4BenchError(
                f"run {cell.key}: its identity has {name} {given}, but the run is "
                f"given {wanted or 'none'}",
                hint="the replay file or endpoint changed after the run was planned; "
                "plan the runs again (resume the campaign with the recorded files)",
            )
    return expected


def _public(endpoint: str | None) -> str | None:
    if endpoint is None:
        return None
    try:
        return public_endpoint(endpoint)
    except ValueError:  # the message would repeat the URL, credentials and all
        raise M4BenchError(
            "--endpoint: not a URL with a scheme and a host",
            hint="give the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1",
        ) from None
