"""eICU-CRD v2.0: every table, in schema ``eicu_crd``.

Column names and order are the official ones. Types follow the official DDL except:
``NUMERIC(p,s)`` and ``REAL`` are ``DOUBLE``, the ``*time24`` clock columns stay
``VARCHAR`` ('12:45:00'), and ``patient.age`` is ``VARCHAR`` (it holds '> 89').
All times are integer minute offsets from unit admission.
"""

from __future__ import annotations

from m4bench.sources.schema.base import DatasetSchema
from m4bench.sources.schema.eicu_admission import ADMISSION_TABLES, EICU_SCHEMA
from m4bench.sources.schema.eicu_charting import CHARTING_TABLES

__all__ = ["EICU", "EICU_SCHEMA"]

EICU = DatasetSchema(dataset="eicu", version="2.0", tables=ADMISSION_TABLES + CHARTING_TABLES)
