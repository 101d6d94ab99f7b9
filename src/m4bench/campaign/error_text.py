"""Reading an infrastructure error's text: its first line, and its hint (what to do)."""

from __future__ import annotations

HINT_PREFIX = "hint:"
"""How an error text marks its hint (see :class:`m4bench.errors.M4BenchError`)."""


def error_headline(error: str) -> str:
    """The first line of an error text (its hint and traceback stay in the record)."""
    return error.strip().splitlines()[0] if error.strip() else "no detail"


def error_hint(error: str) -> str | None:
    """The ``hint: ...`` line of an error text (what to do about it), if it has one."""
    for line in error.splitlines():
        text = line.strip()
        if text.startswith(HINT_PREFIX):
            return text[len(HINT_PREFIX) :].strip() or None
    return None
