"""Settings and session fixtures shared by every test module.

Tiers (markers registered in pyproject.toml; see docs/testing.md):

* ``heavy``: the full sweeps (every fuzz case, every task in the sandbox, every seed);
  left out unless asked for (``make test-full`` or ``pytest -m heavy``).
* ``slow``: reads a synthetic source, provisions or runs the sandbox. Part of the
  default suite; ``make test-quick`` leaves it out. Set here from the fixtures a test
  uses and its ``bwrap`` mark, and by hand on other tests of that kind.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Iterator

import pytest
from synthetic_sources import SyntheticSources, locked, run_folder

from m4bench.tasks.catalog import TASKS_ENV, Catalog, load_catalog
from m4bench.tasks.finding import Finding
from m4bench.tasks.lint import lint_catalog

# A test using one of these fixtures reads a synthetic source: it is ``slow``.
SOURCE_FIXTURES = frozenset(
    {"synthetic_sources", "bench", "eicu_bench", "provisioned", "default_sources"}
)


def pytest_configure(config: pytest.Config) -> None:
    """Tests see the shipped task catalog alone, whatever $M4BENCH_TASKS the shell sets;
    tests of user task folders set it themselves."""
    os.environ.pop(TASKS_ENV, None)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test reading a synthetic source or needing bubblewrap (before
    ``-m`` selects)."""
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if uses & SOURCE_FIXTURES or item.get_closest_marker("bwrap"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _keep_the_sigterm_handler() -> Iterator[None]:
    """``m4bench.cli.main()`` turns SIGTERM into Ctrl-C for the command it runs; a test
    calling it must not leave that to the test process (which its runner may stop)."""
    handler = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, handler)


@pytest.fixture(scope="session")
def synthetic_sources(tmp_path_factory: pytest.TempPathFactory) -> SyntheticSources:
    """Synthetic sources by (dataset, stays, seed, concepts), each built once per run."""
    return SyntheticSources(run_folder(tmp_path_factory) / "synthetic-sources")


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The shipped task catalog (no user folders), loaded once per worker. Read it only."""
    return load_catalog(extra_roots=())


@pytest.fixture(scope="session")
def catalog_findings(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    """Every lint finding on the shipped catalog, references run: linted once per run
    (the first worker to ask keeps them for the others)."""
    kept = run_folder(tmp_path_factory) / "catalog-findings.pickle"
    with locked(kept.with_suffix(".lock")):
        if not kept.exists():
            kept.write_bytes(pickle.dumps(lint_catalog(extra_roots=())))
    findings: list[Finding] = pickle.loads(kept.read_bytes())
    return findings
