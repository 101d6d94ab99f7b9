"""Small helpers for the words of messages and summaries."""

from __future__ import annotations


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the words for it: ``1 task``, ``2 tasks``; ``many`` where the plural
    is not ``one`` plus s (``counted(n, "run is", "runs are")``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
