"""The ``inspect_ai`` entry point: one registered Inspect task per m4bench task.

``inspect eval m4bench/<task> -T condition=with-skill -T schema=native -T source=NAME
--model PROVIDER/MODEL`` runs one; every task of the catalog (the shipped ones and those
of ``$M4BENCH_TASKS``) is registered under its own name. The task parameters:

* ``condition``: ``no-skill`` (default), ``with-skill``, ``with-skill-decoy``,
  ``with-skill-rawsql``, ``operational-spec`` or ``with-skill-all``;
* ``schema``: ``native`` (default), ``obfuscated`` or ``restructured``;
* ``source``: the provisioned source (default: the task's synthetic source);
* ``home``: the data home (default ``$M4BENCH_HOME``, else ``~/.m4bench``);
* ``sandbox``: the Inspect sandbox (default ``local``).
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai import Task, task

from m4bench.integrations.inspect_tasks import m4bench_task
from m4bench.tasks.catalog import load_catalog

TaskFactory = Callable[..., Task]


def task_factory(name: str) -> TaskFactory:
    """The registered factory of m4bench task ``name``."""

    def factory(
        condition: str = "no-skill",
        schema: str = "native",
        source: str | None = None,
        home: str | None = None,
        sandbox: str = "local",
    ) -> Task:
        return m4bench_task(
            name, condition=condition, schema=schema, source=source, home=home, sandbox_type=sandbox
        )

    factory.__name__ = name.replace("-", "_")
    factory.__qualname__ = factory.__name__
    factory.__doc__ = f"m4bench task {name} (see docs/integrations.md)."
    registered: TaskFactory = task(name=name)(factory)
    return registered


TASKS: dict[str, TaskFactory] = {name: task_factory(name) for name in load_catalog().names}
"""Every catalog task's registered factory, by task name."""
