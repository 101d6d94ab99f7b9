from __future__ import annotations

import pytest

from m4bench.analysis import AnalysisResult, AnalysisSettings, analyze_runs, load_source


@pytest.fixture(scope="session")
def paper() -> AnalysisResult:
    """The paper's released Codex runs, analysed with the paper's 20,000 replicates.

    Task families come from the built-in table of the paper's tasks, so the paper's
    family counts do not depend on the state of the task catalog.
    """
    runs, label = load_source("paper-release-v1")
    settings = AnalysisSettings(permutation_reps=20_000, use_catalog=False)
    return analyze_runs(runs, settings, label)
