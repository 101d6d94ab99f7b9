"""Settings of one analysis: which conditions to compare, resampling reps and seed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from m4bench.analysis.bootstrap import DEFAULT_PERMUTATION_REPS, DEFAULT_REPS, DEFAULT_SEED


class AnalysisSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    baseline: str = "no-skill"
    treatment: str = "with-skill"
    operational_spec: str = "operational-spec"
    native_schema: str = "native"
    reps: int = Field(DEFAULT_REPS, ge=100)
    permutation_reps: int = Field(DEFAULT_PERMUTATION_REPS, ge=100)
    seed: int = DEFAULT_SEED
    include_unpublishable: bool = False
    use_catalog: bool = True
    """Read task family, mode and depth from the task catalog when it lists the task."""
    gains_shown: int = 10
    declines_shown: int = 8
    worst_key_cells: int = 5
