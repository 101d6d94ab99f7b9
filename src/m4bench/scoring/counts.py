"""Every per-column count of one output, from one full join grouped on bit words.

Each row of the full join of truth and ``agent_first`` is reduced to a few BIGINT
words: bit ``i`` of ``ag`` is set when compared column ``i`` agrees within tolerance,
of ``tz`` / ``az`` when the truth / agent value is null (both left out for a truth
column its Parquet footer shows without nulls), and the agent's own
uncastable-cell words ``w0..`` come along unchanged. Rows with the same words form one
group (a few thousand for a typical output), carrying its row count and the summed
scaled errors of the ordered columns; a second, small aggregate over the groups gives
every column's matched and uncastable counts and error sum. Evaluating the rules once
per group instead of once per row is what makes this cheaper than one aggregate with
a filter per count.

Scaled errors are summed as integers, in units of 2^-52, so a sum does not depend on
the order in which threads add their parts: the same output always gets the same nMAE.

The join's hash table holds one side's keys and values. When that would take more than
half the memory limit, the join runs in several passes and the counts of the passes
are added: memory stays bounded for a little more time. Each pass takes one range of
the first key column, cut at the truth's quantiles: a filter on a plain column is
applied inside the Parquet scans, and a truth sorted by its keys (every ground truth)
is read only in its pass's row groups. When the first key column has too few distinct
values to cut, each pass takes the keys whose hash falls in one part instead. Both
sides are cut by the same typed key, so equal keys always meet in the same pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from m4bench.scoring.agent_table import FIRST_TABLE, AgentLayout, flag_test
from m4bench.scoring.cells import join_condition
from m4bench.scoring.sqltypes import truth_key, truth_value, values_within
from m4bench.scoring.truth import TRUTH_ROW, TRUTH_VIEW, TruthTable
from m4bench.sql import quote_literal
from m4bench.tasks.evaluation import EvaluationSpec

# One unit of a summed scaled error: errors lie in [0, 1], so 2^52 units keep every
# bit a double has there, and four million of them still fit a HUGEINT many times over.
ERROR_UNIT = 2**52
_WORD_BITS = 62
_JOINED = "in_truth AND has_agent"


@dataclass(frozen=True)
class Totals:
    """``joined`` = truth rows whose key the output has (first output row per key)."""

    truth_rows: int
    joined: int
    matched: dict[str, int]
    uncastable: dict[str, int]
    error_sums: dict[str, float]
    extra_rows: list[int]


@dataclass(frozen=True)
class KeyParts:
    """How the join is cut into ``count`` passes: ranges of the first key column between
    ``bounds`` (SQL constants, ascending, ``count - 1`` of them), or, with no bounds,
    parts of the key hash."""

    count: int
    bounds: tuple[str, ...] = ()

    def condition(self, index: int, first_key: str, all_keys: str) -> str:
        """SQL true for the rows of pass ``index``; NULL first keys go to pass 0."""
        if not self.bounds:
            return f"hash({all_keys}) % {self.count} = {index}"
        parts = []
        if index > 0:
            parts.append(f"{first_key} >= {self.bounds[index - 1]}")
        if index < self.count - 1:
            below = f"{first_key} < {self.bounds[index]}"
            parts.append(f"({below} OR {first_key} IS NULL)" if index == 0 else below)
        return " AND ".join(parts)


def key_parts(
    con: duckdb.DuckDBPyConnection, spec: EvaluationSpec, truth: TruthTable, passes: int
) -> KeyParts:
    """Cut points at the truth's quantiles of the first key, or hash parts when two
    would be equal or one is the lowest key (a first key with few distinct values)."""
    if passes == 1:
        return KeyParts(1)
    first = truth.columns[spec.key_columns[0]]
    key = truth_key(f"t.{first.ident}", first.kind, first.sql_type)
    fractions = ", ".join(repr(index / passes) for index in range(1, passes))
    row = con.execute(
        f"SELECT CAST(min(k) AS VARCHAR), CAST(quantile_disc(k, [{fractions}]) AS VARCHAR[]), "
        f"typeof(any_value(k)) FROM (SELECT {key} AS k FROM {TRUTH_VIEW} t WHERE {key} IS NOT NULL)"
    ).fetchone()
    assert row is not None
    lowest, cuts, sql_type = row
    # Every part must start above the last: a cut at the lowest key leaves a part empty.
    if not cuts or None in cuts or len({lowest, *cuts}) <= len(cuts):
        return KeyParts(passes)
    return KeyParts(passes, tuple(f"CAST({quote_literal(cut)} AS {sql_type})" for cut in cuts))


@dataclass(frozen=True)
class _Column:
    name: str
    bit: int
    agent_index: int

    @property
    def word(self) -> int:
        return self.bit // _WORD_BITS

    @property
    def mask(self) -> int:
        return 1 << (self.bit % _WORD_BITS)

    def test(self, word: str) -> str:
        """SQL true when this column's bit is set in word family ``word``."""
        return f"(({word}{self.word} & {self.mask}) <> 0)"

    def flag(self) -> str:
        """SQL true when the agent's cell did not cast (the agent's own flag words)."""
        return flag_test("", self.agent_index)


