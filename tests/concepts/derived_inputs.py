"""Helpers for tests that feed a concept hand-made rows of its input concepts.

``prepare_inputs(build, "first_day_lab", ...)`` creates the named input concepts as empty
tables (built from the still empty source tables), so a test can INSERT exactly the input
rows it needs and then build the concept under test with ``with_dependencies=False``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def prepare_inputs(build: Callable[..., None], *names: str) -> None:
    """Create the input concept tables, empty. Call before inserting any source row."""
    build(*names)


def by_key(rows: Sequence[Mapping[str, Any]], key: str = "stay_id") -> dict[Any, dict[str, Any]]:
    """Index table rows by one key column (which must be unique)."""
    indexed = {row[key]: dict(row) for row in rows}
    assert len(indexed) == len(rows), f"{key} is not unique"
    return indexed
