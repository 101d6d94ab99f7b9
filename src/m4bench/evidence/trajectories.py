"""A run's ATIF trajectory in a package: sanitized, and still valid ATIF.

Every string a model or a tool wrote (messages, reasoning, tool-call arguments, notes,
``extra`` fields) goes through the run's :class:`Redactor`, integers in arguments as in
traces; times keep their spacing but start at the Unix epoch, so the wall clock of the
run is not published. Observation contents (what tools returned: query results, file
contents) are redacted like the trace when the run's rows may be published (a public
source with full outputs allowed). Otherwise only the structure is kept: every text the
model or a tool wrote (messages, reasoning, tool-call arguments, observations, notes,
``extra`` fields) is replaced by a stub with its length and SHA-256 prefix, since rows
can hide in any shape there (JSON lines, sentences): a scores-only package carries no
row in any form. The agent's name, version, model and tool definitions, the session
id, the steps, their tools and call ids and the token metrics are kept as they are.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from m4bench.agents.atif import EPOCH, Trajectory, dump_trajectory, event_time, iso
from m4bench.evidence.builder import Builder, action
from m4bench.evidence.records import sanitize_value
from m4bench.evidence.redact import Redactor
from m4bench.results.layout import RUNS_DIR, TRAJECTORY_FILE

NOT_ATIF = "not a valid ATIF trajectory (written by an earlier m4bench); the trace is packaged"


def package_trajectory(
    builder: Builder, run_id: str, path: Path, redactor: Redactor, rows_allowed: bool
) -> None:
    """Add the run's sanitized trajectory; skip (with the reason) one that is not ATIF."""
    raw = path.read_bytes()
    source = str(path.relative_to(builder.results))
    try:
        trajectory = Trajectory.model_validate_json(raw)
    except ValidationError:
        builder.skip(source, NOT_ATIF)
        return
    counts: Counter[str] = Counter()
    clean = sanitize_trajectory(trajectory, redactor, counts, rows_allowed)
    data = dump_trajectory(clean).encode("utf-8")
    what = "sanitized ATIF trajectory, times from the epoch" + (
        ""
        if rows_allowed
        else ", structure only: observation contents, messages, reasoning, tool arguments, "
        "notes and extra fields removed"
    )
    target = f"{RUNS_DIR}/{run_id}/{TRAJECTORY_FILE}"
    builder.add(target, data, action(target, source, what, raw, data, redactor, counts))


def sanitize_trajectory(
    trajectory: Trajectory, redactor: Redactor, counts: Counter[str], rows_allowed: bool
) -> Trajectory:
    """The trajectory as it may be published (see the module's description)."""
    document = trajectory.model_dump(mode="json", exclude_none=True)
    first = _first_time(document["steps"])
    for step in document["steps"]:
        if rows_allowed:
            _sanitize_step(step, redactor, counts, first)
        else:
            _structure_of_step(step, counts, first)
    if "notes" in document:
        notes = document["notes"]
        document["notes"] = redactor.text(notes) if rows_allowed else _stub(notes, counts)
    if "extra" in document:
        extra = document["extra"]
        document["extra"] = (
            sanitize_value(extra, redactor, counts, numbers=True)
            if rows_allowed
            else {"removed": _stub(extra, counts)}
        )
    agent = document["agent"]
    if "tool_definitions" in agent:
        agent["tool_definitions"] = sanitize_value(agent["tool_definitions"], redactor, counts)
    return Trajectory.model_validate(document)


def _sanitize_step(
    step: dict[str, Any], redactor: Redactor, counts: Counter[str], first: datetime | None
) -> None:
    step["message"] = _text_or_parts(step["message"], redactor)
    if "reasoning_content" in step:
        step["reasoning_content"] = redactor.text(step["reasoning_content"])
    for call in step.get("tool_calls", []):
        call["arguments"] = sanitize_value(call["arguments"], redactor, counts, numbers=True)
    for result in step.get("observation", {}).get("results", []):
        if "content" in result:
            result["content"] = _text_or_parts(result["content"], redactor)
    if "extra" in step:
        step["extra"] = sanitize_value(step["extra"], redactor, counts, numbers=True)
    _relative_time(step, counts, first)


def _structure_of_step(step: dict[str, Any], counts: Counter[str], first: datetime | None) -> None:
    """The step with every text the model or a tool wrote replaced by a stub."""
    step["message"] = _stub(step["message"], counts, "message") if step["message"] else ""
    if "reasoning_content" in step:
        step["reasoning_content"] = _stub(step["reasoning_content"], counts, "reasoning")
    for call in step.get("tool_calls", []):
        call["arguments"] = {"removed": _stub(call["arguments"], counts, "arguments")}
    for result in step.get("observation", {}).get("results", []):
        if "content" in result:
            result["content"] = _stub(result["content"], counts, "observation")
    if "extra" in step:
        step["extra"] = {"removed": _stub(step["extra"], counts)}
    _relative_time(step, counts, first)


def _relative_time(step: dict[str, Any], counts: Counter[str], first: datetime | None) -> None:
    if "timestamp" in step and first is not None:
        step["timestamp"] = iso(EPOCH + (_parse(step["timestamp"]) - first))
        counts["relative_time"] += 1


def _stub(value: Any, counts: Counter[str], what: str = "content") -> str:
    """A stand-in for removed text: its length and SHA-256 prefix, nothing of it."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    counts[f"{what}_removed"] += 1
    return f"[{what} removed: {len(text)} characters, sha256 {digest}]"


def _text_or_parts(value: Any, redactor: Redactor) -> Any:
    """A message or content: a string, or content parts whose text is redacted."""
    if isinstance(value, str):
        return redactor.text(value)
    return [
        part | {"text": redactor.text(part["text"])} if "text" in part else part for part in value
    ]


def _first_time(steps: list[dict[str, Any]]) -> datetime | None:
    times = [_parse(step["timestamp"]) for step in steps if "timestamp" in step]
    return min(times) if times else None


def _parse(stamp: str) -> datetime:
    """A step's time (ATIF validated it as ISO 8601; one without a zone is UTC)."""
    return event_time(stamp) or EPOCH
