"""How a truth column's DuckDB type decides the casting and comparison of agent text.

Each function returns a SQL expression; column and table names come in already
quoted (see :func:`m4bench.sql.quote_ident`, re-exported here for the scoring modules).
The agent side is always VARCHAR text.
"""

from __future__ import annotations

import re

from m4bench.scoring.model import Comparison
from m4bench.scoring.options import EXTENDED_NULL_TOKENS, NullRule
from m4bench.sql import quote_ident as quote_ident
from m4bench.sql import quote_literal as quote_literal
from m4bench.tasks.evaluation import ColumnTolerance

_EXACT_NUMBER = re.compile(r"^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|DECIMAL\(\d+,\d+\))$")
_FLOAT = {"FLOAT", "DOUBLE", "REAL"}
_TEMPORAL = re.compile(r"^(DATE|TIMESTAMP(_S|_MS|_NS)?|TIMESTAMP WITH TIME ZONE)$")

# A difference that equals the tolerance must match even when the subtraction of two
# doubles lands one unit in the last place above it (1.1 - 1.0 > 0.1 in binary).
_BOUNDARY_SLACK = 1e-9


def comparison_for(sql_type: str) -> Comparison:
    """The comparison family of a DuckDB type name (``DESCRIBE`` spelling)."""
    upper = sql_type.upper()
    if _EXACT_NUMBER.match(upper) or upper in _FLOAT:
        return "numeric"
    if _TEMPORAL.match(upper):
        return "temporal"
    if upper == "BOOLEAN":
        return "boolean"
    return "text"


def is_exact_number(sql_type: str) -> bool:
    return bool(_EXACT_NUMBER.match(sql_type.upper()))


def agent_cell(raw: str, kind: Comparison, rule: NullRule) -> str:
    """The agent's text after the null rule: NULL for empty cells (and null tokens)."""
    if rule == "empty" or kind == "text":
        return raw
    tokens = ", ".join(quote_literal(token) for token in EXTENDED_NULL_TOKENS)
    return f"CASE WHEN lower(trim({raw})) IN ({tokens}) THEN NULL ELSE {raw} END"


def agent_value(cell: str, kind: Comparison) -> str:
    """The agent cell cast for value comparison (NULL when it does not cast)."""
    if kind == "numeric":
        return f"TRY_CAST({cell} AS DOUBLE)"
    if kind == "temporal":
        return f"TRY_CAST({cell} AS TIMESTAMP)"
    if kind == "boolean":
        return f"TRY_CAST({cell} AS BOOLEAN)"
    return cell


def truth_value(column: str, kind: Comparison) -> str:
    if kind == "numeric":
        return f"CAST({column} AS DOUBLE)"
    if kind == "temporal":
        return f"CAST({column} AS TIMESTAMP)"
    if kind == "boolean":
        return column
    return f"CAST({column} AS VARCHAR)"


def values_agree(truth: str, agent: str, kind: Comparison, tolerance: ColumnTolerance) -> str:
    """True when two non-null typed values agree (NULL-safe: never NULL itself)."""
    return f"coalesce({values_within(truth, agent, kind, tolerance)}, false)"


def values_within(truth: str, agent: str, kind: Comparison, tolerance: ColumnTolerance) -> str:
    """True when two typed values agree; NULL when either is NULL (for ``CASE WHEN``,
    where NULL counts as false and the ``coalesce`` of ``values_agree`` only costs)."""
    if kind == "numeric":
        diff = f"abs({truth} - {agent})"
        scale = f"abs({truth})"
    elif kind == "temporal":
        diff = f"abs(epoch({truth}) - epoch({agent}))"
        scale = f"abs(epoch({truth}))"
    else:
        return f"({truth} = {agent})"
    bound = repr(tolerance.absolute * (1 + _BOUNDARY_SLACK))
    test = f"{diff} <= {bound}"
    if tolerance.relative is not None:
        relative = repr(tolerance.relative * (1 + _BOUNDARY_SLACK))
        test = f"({test} OR {diff} <= {relative} * {scale})"
    return f"({test})"


def agent_key(cell: str, kind: Comparison, sql_type: str) -> str:
    """The agent's key cell in the join type, NULL when it does not cast exactly.

    Integer and decimal keys accept ``7`` and ``7.0`` but not ``7.5`` (which DuckDB's
    own cast would round to 8).
    """
    if kind == "numeric" and is_exact_number(sql_type):
        exact = f"TRY_CAST({cell} AS {sql_type})"
        return f"CASE WHEN TRY_CAST({cell} AS DOUBLE) = CAST({exact} AS DOUBLE) THEN {exact} END"
    return agent_value(cell, kind)


def truth_key(column: str, kind: Comparison, sql_type: str) -> str:
    if kind == "numeric" and is_exact_number(sql_type):
        return column
    return truth_value(column, kind)
