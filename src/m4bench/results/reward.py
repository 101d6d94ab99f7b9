"""The reward rule: one place decides what a run scores, whatever happened to it.

* A run whose output was scored gets the score's reward, **whatever its status**: an
  agent killed at its timeout, or exiting nonzero, after writing a complete
  ``output.csv`` gets that output's score. The status stays beside the reward in the
  record, so nothing is hidden, and publishability (isolation, canary, egress, lint)
  decides separately whether the run may count at all.
* A run without a scored output (no ``output.csv``, a sandbox violation before the
  agent started) gets 0.
* A run that did not happen (``harness_error``, ``interrupted``, or an infrastructure
  outcome such as ``rate_limited`` or ``auth_error``: the model provider failed, not the
  model) has no reward: it is not complete, a campaign runs it again, and the analysis
  counts it as a missing reward rather than as a zero. The runner does not score the
  output of a run the provider ended, even one written before the provider failed.

The runner writes :func:`reward_for` into every record; readers take a record's reward
through :func:`counted_reward`, and never recompute it. (The paper's own harness gave
any failed run 0 without scoring its output; its released runs keep their rewards as
released.)
"""

from __future__ import annotations

from m4bench.results.record import ResultRecord
from m4bench.scoring import Score


def reward_for(score: Score | None) -> float:
    """The reward of a run whose output was scored (``score``) or not (None)."""
    return score.reward if score is not None else 0.0


def counted_reward(record: ResultRecord) -> float | None:
    """The reward a reader counts for ``record``: None when the run did not happen."""
    return record.reward if record.complete else None
