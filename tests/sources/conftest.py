"""Fixtures: a data home and small CSV trees for the ingest tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from csv_trees import EICU_ROWS, MIMIC_ROWS, write_tree

from m4bench.home import DataHome
from m4bench.sources.schema import EICU, MIMIC_IV


@pytest.fixture
def home(tmp_path: Path) -> DataHome:
    return DataHome(tmp_path / "home")


@pytest.fixture
def mimic_tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "mimic-iv-demo", MIMIC_IV, MIMIC_ROWS)


@pytest.fixture
def eicu_tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "eicu-demo", EICU, EICU_ROWS, gz=False)
