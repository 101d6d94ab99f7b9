"""Sanitizing JSON: result records, JSON-lines traces and egress logs.

Structure is kept (a reviewer still reads every verdict and count); row samples are
emptied (they carry key values), wall-clock fields are dropped or made relative, and
every string goes through the :class:`Redactor`.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from m4bench.evidence.redact import Redactor

SAMPLE_SUFFIX = "_sample"
CLOCK_FIELDS = frozenset(
    {"timestamp", "created", "created_at", "started_at", "finished_at", "updated_at",
     "time", "ts", "date", "datetime", "start_time", "end_time"}
)  # fmt: skip
LARGE_NUMBER = 1_000_000
IDENTITY_FIELDS = frozenset(
    {"run_id", "task", "condition", "schema", "schema_name", "agent", "model", "reasoning"}
)  # chosen by the harness, never data: kept verbatim so run ids stay recomputable


def sanitize_value(
    value: Any, redactor: Redactor, counts: Counter[str], numbers: bool = False
) -> Any:
    """A JSON value with samples emptied, clock fields dropped and strings redacted;
    with ``numbers``, integers of seven or more digits and the run's identifier values
    become ``"[id]"`` too (for traces, where a number may be a patient's id)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in CLOCK_FIELDS:
                counts["clock_field"] += 1
                continue
            if key.endswith(SAMPLE_SUFFIX) and isinstance(item, list):
                counts["row_sample"] += len(item)
                out[key] = []
                continue
            if key in IDENTITY_FIELDS and isinstance(item, str):
                out[key] = item
                continue
            out[key] = sanitize_value(item, redactor, counts, numbers)
        return out
    if isinstance(value, list):
        return [sanitize_value(item, redactor, counts, numbers) for item in value]
    if isinstance(value, str):
        return redactor.text(value)
    if numbers and _identifier_like(value, redactor):
        counts["identifier"] += 1
        return "[id]"
    return value


def _identifier_like(value: Any, redactor: Redactor) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return abs(value) >= LARGE_NUMBER or str(value) in redactor.identifiers


def sanitize_json_text(text: str, redactor: Redactor, counts: Counter[str]) -> str:
    """A JSON document, sanitized and written back with sorted keys."""
    value = sanitize_value(json.loads(text), redactor, counts)
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def sanitize_jsonl(text: str, redactor: Redactor, counts: Counter[str]) -> str:
    """A JSON-lines trace: each JSON line sanitized in place; other lines as text."""
    out = []
    for line in text.splitlines():
        try:
            parsed = json.loads(line)
        except ValueError:
            out.append(redactor.text(line))
            continue
        clean = sanitize_value(parsed, redactor, counts, numbers=True)
        out.append(json.dumps(clean, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + ("\n" if out else "")


def sanitize_egress(text: str, redactor: Redactor, counts: Counter[str]) -> str:
    """The proxy's log with each event's clock time made relative to the first event."""
    out = []
    first: float | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        stamp = event.pop("ts", None) if isinstance(event, dict) else None
        clean = sanitize_value(event, redactor, counts)
        if isinstance(clean, dict) and isinstance(stamp, int | float):
            first = float(stamp) if first is None else first
            clean["ts"] = round(float(stamp) - first, 3)
            counts["relative_time"] += 1
        out.append(json.dumps(clean, sort_keys=True, separators=(",", ":")))
    return "\n".join(out) + ("\n" if out else "")
