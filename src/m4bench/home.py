"""The data home: every generated file lives under one directory.

The directory is ``$M4BENCH_HOME`` when set, else ``~/.m4bench``. Nothing is ever
written inside the installed package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HOME_ENV = "M4BENCH_HOME"
DEFAULT_HOME = Path("~/.m4bench")


@dataclass(frozen=True)
class DataHome:
    """Paths of the data home. Pure path arithmetic; creates nothing."""

    root: Path

    @classmethod
    def from_env(cls, override: Path | None = None) -> DataHome:
        """The home chosen by ``override``, else ``$M4BENCH_HOME``, else the default."""
        if override is not None:
            return cls(override.expanduser().resolve())
        env = os.environ.get(HOME_ENV)
        root = Path(env) if env else DEFAULT_HOME
        return cls(root.expanduser().resolve())

    @property
    def sources(self) -> Path:
        return self.root / "sources"

    def source_dir(self, name: str) -> Path:
        return self.sources / name

    @property
    def tasks(self) -> Path:
        """Per-source provisioned task material (agent catalogs, ground truth)."""
        return self.root / "tasks"

    @property
    def results(self) -> Path:
        return self.root / "results"
