"""The synthetic sources of one test run, each built once for every test worker.

A source is named by its dataset, size (stays; None for the default size), seed and
whether every concept is built into it (by two build workers, as ``concepts build
--jobs 2`` does). The first worker that asks builds it under a
file lock in the run's shared temporary folder; the others wait, then read the same
files. Tests read a shared source and never write into it; a test that writes (setup,
concepts, audits, runs) takes a copy of its own under the name it wants
(:meth:`SyntheticSources.copy`). Sources with special settings (quirk rates, workers)
are still built by the tests that need them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from m4bench.concepts.build import build_concepts
from m4bench.fileio import write_model
from m4bench.home import DataHome
from m4bench.sources.layout import Source, load_source
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv

DONE = "built"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (one test worker builds, the others wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this test run sees, and no other run.

    Under pytest-xdist each worker's base folder is ``<run>/popen-gwN``; without it the
    base folder is the run's own."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@dataclass(frozen=True)
class SourceKey:
    """What identifies a shared synthetic source."""

    dataset: str
    stays: int | None
    seed: int
    concepts: bool = False

    def __post_init__(self) -> None:
        if self.dataset not in ("mimic-iv", "eicu"):
            raise ValueError(f"unknown dataset {self.dataset!r}")
        if self.concepts and self.dataset != "mimic-iv":
            raise ValueError("only MIMIC-IV has a concept library")

    @property
    def name(self) -> str:
        size = "default" if self.stays is None else str(self.stays)
        suffix = "-concepts" if self.concepts else ""
        return f"{self.dataset}-{size}-s{self.seed}{suffix}"


@dataclass(frozen=True)
class SyntheticSources:
    """The factory of shared synthetic sources, rooted in the run's shared folder."""

    root: Path

    def source(
        self, dataset: str, stays: int | None, seed: int, *, concepts: bool = False
    ) -> Source:
        """The shared source (read it only), built on first use."""
        key = SourceKey(dataset, stays, seed, concepts)
        home = self._home(key)
        with locked(self.root / f"{key.name}.lock"):
            if not (self.root / key.name / DONE).exists():
                self._build(key, home)
                (self.root / key.name / DONE).write_text("", encoding="utf-8")
        return load_source(home, key.name)

    def copy(
        self,
        home: DataHome,
        name: str,
        dataset: str,
        stays: int | None,
        seed: int,
        *,
        concepts: bool = False,
    ) -> Source:
        """A private copy of the shared source, named ``name`` in ``home``."""
        return copy_source(self.source(dataset, stays, seed, concepts=concepts), home, name)

    def _home(self, key: SourceKey) -> DataHome:
        return DataHome(self.root / key.name / "home")

    def _build(self, key: SourceKey, home: DataHome) -> None:
        if key.concepts:
            plain = self.source(key.dataset, key.stays, key.seed)
            build_concepts(copy_source(plain, home, key.name), jobs=2, progress=False)
        elif key.dataset == "mimic-iv":
            synthesize_mimic_iv(
                home, key.name, stays=key.stays, seed=key.seed, force=True, progress=False
            )
        else:
            synthesize_eicu(
                home, key.name, stays=key.stays, seed=key.seed, force=True, progress=False
            )


def copy_source(source: Source, home: DataHome, name: str) -> Source:
    """Copy ``source``'s folder (data, catalog, built concepts) into ``home`` as ``name``.

    Files are copied, not linked: a test may damage its copy without touching the shared
    source. The catalog names its files relative to the folder, so it reads the copy."""
    target = home.source_dir(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source.layout.root, target, ignore=shutil.ignore_patterns("*.lock"))
    renamed = source.manifest.model_copy(update={"name": name})
    write_model(target / source.layout.manifest_path.name, renamed)
    return load_source(home, name)
