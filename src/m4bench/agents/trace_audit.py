"""Whether an agent's trace can be believed about its token counts.

The trace is the agent CLI's own output, and any process of the sandbox's user id (a
tool the agent runs) can write lines into it. The parsers read what they can and count
a malformed field as 0, so a forged line could zero a run's usage or slip in a fake
model name. This audit lists what makes a trace suspect, for the runner to mark the run
unpublishable and a budget to count the run's worst case:

* a line that starts as a JSON object or array but does not parse (stray lines of
  plain text, which some CLIs print, are skipped by every parser and left alone), or a
  trace the parser could not read at all;
* token counts that are negative, or not numbers;
* counts that contradict each other: a total below the sum of the steps it totals, a
  cached count above the input it is part of, one message's count going down.

It reads the stored (redacted) trace again, independent of each adapter's parser.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from m4bench.agents.base import TraceSummary

_COUNT_KEYS = frozenset(
    {"input", "output", "cached", "num_turns", "cost_usd", "total_cost_usd", "instance_cost"}
)
_INPUT_KEYS = ("input_tokens", "prompt_tokens")
_CACHED_KEYS = ("cached_input_tokens", "cached_tokens", "cached")
_BUCKETS = (
    "input_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "output_tokens",
)
_REACT_TOTALS = {
    "total_prompt_tokens": "prompt_tokens",
    "total_completion_tokens": "completion_tokens",
    "total_cached_tokens": "cached_tokens",
}
_LIMIT = 5


def audit_trace(agent: str, path: Path, summary: TraceSummary) -> list[str]:
    """Why the trace at ``path`` cannot be believed (empty: nothing found)."""
    problems = [error for error in summary.errors if error.startswith("unreadable trace")]
    objects, malformed = _objects(path)
    if malformed:
        problems.append(f"{malformed} trace line(s) are malformed JSON")
    problems += _bad_counts(objects)[:_LIMIT]
    problems += _contradictions(objects)[:_LIMIT]
    if agent == "claude-code":
        problems += _claude(objects)[:_LIMIT]
    elif agent == "react":
        problems += _react(objects)[:_LIMIT]
    return problems


def _objects(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The JSON objects of a trace (one document, or one object per line) and the count
    of lines that start as JSON but do not parse."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], 0
    try:
        whole = json.loads(text)
        return ([whole] if isinstance(whole, dict) else []), 0
    except ValueError:
        pass
    objects, malformed = [], 0
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            malformed += line.lstrip().startswith(("{", "["))
            continue
        if isinstance(value, dict):
            objects.append(value)
    return objects, malformed


def _walk(value: Any, where: str = "") -> Iterator[tuple[str, str, Any, Any]]:
    """(place, key, value, parent dict) for every key of every nested object."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield where, str(key), item, value
            yield from _walk(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, where)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bad_counts(objects: list[dict[str, Any]]) -> list[str]:
    found = []
    for number, obj in enumerate(objects, start=1):
        for place, key, value, _ in _walk(obj):
            name = key.lower()
            counted = name.endswith("tokens") or name in _COUNT_KEYS
            if not counted or value is None or isinstance(value, dict):
                continue
            label = f"{place}.{key}" if place else key
            if _is_number(value) and value < 0:
                found.append(f"object {number}: negative count {label}={value}")
            elif name.endswith("tokens") and not _is_number(value):
                found.append(f"object {number}: count {label} is not a number: {value!r:.40}")
    return found


def _contradictions(objects: list[dict[str, Any]]) -> list[str]:
    """Totals below their parts and cached input above the input, in any usage object."""
    found = []
    for number, obj in enumerate(objects, start=1):
        for _, _, value, _ in _walk({"root": obj}):
            if isinstance(value, dict):
                found += [f"object {number}: {what}" for what in _inconsistent_usage(value)]
    return found


def _inconsistent_usage(usage: dict[str, Any]) -> list[str]:
    def first(names: tuple[str, ...]) -> Any:
        return next((usage[k] for k in names if _is_number(usage.get(k))), None)

    total = first(("total_tokens",))
    inputs = first(_INPUT_KEYS)
    output = first(("output_tokens", "completion_tokens"))
    cached = first(_CACHED_KEYS)
    found = []
    if None not in (total, inputs, output) and total < inputs + output:
        found.append(f"total_tokens {total} < input + output ({inputs} + {output})")
    if None not in (inputs, cached) and cached > inputs:
        found.append(f"cached input {cached} > input {inputs}")
    return found


def _claude(objects: list[dict[str, Any]]) -> list[str]:
    """Per-message counts that go down, and a result total below the messages' sum."""
    found = []
    last: dict[str, dict[str, int]] = {}
    total: dict[str, Any] | None = None
    for obj in objects:
        message = obj.get("message") if obj.get("type") == "assistant" else None
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            counts = _numbers(message["usage"], _BUCKETS)
            key = str(message.get("id"))
            earlier = last.get(key, {})
            for bucket, value in counts.items():
                if value < earlier.get(bucket, 0):
                    found.append(f"message {key}: {bucket} went down to {value}")
            last[key] = {**earlier, **counts}
        elif obj.get("type") == "result" and isinstance(obj.get("usage"), dict):
            total = obj["usage"]
    if total is not None:
        reported = _numbers(total, _BUCKETS)
        for bucket in _BUCKETS:
            summed = sum(counts.get(bucket, 0) for counts in last.values())
            if bucket in reported and reported[bucket] < summed:
                found.append(f"result {bucket} {reported[bucket]} < the messages' sum {summed}")
    return found


def _react(objects: list[dict[str, Any]]) -> list[str]:
    """The final totals below the sum of the steps' metrics."""
    summed = dict.fromkeys(_REACT_TOTALS.values(), 0)
    final: dict[str, Any] | None = None
    for obj in objects:
        step = obj.get("step") if obj.get("type") == "step" else None
        if isinstance(step, dict) and isinstance(step.get("metrics"), dict):
            for name, value in _numbers(step["metrics"], tuple(summed)).items():
                summed[name] += value
        elif obj.get("type") == "final" and isinstance(obj.get("final_metrics"), dict):
            final = obj["final_metrics"]
    if final is None:
        return []
    reported = _numbers(final, tuple(_REACT_TOTALS))
    return [
        f"final {total} {reported[total]} < the steps' sum {summed[part]}"
        for total, part in _REACT_TOTALS.items()
        if total in reported and reported[total] < summed[part]
    ]


def _numbers(raw: dict[str, Any], names: tuple[str, ...]) -> dict[str, int]:
    return {name: int(raw[name]) for name in names if _is_number(raw.get(name))}
