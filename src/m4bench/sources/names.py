"""The one rule for source names, whichever command makes the source."""

from __future__ import annotations

import re

from m4bench.errors import M4BenchError

SOURCE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def check_source_name(name: str) -> str:
    """``name`` when it is a valid source name (it becomes a folder and a run id part)."""
    if not SOURCE_NAME.match(name):
        raise M4BenchError(
            f"invalid source name {name!r}",
            hint="use lower-case letters, digits, '.', '_' or '-', starting with a letter "
            "or digit (at most 64 characters; e.g. synthetic-mimic-iv)",
        )
    return name
