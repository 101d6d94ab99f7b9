"""Inspect eval logs of m4bench tasks as the analysis' run rows.

``m4bench analyze LOG`` (an ``.eval`` or JSON log, or a folder of them) reads every sample
that m4bench's scorer scored (:mod:`m4bench.integrations.inspect_tasks`) and makes it one
:class:`~m4bench.analysis.runs.RunRow`:

* identity: task, condition and schema from the score's metadata; model from the log
  (``mockllm/model``, ``openai/gpt-5.4-mini``, ...); agent ``inspect:<solver>``; the
  epoch is the trial;
* score: the reward and the summary's checks, key metrics and nMAE, as a result
  record's score counts them;
* a sample that ended in an error did not happen, as a ``harness_error`` run did not:
  its reward is missing, not 0. A sample that hit a limit (time, messages, tokens) is
  scored like a native run killed at its timeout;
* usage: Inspect's input tokens plus its cache reads and writes (its documented total),
  cache reads, output tokens and cost, summed over models; elapsed time is the
  sample's total time;
* a run is publishable only when it ran in a sandbox m4bench counts as isolating and
  did not fail. The ``local`` sandbox isolates nothing, so its runs are analysed with
  ``--include-unpublishable``.

Samples of other scorers (other benchmarks in the same folder) are skipped. Reading needs
``inspect_ai`` (``pip install 'm4bench[inspect]'``); it is imported only here.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from m4bench.analysis.runs import RunRow
from m4bench.errors import M4BenchError
from m4bench.integrations.score_summary import IDENTITY_KEY, SUMMARY_KEY, ScoreSummary

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

EVAL_SUFFIX = ".eval"
JSON_SUFFIX = ".json"
RESULT_FILE = "result.json"
"""An m4bench run's record: a folder holding any is a results folder, not a log folder."""
_EXCLUDED = {"messages", "events", "attachments", "store"}
_INSTALL_HINT = "install the Inspect extra: pip install 'm4bench[inspect]'"


def is_eval_log(path: Path) -> bool:
    """Whether ``path`` is an Inspect eval log: an ``.eval`` archive, or a JSON log (an
    object with ``eval`` and ``version``)."""
    if not path.is_file():
        return False
    if path.suffix == EVAL_SUFFIX:
        return zipfile.is_zipfile(path)
    if path.suffix != JSON_SUFFIX:
        return False
    try:
        with path.open("rb") as stream:
            head = stream.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return False
    return head.lstrip().startswith("{") and '"eval"' in head and '"version"' in head


def eval_log_files(path: Path) -> list[Path]:
    """``path`` when it is an eval log, else every eval log below the folder ``path``
    (any depth, sorted)."""
    if path.is_file():
        return [path] if is_eval_log(path) else []
    if not path.is_dir():
        return []
    found = [*path.rglob(f"*{EVAL_SUFFIX}"), *path.rglob(f"*{JSON_SUFFIX}")]
    return sorted(file for file in found if is_eval_log(file))


def holds_eval_logs(path: Path) -> bool:
    """Whether ``m4bench analyze`` should read ``path`` as Inspect eval logs: an eval log,
    or a folder holding eval logs and no m4bench result records."""
    if path.is_dir() and next(path.rglob(RESULT_FILE), None) is not None:
        return False
    return bool(eval_log_files(path))


def load_inspect_logs(path: Path) -> list[RunRow]:
    """The run rows of every m4bench sample in the eval log(s) at ``path``."""
    files = eval_log_files(path)
    if not files:
        raise M4BenchError(f"{path}: no Inspect eval log", hint="pass an .eval or .json log")
    rows = [row for file in files for row in _rows_of(_read(file), file)]
    if not rows:
        raise M4BenchError(
            f"{path}: no sample scored by m4bench's scorer",
            hint="run the m4bench/<task> Inspect tasks (docs/integrations.md)",
        )
    return rows


def _read(file: Path) -> EvalLog:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise M4BenchError(
            f"{file}: reading Inspect logs needs inspect_ai", hint=_INSTALL_HINT
        ) from exc
    try:
        return read_eval_log(str(file), exclude_fields=_EXCLUDED)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
        raise M4BenchError(
            f"{file}: not a readable Inspect eval log ({exc})",
            hint="remove the damaged log or run the evaluation again",
        ) from exc


def _rows_of(log: EvalLog, file: Path) -> Iterator[RunRow]:
    agent = "inspect:" + "+".join(step.solver for step in log.plan.steps) if log.plan else "inspect"
    for sample in log.samples or []:
        found = _m4bench_score(sample)
        if found is None:
            continue
        metadata, value = found
        try:
            yield _row(log, sample, metadata, value, agent)
        except (ValidationError, ValueError, TypeError) as exc:
            raise M4BenchError(
                f"{file}: sample {sample.id} epoch {sample.epoch}: m4bench score "
                f"metadata is malformed ({exc})",
                hint="the log was not written by m4bench's Inspect scorer",
            ) from exc


def _m4bench_score(sample: EvalSample) -> tuple[dict[str, Any], Any] | None:
    """The metadata and value of the sample's m4bench score, if it has one."""
    for score in (sample.scores or {}).values():
        metadata = score.metadata or {}
        if IDENTITY_KEY in metadata and SUMMARY_KEY in metadata:
            return metadata, score.value
    return None


def _row(
    log: EvalLog, sample: EvalSample, metadata: dict[str, Any], value: Any, agent: str
) -> RunRow:
    identity = metadata[IDENTITY_KEY]
    summary = ScoreSummary.model_validate(metadata[SUMMARY_KEY])
    failed = sample.error is not None
    isolated = bool(identity["isolated"])
    return RunRow(
        run_id=f"inspect-{log.eval.eval_id}.{sample.id}.e{sample.epoch}",
        task=str(identity["task"]),
        condition=str(identity["condition"]),
        schema_name=str(identity["schema_name"]),
        model=log.eval.model,
        agent=agent,
        trial=sample.epoch,
        reward=None if failed else float(value),
        publishable=isolated and not failed,
        isolated=isolated,
        failure_reason=_failure(sample),
        elapsed_seconds=sample.total_time,
        truth_sha256=identity.get("truth_sha256"),
        **_usage(sample),
        **({} if failed else summary.run_fields()),
    )


def _failure(sample: EvalSample) -> str | None:
    if sample.error is not None:
        return f"error: {sample.error.message.splitlines()[0] if sample.error.message else ''}"
    if sample.limit is not None:
        return f"limit: {sample.limit.type}"
    return None


def _usage(sample: EvalSample) -> dict[str, Any]:
    usages = list(sample.model_usage.values())
    if not usages:
        return {}
    read = sum(usage.input_tokens_cache_read or 0 for usage in usages)
    write = sum(usage.input_tokens_cache_write or 0 for usage in usages)
    costs = [usage.total_cost for usage in usages if usage.total_cost is not None]
    return {
        "input_tokens": sum(usage.input_tokens for usage in usages) + read + write,
        "cached_input_tokens": read,
        "output_tokens": sum(usage.output_tokens for usage in usages),
        "cost_usd": sum(costs) if costs else None,
    }
