"""Settings shared by every test module."""

from __future__ import annotations

import os

import pytest

from m4bench.tasks.catalog import TASKS_ENV


def pytest_configure(config: pytest.Config) -> None:
    """Tests see the shipped task catalog alone, whatever $M4BENCH_TASKS the shell sets;
    tests of user task folders set it themselves."""
    os.environ.pop(TASKS_ENV, None)
