"""Analysis: paired task-balanced deltas, bootstrap intervals, tables, figures, report.

Reads released runs CSVs, result records or Inspect logs, one input or several; every
agent is analysed apart. See ``docs/analysis.md``.
"""

from m4bench.analysis.api import (
    ANALYSIS_STEPS,
    PAPER_RELEASE_V1,
    HeadlineDocument,
    analyze,
    headline_document,
    load_input,
    load_inputs,
    load_source,
    paper_release_csv,
    write_outputs,
)
from m4bench.analysis.estimands import Comparison, Estimate, TaskDelta
from m4bench.analysis.group import GroupResult
from m4bench.analysis.pipeline import AnalysisResult, LoadedInput, analyze_inputs, analyze_runs
from m4bench.analysis.runs import RunRow
from m4bench.analysis.settings import AnalysisSettings

__all__ = [
    "ANALYSIS_STEPS",
    "PAPER_RELEASE_V1",
    "AnalysisResult",
    "AnalysisSettings",
    "Comparison",
    "Estimate",
    "GroupResult",
    "HeadlineDocument",
    "LoadedInput",
    "RunRow",
    "TaskDelta",
    "analyze",
    "analyze_inputs",
    "analyze_runs",
    "headline_document",
    "load_input",
    "load_inputs",
    "load_source",
    "paper_release_csv",
    "write_outputs",
]
