"""The scorer: an agent's CSV against a typed ground truth, under an evaluation spec.

``score_output`` is the entry point; it returns a ``Score`` for any output and raises
only when the ground truth itself is unusable.
"""

from m4bench.scoring.engine import Scorer, score_output
from m4bench.scoring.model import (
    SCORE_FORMAT_VERSION,
    ColumnScore,
    KeyMetrics,
    Mismatch,
    OrderedError,
    Score,
    StrictCheck,
    TieReading,
)
from m4bench.scoring.options import EXTENDED_NULL_TOKENS, NullRule, ScoreOptions

__all__ = [
    "EXTENDED_NULL_TOKENS",
    "SCORE_FORMAT_VERSION",
    "ColumnScore",
    "KeyMetrics",
    "Mismatch",
    "NullRule",
    "OrderedError",
    "Score",
    "ScoreOptions",
    "Scorer",
    "StrictCheck",
    "TieReading",
    "score_output",
]
