"""Shared by the integration tests: one small provisioned MIMIC-IV home per session."""

from __future__ import annotations

import pytest

SOURCE = "synthetic-mimic-iv"
TASK = "mimic-meld-24h"
RAW_TASK = "mimic-meld-24h-raw"
"""The raw variant: its database has no derived tables, so its oracle builds them."""
MUTANT = "creatinine-not-capped"
"""A mutant of the task that moves its scores on the small source below."""

# every test of the shared home runs in one xdist worker, so it is built once
HOME_GROUP = pytest.mark.xdist_group("integrations-home")
