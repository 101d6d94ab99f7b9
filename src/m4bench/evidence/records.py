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
CLOCK_FIELDS = frozenset({"timestamp", "created_at", "started_at", "finished_at", "time"})
IDENTITY_FIELDS = frozenset(
    {"run_id", "task", "condition", "schema", "schema_name", "agent", "model", "reasoning"}
)  # chosen by the harness, never data: kept verbatim so run ids stay recomputable


def sanitize_value(value: Any, redactor: Redactor, counts: Counter[str]) -> Any:
    """A JSON value with samples emptied, clock fields dropped and strings redacted."""
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
            out[key] = sanitize_value(item, redactor, counts)
        return out
    if isinstance(value, list):
        return [sanitize_value(item, redactor, counts) for item in value]
    if isinstance(value, str):
        return redactor.text(value)
    return value


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
        clean = sanitize_value(parsed, redactor, counts)
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
        if isinstance(event, dict) and isinstance(event.get("ts"), int | float):
            first = event["ts"] if first is None else first
            event["ts"] = round(float(event["ts"]) - float(first or 0.0), 3)
            counts["relative_time"] += 1
        clean = sanitize_value(event, redactor, counts)
        out.append(json.dumps(clean, sort_keys=True, separators=(",", ":")))
    return "\n".join(out) + ("\n" if out else "")
