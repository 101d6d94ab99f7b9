"""Folders of runs for the viewer's tests: records built by hand, with the artifacts a
run keeps (instruction, trajectory, output, diff) written beside them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
from result_records import record, score

from m4bench.fileio import sha256_file, write_model
from m4bench.results import ResultRecord, RunSpec
from m4bench.results.record import Artifact
from m4bench.sql import quote_literal

TRUTH_VALUE = "918273.5"
"""A truth value no agent wrote: it must never reach a page built without truth."""
TRUTH_KEY = "77001122"
"""The key of a truth row the agent did not produce."""

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def pages_of(out: Path) -> dict[str, str]:
    """Every page of a view, by its path in the view."""
    return {
        p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*.html")
    }


def hostile_run(root: Path) -> ResultRecord:
    """A run whose every text (instruction, messages, query, output, agent name) holds markup."""
    steps = [
        {"source": "user", "message": f"instruction {HOSTILE}"},
        {
            "source": "agent",
            "message": f"I will run {HOSTILE}",
            "reasoning_content": f"think {HOSTILE}",
            "tool_calls": [
                {
                    "tool_call_id": "c1",
                    "function_name": "run_sql",
                    "arguments": {"query": f"SELECT '{HOSTILE}' AS x"},
                }
            ],
            "observation": {"results": [{"source_call_id": "c1", "content": f"x\n{HOSTILE}"}]},
        },
    ]
    made = record(spec(agent='evil"><script>alert(2)</script>'), scored=score(1.0))
    files = {"trajectory.json": trajectory(steps), "instruction.md": f"Task {HOSTILE}",
             "output.csv": f"stay_id,meld\n1,{HOSTILE}\n"}  # fmt: skip
    return write_run(root, made, files)


def spec(task: str = "mimic-meld-24h", agent: str = "oracle", **fields: Any) -> RunSpec:
    return RunSpec.model_validate({"task": task, "agent": agent, **fields})


def column(name: str, *, mismatched: int, sample: list[dict[str, Any]]) -> dict[str, Any]:
    """A scored column of 10 truth rows with ``mismatched`` disagreements."""
    return {
        "column": name, "truth_type": "DOUBLE", "comparison": "numeric",
        "tolerance": {"absolute": 1.0, "relative": None}, "present": True,
        "matched": 10 - mismatched, "mismatched": mismatched, "missing": 0, "extra": 0,
        "duplicate": 0, "uncastable": 0, "denominator": 10,
        "match_rate": (10 - mismatched) / 10, "passed": mismatched == 0,
        "mismatch_sample": sample,
    }  # fmt: skip


def scored_with_truth() -> Any:
    """A score whose samples hold a truth value and a missing truth key."""
    sample = [{"key": {"stay_id": "30000001"}, "truth": TRUTH_VALUE, "agent": "5.0",
               "reason": "value"}]  # fmt: skip
    base = score(0.9)
    keys = base.keys.model_dump() | {
        "missing_keys": 1,
        "missing_key_sample": [{"stay_id": TRUTH_KEY}],
    }
    return score(0.9, columns=[column("meld", mismatched=1, sample=sample)], keys=keys)


def write_diff(path: Path) -> None:
    """A row-level diff as the scorer writes it: one mismatch, one missing, one extra row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        ("mismatch", 1, "30000001", TRUTH_VALUE, "5.0", False),
        ("missing", None, TRUTH_KEY, "12.0", None, None),
        ("extra", 7, "39999999", None, "3.0", None),
    ]
    with duckdb.connect() as con:
        con.execute(
            "CREATE TABLE d (status VARCHAR, agent_row BIGINT, stay_id VARCHAR, "
            "meld__truth VARCHAR, meld__agent VARCHAR, meld__match BOOLEAN)"
        )
        con.executemany("INSERT INTO d VALUES (?, ?, ?, ?, ?, ?)", rows)
        con.execute(f"COPY d TO {quote_literal(str(path))} (FORMAT parquet)")


def write_run(root: Path, made: ResultRecord, files: dict[str, str | bytes]) -> ResultRecord:
    """``made`` as ``<root>/<run_id>/result.json`` with ``files`` kept under attempt-1."""
    folder = root / made.run_id
    artifacts = {}
    for name, content in files.items():
        path = folder / "attempt-1" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        artifacts[name] = Artifact(
            path=f"attempt-1/{name}", sha256=sha256_file(path), bytes=path.stat().st_size
        )
    final = made.model_copy(update={"artifacts": {**made.artifacts, **artifacts}})
    write_model(folder / "result.json", final)
    return final


def trajectory(steps: list[dict[str, Any]], agent: str = "oracle") -> str:
    """An ATIF document of ``steps`` (dicts in ATIF's fields, numbered here)."""
    numbered = [{"step_id": i, **step} for i, step in enumerate(steps, start=1)]
    document = {
        "schema_version": "ATIF-v1.6",
        "session_id": "s",
        "agent": {"name": agent, "version": "1"},
        "steps": numbered,
    }
    return json.dumps(document)


def run_with_diff(root: Path, **identity: Any) -> ResultRecord:
    """A run whose score and diff hold truth values the agent never wrote."""
    made = record(spec(**identity), scored=scored_with_truth())
    diff = root / "_diff.parquet"
    write_diff(diff)
    run = write_run(root, made, {"diff.parquet": diff.read_bytes(), "instruction.md": "Do it."})
    diff.unlink()
    return run
