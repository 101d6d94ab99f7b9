"""The TOML text of a small campaign profile: one block, local agents, one model each.

Tests write it to a file and plan or run it; what differs between tests (agents, tasks,
conditions, schemas, extra tables) is an argument.
"""

from __future__ import annotations

from collections.abc import Sequence


def local_profile(
    name: str,
    tasks: Sequence[str],
    agents: Sequence[str] = ("oracle",),
    conditions: Sequence[str] = ("no-skill",),
    schemas: Sequence[str] | None = None,
    extra: str = "",
    *,
    trials: int = 1,
    model: str = "default",
    settings: str = "",
) -> str:
    """A profile whose first agent is the default, every agent ``provider = "local"``
    with ``model``, and one block of ``tasks`` x ``conditions``. ``settings``: top-level
    keys (before the first table); ``extra``: tables after the block."""
    lines = ["format_version = 1", f'name = "{name}"', f'default_agent = "{agents[0]}"']
    lines.append(f"trials = {trials}")
    lines += settings.splitlines()
    for agent in agents:
        lines += [f'[agents."{agent}"]', 'provider = "local"']
        lines.append(f'models = {{ primary = ["{model}"] }}')
    lines += ["[[blocks]]", 'name = "b"', f"tasks = {_array(tasks)}"]
    lines.append(f"conditions = {_array(conditions)}")
    if schemas is not None:
        lines.append(f"schemas = {_array(schemas)}")
    return "\n".join(lines) + "\n" + extra


def _array(values: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{value}"' for value in values) + "]"
