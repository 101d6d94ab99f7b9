from __future__ import annotations

from pathlib import Path

import pytest
from campaign_support import write_small_profile

from m4bench.campaign import TaskFacts


@pytest.fixture
def small_profile(tmp_path: Path) -> Path:
    return write_small_profile(tmp_path)


@pytest.fixture
def facts() -> list[TaskFacts]:
    """A hand-made catalog: family, mode, database, sentinel, dependency depth."""
    return [
        TaskFacts("mimic-alpha", "alpha", "standard", "mimic-iv", False, 1),
        TaskFacts("mimic-alpha-raw", "alpha", "raw", "mimic-iv", True, 3),
        TaskFacts("mimic-beta-raw", "beta", "raw", "mimic-iv", False, 4),
        TaskFacts("eicu-gamma", "gamma", "raw", "eicu", False, 1),
        TaskFacts("mimic-delta", "delta", "standard", "mimic-iv", True, 2),
    ]
