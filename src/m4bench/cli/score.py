"""``m4bench score``: score one agent output against a ground truth."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.errors import M4BenchError
from m4bench.fileio import canonical_json
from m4bench.home import DataHome
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.scoring import Score, ScoreOptions, score_output
from m4bench.scoring.diff import diff_target_problem
from m4bench.scoring.options import NullRule, TieRule
from m4bench.scoring.spec_file import load_evaluation_spec
from m4bench.sources.defaults import check_same_dataset, choose_source
from m4bench.sources.layout import load_source
from m4bench.tasks.catalog import Task, load_catalog
from m4bench.tasks.evaluation import EvaluationSpec
from m4bench.wording import counted

# Each ScoreOptions field the command sets: its option, the unit of the option's value,
# and how many of the field's units one of the option's is.
_OPTIONS: dict[str, tuple[str, str, int]] = {
    "memory_limit_mb": ("--memory-limit-mb", "MiB", 1),
    "threads": ("--threads", "threads", 1),
    "time_limit_seconds": ("--time-limit", "seconds", 1),
    "max_output_bytes": ("--max-output-mb", "MiB", 1024**2),
    "mismatch_sample_size": ("--sample-size", "mismatches per column", 1),
}
_BOUND_WORDS = (("gt", "more than"), ("ge", "at least"), ("lt", "less than"), ("le", "at most"))

_DEFAULTS = ScoreOptions()


def _options(
    null_rule: NullRule, given: dict[str, float | None], ties: TieRule = "admit"
) -> ScoreOptions:
    """ScoreOptions from the options given (by field, in the option's unit; None: the
    default); a value out of range (inf and nan included) is a usage error naming its
    option and the range it takes."""
    values: dict[str, object] = {"null_tokens": null_rule, "ties": ties}
    for field, value in given.items():
        if value is not None:
            values[field] = value * _OPTIONS[field][2]
    try:
        return ScoreOptions.model_validate(values)
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else ""
        if field not in _OPTIONS:
            raise typer.BadParameter(str(exc.errors()[0]["msg"]), param_hint=field) from None
        option, unit, _ = _OPTIONS[field]
        raise typer.BadParameter(
            f"{given[field]} is out of range: give {_allowed(field)} {unit}", param_hint=option
        ) from None


def _allowed(field: str) -> str:
    """The bounds ScoreOptions sets on ``field``, in its option's unit: "at least 64
    and at most 1048576"."""
    scale = _OPTIONS[field][2]
    words = [
        f"{word} {_plain(getattr(bound, attr) / scale)}"
        for bound in ScoreOptions.model_fields[field].metadata
        for attr, word in _BOUND_WORDS
        if hasattr(bound, attr)
    ]
    return " and ".join(words)


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def score_command(
    output: Annotated[Path, typer.Option("--output", help="The agent's output CSV.")],
    spec: Annotated[
        Path | None, typer.Option("--spec", help="Evaluation spec: JSON, or a task.toml.")
    ] = None,
    truth: Annotated[
        Path | None, typer.Option("--truth", help="Ground truth: typed Parquet, or CSV(.gz).")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option("--task", help="Take the spec and ground truth of this task (m4bench setup)."),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Source whose ground truth --task reads (default: the dataset's synthetic "
            "one when built, else its only one).",
        ),
    ] = None,
    home: HomeOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the Score as JSON.")] = False,
    null_tokens: Annotated[
        str,
        typer.Option(
            "--null-tokens",
            help="empty: only empty cells are null (the paper's rule); extended: also "
            "NA, NaN, NULL, None in non-text columns.",
        ),
    ] = "empty",
    ties: Annotated[
        str,
        typer.Option(
            "--ties",
            help="admit: a cell equal to an admissible alternative of the truth (another "
            "valid order of a tie the definition leaves open) matches; strict: the truth "
            "alone, as the paper scored.",
        ),
    ] = "admit",
    diff: Annotated[
        Path | None,
        typer.Option("--diff", help="Write the full row-level diff (Parquet) here."),
    ] = None,
    memory_limit_mb: Annotated[
        int | None,
        typer.Option(
            "--memory-limit-mb",
            help=f"DuckDB memory limit; the join runs in passes below it "
            f"(default {_DEFAULTS.memory_limit_mb}).",
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option("--threads", help=f"DuckDB threads (default {_DEFAULTS.threads})."),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time-limit",
            help=f"Seconds before scoring stops with failure time_limit "
            f"(default {_DEFAULTS.time_limit_seconds}).",
        ),
    ] = None,
    max_output_mb: Annotated[
        int | None,
        typer.Option(
            "--max-output-mb",
            help=f"Larger outputs are not read: failure output_too_large "
            f"(default {_DEFAULTS.max_output_bytes // 1024**2}).",
        ),
    ] = None,
    sample_size: Annotated[
        int | None,
        typer.Option(
            "--sample-size",
            help=f"Mismatches kept per column, 0 to 100 "
            f"(default {_DEFAULTS.mismatch_sample_size}).",
        ),
    ] = None,
) -> None:
    """Score an agent's output CSV: match rates, reward, key F1, nMAE, strict checks."""
    options = _options(
        _null_rule(null_tokens),
        {
            "memory_limit_mb": memory_limit_mb,
            "threads": threads,
            "time_limit_seconds": time_limit,
            "max_output_bytes": max_output_mb,
            "mismatch_sample_size": sample_size,
        },
        _tie_rule(ties),
    )
    _check_one_mode(task, source, spec, truth)
    if not output.exists() and not output.is_symlink():
        # A run that wrote nothing is scored 0 by the harness; here it is a typo.
        raise typer.BadParameter(f"{output}: no such file", param_hint="--output")
    spec, truth = _task_inputs(task, source, home, spec, truth)
    if diff is not None:
        labels = ("task's ground truth", "task card") if task else ("--truth", "--spec")
        _check_diff_target(diff, {"--output": output, labels[0]: truth, labels[1]: spec})
    evaluation = _resolve_spec(spec)
    score = score_output(evaluation, truth, output, options=options, diff_path=diff)
    if as_json:
        typer.echo(canonical_json(score.model_dump(mode="json")), nl=False)
    else:
        show_score(score, make_console())


