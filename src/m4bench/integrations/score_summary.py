"""An m4bench ``Score`` reduced to the numbers other frameworks carry.

Inspect keeps it as a score's metadata, Harbor as the verifier's ``reward.json`` (a flat
``{name: number}`` map); the Inspect log reader turns it back into the fields of a run
row, counted as :func:`m4bench.results.rows.row_of` counts a result record's score.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from m4bench.scoring import Score

MATCH_RATE_PREFIX = "match_rate."
IDENTITY_KEY = "m4bench"
"""Key of the run's identity in an Inspect score's metadata."""
SUMMARY_KEY = "summary"
"""Key of the :class:`ScoreSummary` in an Inspect score's metadata."""


class ScoreSummary(BaseModel):
    """The reward, strict pass, per-column match rates, key metrics and nMAE of a score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reward: float
    strict_pass: bool
    match_rates: dict[str, float]
    key_f1: float
    key_precision: float
    key_recall: float
    truth_rows: int
    agent_unique_keys: int
    extra_keys: int
    ordered_nmae: float | None
    """The paper's nMAE over matched rows (None: no ordered column or no matched row)."""
    ordered_columns: int
    checks_passed: int
    checks_failed: int
    failure: str | None
    """Why the output was not compared at all (``output_missing``, ...), else None."""

    @classmethod
    def of(cls, score: Score) -> ScoreSummary:
        keys = score.keys
        return cls(
            reward=score.reward,
            strict_pass=score.strict_pass,
            match_rates=score.match_rates(),
            key_f1=keys.f1,
            key_precision=keys.precision,
            key_recall=keys.recall,
            truth_rows=keys.truth_rows,
            agent_unique_keys=keys.agent_unique_keys,
            extra_keys=keys.extra_keys,
            ordered_nmae=score.ordered_error.nmae_matched_rows,
            ordered_columns=len(score.ordered_error.columns),
            checks_passed=sum(check.passed for check in score.checks),
            checks_failed=sum(not check.passed for check in score.checks),
            failure=score.failure,
        )

    def rewards(self) -> dict[str, float]:
        """A flat ``{name: number}`` map: ``reward``, strict pass (1 or 0), key F1, nMAE
        when there is one, and ``match_rate.<column>`` per scored column."""
        flat = {
            "reward": self.reward,
            "strict_pass": 1.0 if self.strict_pass else 0.0,
            "key_f1": self.key_f1,
        }
        if self.ordered_nmae is not None:
            flat["ordered_nmae"] = self.ordered_nmae
        for column, rate in self.match_rates.items():
            flat[MATCH_RATE_PREFIX + column] = rate
        return flat

    def run_fields(self) -> dict[str, object]:
        """The run-row fields a scored output fills (its failures are failed checks)."""
        return {
            "passed": self.checks_passed,
            "failed": self.checks_failed,
            "errors": 0,
            "total_tests": self.checks_passed + self.checks_failed,
            "key_f1": self.key_f1,
            "key_precision": self.key_precision,
            "key_recall": self.key_recall,
            "extra_keys": self.extra_keys,
            "agent_unique_keys": self.agent_unique_keys,
            "truth_rows": self.truth_rows,
            "ordered_value_nmae": self.ordered_nmae,
            "ordered_value_columns": self.ordered_columns,
        }
