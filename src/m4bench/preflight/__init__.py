"""Preflight: every check that can fail a release-grade campaign, run before it starts.

Public API::

    checks = run_preflight(home, PreflightOptions(results=..., profile="paper-primary"))
    all(check.ok for check in checks)

Each :class:`Check` says what was checked, what was found, and the command that fixes it.
"""

from m4bench.preflight.checks import Check
from m4bench.preflight.run import PreflightOptions, run_preflight

__all__ = ["Check", "PreflightOptions", "run_preflight"]