def _check_one_mode(
    task: str | None, source: str | None, spec: Path | None, truth: Path | None
) -> None:
    """--task (and --source) or --spec and --truth: mixed, one pair would be ignored."""
    by_task = [name for name, given in (("--task", task), ("--source", source)) if given]
    by_files = [name for name, given in (("--spec", spec), ("--truth", truth)) if given]
    if by_task and by_files:
        raise M4BenchError(
            f"{' and '.join(by_task)} cannot be combined with {' and '.join(by_files)}: "
            "--task and --source score against the task's own card and ground truth; "
            "--spec and --truth score a file pair",
            hint="drop one pair; to score another truth under a task's spec, pass its "
            "task.toml as --spec",
        )


def _check_diff_target(diff: Path, inputs: dict[str, Path]) -> None:
    """Refuse a --diff that would replace an input or any file but an earlier diff,
    before anything is read or written."""
    problem = diff_target_problem(diff, inputs)
    if problem is not None:
        raise M4BenchError(
            problem,
            hint="give --diff a new path (or an earlier diff to replace), away from "
            "the output, truth and spec; remove the file yourself if it is to go",
        )


def _task_inputs(
    task: str | None,
    source: str | None,
    home: Path | None,
    spec: Path | None,
    truth: Path | None,
) -> tuple[Path, Path]:
    """``--spec``/``--truth`` as given, else the task card and its provisioned ground truth
    (``_check_one_mode`` has made sure only one pair was given)."""
    if task is not None:
        found = load_catalog().task(task)
        return found.card_path, _provisioned_truth(found, source, resolve_home(home))
    if spec is None or truth is None:
        raise typer.BadParameter("give --task, or both --spec and --truth", param_hint="--task")
    return spec, truth


def _provisioned_truth(task: Task, source: str | None, home: DataHome) -> Path:
    """The ground truth `m4bench setup` built for ``task`` on ``source``. An unknown
    source or one of another dataset is named as such, not as a missing file."""
    if source is None:
        return ground_truth_path(home, choose_source(home, task.card.dataset), task)
    dataset = load_source(home, source).manifest.dataset
    check_same_dataset(task.name, task.card.dataset, source, dataset)
    return ground_truth_path(home, source, task)


def _resolve_spec(spec: Path) -> EvaluationSpec:
    return load_evaluation_spec(spec)


def _null_rule(value: str) -> NullRule:
    if value == "empty":
        return "empty"
    if value == "extended":
        return "extended"
    raise typer.BadParameter("must be 'empty' or 'extended'", param_hint="--null-tokens")


def _tie_rule(value: str) -> TieRule:
    if value == "admit":
        return "admit"
    if value == "strict":
        return "strict"
    raise typer.BadParameter("must be 'admit' or 'strict'", param_hint="--ties")


