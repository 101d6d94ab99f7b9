"""Settings shared by every test module."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from m4bench.tasks.catalog import TASKS_ENV


def pytest_configure(config: pytest.Config) -> None:
    """Tests see the shipped task catalog alone, whatever $M4BENCH_TASKS the shell sets;
    tests of user task folders set it themselves."""
    os.environ.pop(TASKS_ENV, None)


@pytest.fixture(autouse=True)
def _keep_the_sigterm_handler() -> Iterator[None]:
    """``m4bench.cli.main()`` turns SIGTERM into Ctrl-C for the command it runs; a test
    calling it must not leave that to the test process (which its runner may stop)."""
    handler = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, handler)
