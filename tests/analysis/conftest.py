from __future__ import annotations

import pytest

from m4bench.analysis import AnalysisResult, AnalysisSettings, analyze_runs, load_source


@pytest.fixture(scope="session")
def paper() -> AnalysisResult:
    """The paper's released Codex runs, analysed with the paper's 20,000 replicates."""
    runs, label = load_source("paper-release-v1")
    return analyze_runs(runs, AnalysisSettings(permutation_reps=20_000), label)
