"""Small helpers for the words of messages and summaries."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the words for it: ``1 task``, ``2 tasks``; ``many`` where the plural
    is not ``one`` plus s (``counted(n, "run is", "runs are")``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def close_names(name: str, names: Sequence[str], limit: int = 5) -> list[str]:
    """Names a user may have meant by ``name``: those containing it (or contained in
    it, as a prefix or a family), then spelling neighbours; at most ``limit``."""
    near = difflib.get_close_matches(name, names, n=limit, cutoff=0.75)
    containing = [n for n in names if name in n or n in name]
    return list(dict.fromkeys(containing + near))[:limit]
