"""Benchmark validity: known-wrong derivations (mutants) and rule coverage.

``audit(source, tasks)`` scores every task's reference and mutants with the real scorer
and counts the rows reaching each named scoring bin; see ``docs/validity.md``.
"""

from m4bench.validity.audit import audit, select_audit_tasks
from m4bench.validity.coverage import BinSpec, load_coverage
from m4bench.validity.model import AuditReport, BinCoverage, MutantResult, TaskAudit

__all__ = [
    "AuditReport",
    "BinCoverage",
    "BinSpec",
    "MutantResult",
    "TaskAudit",
    "audit",
    "load_coverage",
    "select_audit_tasks",
]