def show_score(score: Score, console: Console) -> None:
    """A readable summary: verdict, per-column counts, keys, nMAE, diagnostics."""
    verdict = "[green]strict pass[/]" if score.strict_pass else "[red]not a strict pass[/]"
    console.print(
        f"reward [bold]{score.reward}[/]  {verdict}  (null tokens: {score.null_tokens}, "
        f"ties: {score.options.ties})"
    )
    table = Table(
        "column",
        "type",
        "rate",
        "matched",
        "mismatched",
        "missing",
        "extra",
        "duplicate",
        "uncastable",
    )
    for column in score.columns:
        table.add_row(
            column.column,
            column.comparison,
            f"{column.match_rate}",
            *(
                str(value)
                for value in (
                    column.matched,
                    column.mismatched,
                    column.missing,
                    column.extra,
                    column.duplicate,
                    column.uncastable,
                )
            ),
        )
    console.print(table)
    keys = score.keys
    console.print(
        f"keys: truth {keys.truth_rows}, agent rows {keys.agent_rows}, "
        f"unique {keys.agent_unique_keys}, in truth {keys.agent_keys_in_truth}; "
        f"precision {keys.precision:.4f} recall {keys.recall:.4f} F1 {keys.f1:.4f}"
    )
    nmae = score.ordered_error
    if nmae.columns:
        count = counted(len(nmae.columns), "column")
        console.print(
            f"ordered nMAE over {count}: matched rows {_share(nmae.nmae_matched_rows)}, "
            f"all truth rows {_share(nmae.nmae_all_truth_rows)}"
        )
    if score.strict_ties is not None:
        reading = score.strict_ties
        verdict = "strict pass" if reading.strict_pass else "not a strict pass"
        console.print(
            f"against the truth alone (--ties strict): reward {reading.reward}, {verdict}"
        )
    show_checks(score, console)
    show_disagreements(score, console)
    if score.failure:
        console.print(f"[red]output not compared: {score.failure}[/]")
    for note in score.diagnostics:
        console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)


def show_checks(score: Score, console: Console, failed_only: bool = False) -> None:
    """The strict checks, each with its detail (``has_required_columns: missing
    [...]``); ``failed_only``: the failed ones, under a heading."""
    shown = [check for check in score.checks if not (failed_only and check.passed)]
    if failed_only and shown:
        console.print("failed checks:")
    for check in shown:
        mark = "[green]pass[/]" if check.passed else "[red]fail[/]"
        detail = f": {escape(check.detail)}" if check.detail else ""
        console.print(f"  {mark} {escape(check.name)}{detail}", highlight=False)


def show_disagreements(
    score: Score, console: Console, per_column: int | None = None, max_lines: int | None = None
) -> None:
    """The first disagreeing cells of each column (``per_column`` of them, default all
    the score kept) and the first missing and extra keys, in truth order; past
    ``max_lines`` lines (default: no cap), a count of the lines left out."""
    lines = [
        f"  {column.column} at {_key(sample.key)}: truth {_cell(sample.truth)}, "
        f"agent {_cell(sample.agent)} ({_REASONS[sample.reason]})"
        for column in score.columns
        for sample in column.mismatch_sample[:per_column]
    ]
    keys = score.keys
    for label, sample in (("missing", keys.missing_key_sample), ("extra", keys.extra_key_sample)):
        if sample:
            lines.append(f"  {label} keys: {'; '.join(_key(key) for key in sample)}")
    if not lines:
        return
    console.print("first disagreements:")
    for line in lines[:max_lines]:
        console.print(escape(line), highlight=False)
    if max_lines is not None and len(lines) > max_lines:
        console.print(f"  ... and {counted(len(lines) - max_lines, 'line')} more", highlight=False)


_REASONS = {
    "value": "outside the tolerance",
    "uncastable": "not readable as the truth's type",
    "agent_null": "agent cell empty",
    "truth_null": "truth is null",
}


def _share(value: float | None) -> str:
    """An error in [0, 1] to four significant digits ("none" when no row allows one)."""
    return "none" if value is None else f"{value:.4g}"


def _key(key: dict[str, str | None]) -> str:
    return ", ".join(f"{name}={_cell(value)}" for name, value in key.items())


def _cell(value: str | None) -> str:
    if value is None:
        return "null"
    if not value or value.strip() != value or not value.isprintable():
        return repr(value)  # blanks and line breaks made visible
    return value
