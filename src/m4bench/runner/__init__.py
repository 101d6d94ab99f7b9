"""The runner: one agent run in a sandbox, under any condition, with every outcome recorded.

Public API::

    spec = RunSpec(task="mimic-sofa-24h", condition="with-skill", agent="oracle")
    record = execute_run(spec, home=home, source="synthetic", results_dir=results)
    record = read_result(results / spec.run_id)      # result.json, validated
    is_complete(results / spec.run_id)               # finished (not a harness error)

The record and its folder are the results layer's (:mod:`m4bench.results`). See
``docs/running.md``.
"""

from m4bench.results.identity import CONDITIONS, SCHEMAS, Condition, RunSpec, SchemaName
from m4bench.results.read import is_complete, read_result
from m4bench.results.record import (
    RESULT_FORMAT_VERSION,
    STATUSES,
    ResultRecord,
    Status,
)
from m4bench.runner.builtin_agents import MUTANT_PREFIX, MutantSource
from m4bench.runner.execute import RunOptions, execute_run

__all__ = [
    "CONDITIONS",
    "MUTANT_PREFIX",
    "RESULT_FORMAT_VERSION",
    "SCHEMAS",
    "STATUSES",
    "Condition",
    "MutantSource",
    "ResultRecord",
    "RunOptions",
    "RunSpec",
    "SchemaName",
    "Status",
    "execute_run",
    "is_complete",
    "read_result",
]