def join_passes(rows: int, layout: AgentLayout, memory_limit_mb: int) -> int:
    """How many passes keep the join's hash table of ``rows`` rows under half the limit.

    A row of the table costs 8 bytes per key and value, up to 8 per flag word, 4 for
    its row number and about 32 of hash, pointer and validity (see ``agent_first``).
    """
    fields = layout.key_count + len(layout.values) + len(layout.flag_words)
    width = 8 * fields + 4 + 32
    budget = memory_limit_mb * 1024**2 // 2
    return max(1, -(-rows * width // budget))


def count_rows(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
    passes: int = 1,
) -> Totals:
    """All counts of the full join, in ``passes`` passes over parts of the keys;
    ``extra_rows``: output rows of the first extra keys."""
    names = list(dict.fromkeys([*spec.scored_columns, *truth.ordered]))
    compared = [
        _Column(name, bit, layout.values[name])
        for bit, name in enumerate(name for name in names if name in layout.values)
    ]
    select = [
        "coalesce(sum(n) FILTER (WHERE in_truth), 0)",
        f"coalesce(sum(n) FILTER (WHERE {_JOINED}), 0)",
    ]
    scored = [column for column in compared if column.name in spec.scored_columns]
    for column in scored:
        both_null = f"({column.test('tz')} AND {column.test('az')} AND NOT {column.flag()})"
        select.append(
            f"coalesce(sum(n) FILTER (WHERE {_JOINED} AND ({column.test('ag')} OR {both_null})), 0)"
        )
        select.append(f"coalesce(sum(n) FILTER (WHERE {_JOINED} AND {column.flag()}), 0)")
    ordered = [column for column in compared if column.name in truth.ordered]
    for column in ordered:
        select.append(_error_total(column))
    select.append("flatten(list(extra) FILTER (WHERE NOT in_truth))" if sample_size else "NULL")
    values = [0] * (len(select) - 1)
    extras: list[int] = []
    parts = key_parts(con, spec, truth, passes)
    for part in range(passes):
        groups = _grouped_sql(spec, truth, layout, compared, sample_size, (part, parts))
        row = con.execute(f"SELECT {', '.join(select)} FROM ({groups})").fetchone()
        assert row is not None
        *found, extra = row
        values = [total + int(value) for total, value in zip(values, found, strict=True)]
        extras.extend(int(rn) for rn in extra or [])
    extra_rows = sorted(extras)[:sample_size]
    truth_rows, joined = int(values[0]), int(values[1])
    counts = iter(values[2:])
    matched, uncastable = {}, {}
    for column in scored:
        matched[column.name], uncastable[column.name] = int(next(counts)), int(next(counts))
    errors = {column.name: int(next(counts)) / ERROR_UNIT for column in ordered}
    return Totals(truth_rows, joined, matched, uncastable, errors, extra_rows)


def _error_total(column: _Column) -> str:
    """Summed scaled error over joined rows: 0 both null, 1 one null, else the scaled
    difference (the group's summed units; rows with a null in the column add nothing)."""
    truth_null, agent_null = column.test("tz"), column.test("az")
    return (
        f"coalesce(sum(CASE WHEN NOT {truth_null} AND NOT {agent_null} THEN e{column.bit} "
        f"WHEN {truth_null} <> {agent_null} THEN CAST(n AS HUGEINT) * {ERROR_UNIT} ELSE 0 END) "
        f"FILTER (WHERE {_JOINED}), 0)"
    )


def _grouped_sql(
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    compared: list[_Column],
    sample_size: int,
    part: tuple[int, KeyParts],
) -> str:
    """The full join of one part of the keys, one row per distinct combination of words."""
    words = -(-len(compared) // _WORD_BITS)
    bits: dict[str, list[list[str]]] = {family: [[] for _ in range(words)] for family in "zag"}
    per_row = [f"t.{TRUTH_ROW} IS NOT NULL AS in_truth", "a.rn IS NOT NULL AS has_agent"]
    sums = []
    for column in compared:
        kind = truth.columns[column.name].kind
        tv = truth_value(f"t.{truth.columns[column.name].ident}", kind)
        agent = f"a.v{column.agent_index}"
        # A truth column without nulls needs neither bit: tz is never set, and az is
        # read only with tz (both null), since least() already makes an agent null
        # against a truth value a full error.
        if column.name not in truth.null_free:
            bits["z"][column.word].append(f"CASE WHEN {tv} IS NULL THEN {column.mask} ELSE 0 END")
            bits["a"][column.word].append(
                f"CASE WHEN {agent} IS NULL THEN {column.mask} ELSE 0 END"
            )
        if column.name in spec.scored_columns:
            agree = values_within(tv, agent, kind, spec.tolerance_for(column.name))
            bits["g"][column.word].append(f"CASE WHEN {agree} THEN {column.mask} ELSE 0 END")
        if column.name in truth.ordered:
            # least() skips a NULL argument; such rows are told apart by their null bits.
            scaled = f"least(abs({agent} - {tv}) / {truth.scales[column.name]!r}, 1.0)"
            per_row.append(f"CAST({scaled} * {float(ERROR_UNIT)!r} AS BIGINT) AS d{column.bit}")
            sums.append(f"sum(d{column.bit}) AS e{column.bit}")
    for family, prefix in (("g", "ag"), ("z", "tz"), ("a", "az")):
        for word, terms in enumerate(bits[family]):
            per_row.append(f"CAST({' + '.join(terms) or '0'} AS BIGINT) AS {prefix}{word}")
    per_row.extend(f"a.{word}" for word in layout.flag_words)
    per_row.append("a.rn")
    keys = ", ".join(
        ["in_truth", "has_agent"]
        + [f"{prefix}{word}" for prefix in ("ag", "tz", "az") for word in range(words)]
        + layout.flag_words
    )
    if sample_size:
        sums.append(f"min(rn, {sample_size}) FILTER (WHERE NOT in_truth) AS extra")
    return (
        f"SELECT {keys}, count(*) AS n{''.join(', ' + part for part in sums)} FROM ("
        f"SELECT {', '.join(per_row)} FROM {_truth_part(spec, truth, part)} t "
        f"FULL JOIN {_agent_part(layout, part)} a "
        f"ON {join_condition(spec, truth)}) GROUP BY {keys}"
    )


def _truth_part(spec: EvaluationSpec, truth: TruthTable, part: tuple[int, KeyParts]) -> str:
    """The truth rows of pass ``part`` (index, parts)."""
    index, parts = part
    if parts.count == 1:
        return TRUTH_VIEW
    keys = [
        truth_key(f"t.{column.ident}", column.kind, column.sql_type)
        for column in (truth.columns[name] for name in spec.key_columns)
    ]
    condition = parts.condition(index, keys[0], ", ".join(keys))
    return f"(SELECT * FROM {TRUTH_VIEW} t WHERE {condition})"


def _agent_part(layout: AgentLayout, part: tuple[int, KeyParts]) -> str:
    """The output rows of pass ``part``: the same typed values as the truth's side of the
    join condition, so equal keys always land in the same pass."""
    index, parts = part
    if parts.count == 1:
        return FIRST_TABLE
    keys = [f"a.{key}" for key in layout.keys]
    condition = parts.condition(index, keys[0], ", ".join(keys))
    return f"(SELECT * FROM {FIRST_TABLE} a WHERE {condition})"
