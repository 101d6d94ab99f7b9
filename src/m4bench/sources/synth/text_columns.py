"""Text columns built in Arrow: millions of strings without a Python object per row.

A vocabulary is an Arrow string array and a column is ``vocabulary.take(indices)``;
identifiers such as '<subject_id>-<seq>' are joined by Arrow compute kernels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def vocab(values: Sequence[str]) -> pa.Array:
    return pa.array(list(values), type=pa.string())


def pick(
    values: pa.Array | Sequence[str], index: np.ndarray, null: np.ndarray | None = None
) -> pa.Array:
    """``values[index]`` as an Arrow column; NULL where ``null`` holds."""
    table = values if isinstance(values, pa.Array) else vocab(values)
    positions = pa.array(np.asarray(index, dtype=np.int64), mask=null)
    return table.take(positions)


def weighted(rng: np.random.Generator, shares: Sequence[tuple[str, float]], n: int) -> np.ndarray:
    """``n`` indices into ``shares`` drawn with the given (normalised) weights."""
    p = np.array([share for _, share in shares], dtype=float)
    return rng.choice(len(shares), size=n, p=p / p.sum())


def names(shares: Sequence[tuple[str, float]]) -> pa.Array:
    return vocab([name for name, _ in shares])


def dash_ids(left: np.ndarray, right: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """'<left>-<right>' per row (e.g. '<subject_id>-<seq>'); NULL where ``null`` holds."""
    a = pa.array(np.asarray(left, dtype=np.int64), mask=null).cast(pa.string())
    b = pa.array(np.asarray(right, dtype=np.int64)).cast(pa.string())
    joined: pa.Array = pc.binary_join_element_wise(a, b, "-")
    return joined


def number_text(values: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """Numbers as text without a trailing '.0' ('2', '0.5'), NULL where ``null`` holds."""
    rounded = np.round(np.asarray(values, dtype=float), 3)
    whole = np.equal(np.mod(rounded, 1), 0)
    as_int = pa.array(rounded.astype(np.int64)).cast(pa.string())
    as_float = pa.array(rounded).cast(pa.string())
    text: pa.Array = pc.if_else(pa.array(whole), as_int, as_float)
    if null is not None:
        text = pc.if_else(pa.array(null), pa.scalar(None, pa.string()), text)
    return text
