"""Deterministic synthetic sources with the exact MIMIC-IV v3.1 and eICU-CRD v2.0 schemas.

The generators write the same on-disk layout as ingest, so nothing downstream can tell
a synthetic source from a real one except its manifest (kind "synthetic").
"""

from __future__ import annotations

from m4bench.sources.synth.core import GENERATOR_VERSION, QuirkRates
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv

__all__ = ["GENERATOR_VERSION", "QuirkRates", "synthesize_mimic_iv"]
