"""MIMIC-IV v3.1: every table of ``mimiciv_hosp`` and ``mimiciv_icu``.

Column names and order are the official ones. Types follow the official DDL with two
changes: ``TIMESTAMP(n)`` is ``TIMESTAMP`` and every floating column (``FLOAT``,
``REAL``, ``DOUBLE PRECISION``) is ``DOUBLE``, so equality on charted values behaves
like the reference databases. ``CHAR``/``VARCHAR(n)``/``TEXT`` are ``VARCHAR``.
"""

from __future__ import annotations

from m4bench.sources.schema.base import DatasetSchema
from m4bench.sources.schema.mimic_iv_hosp import HOSP, HOSP_TABLES
from m4bench.sources.schema.mimic_iv_icu import ICU, ICU_TABLES

__all__ = ["HOSP", "ICU", "MIMIC_IV"]

MIMIC_IV = DatasetSchema(dataset="mimic-iv", version="3.1", tables=HOSP_TABLES + ICU_TABLES)
