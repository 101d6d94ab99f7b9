"""m4bench tasks run from Inspect AI with a scripted mock model, scored by m4bench's scorer,
and the eval log read back by ``m4bench analyze``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from integration_home import HOME_GROUP, MUTANT, SOURCE, TASK

from m4bench.home import DataHome
from m4bench.integrations.bundle import resolve_bundle
from m4bench.tasks.mutants import find_mutant

inspect_ai = pytest.importorskip("inspect_ai", reason="the Inspect extra is not installed")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model  # noqa: E402

from m4bench.analysis import AnalysisSettings, analyze  # noqa: E402
from m4bench.analysis.api import load_source  # noqa: E402
from m4bench.errors import M4BenchError  # noqa: E402
from m4bench.integrations.inspect_logs import holds_eval_logs, load_inspect_logs  # noqa: E402
from m4bench.integrations.inspect_tasks import m4bench_task  # noqa: E402

pytestmark = HOME_GROUP
MOCK = "mockllm/model"
USAGE = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=120, input_tokens_cache_read=10)


def _output(tool: str, arguments: dict[str, Any]) -> ModelOutput:
    output = ModelOutput.for_tool_call(MOCK, tool, arguments)
    output.usage = USAGE  # a scripted usage: no tokenizer is needed to count it
    return output


def scripted_analyst(home: DataHome) -> Any:
    """A mock model that writes the reference answer when given skills and a known-wrong
    one (a mutant's) without, through the sql tool, then submits."""
    bundle = resolve_bundle(home, TASK, source=SOURCE)
    right = bundle.oracle_statements()
    wrong = bundle.oracle_statements(find_mutant(bundle.task, MUTANT).sql)

    def answer(messages: list[ChatMessage], *_: object) -> ModelOutput:
        prompt = next(m.text for m in messages if m.role == "user")
        plan = right if "Skills you may read" in prompt else wrong
        done = sum(1 for m in messages if m.role == "tool")
        if done < len(plan):
            return _output("sql", {"query": plan[done]})
        return _output("submit", {"answer": "output.csv written"})

    return answer


@pytest.fixture(scope="module")
def logs(small_home: DataHome, tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """Two registered tasks (no-skill, with-skill), two epochs each, in one eval."""
    log_dir = tmp_path_factory.mktemp("inspect-logs")
    model = get_model(MOCK, custom_outputs=scripted_analyst(small_home))
    home = str(small_home.root)
    tasks = [
        (f"m4bench/{TASK}", {"home": home, "condition": condition})
        for condition in ("no-skill", "with-skill")
    ]
    options = {"model": model, "epochs": 2, "log_dir": str(log_dir), "display": "none"}
    return [inspect_eval(name, task_args=args, **options)[0] for name, args in tasks]


def _scores(log: EvalLog) -> list[float]:
    return [sample.scores["m4bench_scorer"].value for sample in log.samples or []]  # type: ignore[index,misc]


def test_the_reference_answer_scores_one_and_a_mutant_less(logs: list[EvalLog]) -> None:
    no_skill, with_skill = logs
    assert no_skill.status == with_skill.status == "success"
    assert _scores(with_skill) == [1.0, 1.0]
    assert all(0 < value < 1 for value in _scores(no_skill))
    score = with_skill.samples[0].scores["m4bench_scorer"]  # type: ignore[index]
    summary = score.metadata["summary"]
    assert summary["strict_pass"] is True and summary["match_rates"] == {"meld": 1.0}
    assert summary["key_f1"] == 1.0 and summary["ordered_nmae"] == 0.0
    identity = score.metadata["m4bench"]
    assert identity["condition"] == "with-skill" and identity["isolated"] is False
    wrong = no_skill.samples[0].scores["m4bench_scorer"].metadata["summary"]  # type: ignore[index]
    assert wrong["strict_pass"] is False and wrong["match_rates"]["meld"] < 1.0


def test_the_sample_is_the_instruction_with_the_conditions_skills(
    logs: list[EvalLog], small_home: DataHome
) -> None:
    no_skill, with_skill = (read_eval_log(log.location) for log in logs)
    bundle = resolve_bundle(small_home, TASK, "with-skill", source=SOURCE)
    sample = with_skill.samples[0]  # type: ignore[index]
    assert sample.input == bundle.prompt()
    assert "Skills you may read before starting:\n- meld-score:" in bundle.prompt()
    assert sorted(sample.files or []) == [
        "agent.duckdb", "instruction.md", "skills/meld-score/SKILL.md"
    ]  # fmt: skip
    assert no_skill.samples[0].input == resolve_bundle(small_home, TASK, source=SOURCE).instruction  # type: ignore[index]
    assert with_skill.eval.task == f"m4bench/{TASK}"
    assert with_skill.eval.task_args["condition"] == "with-skill"


def test_analyze_reads_the_eval_logs(logs: list[EvalLog], tmp_path: Path) -> None:
    folder = Path(logs[0].location).parent
    assert holds_eval_logs(folder) and holds_eval_logs(Path(logs[0].location))
    runs, _label = load_source(folder)
    assert len(runs) == 4
    by_condition = {(run.condition, run.trial): run for run in runs}
    right, wrong = by_condition[("with-skill", 1)], by_condition[("no-skill", 2)]
    assert (right.task, right.schema_name, right.model) == (TASK, "native", MOCK)
    assert right.agent == "inspect:react" and right.reward == 1.0 and right.strict_pass
    assert right.key_f1 == 1.0 and right.truth_rows == 40 and right.failed == 0
    assert 0 < (wrong.reward or 0) < 1 and not wrong.strict_pass
    assert right.input_tokens == 2 * (100 + 10) and right.cached_input_tokens == 20
    assert right.output_tokens == 20 and right.publishable is False and right.isolated is False
    settings = AnalysisSettings(reps=200, permutation_reps=200, include_unpublishable=True)
    result = analyze(folder, tmp_path / "analysis", settings)
    headline = result.headline[0]
    assert headline.baseline < 1.0 and headline.treatment == 1.0 and headline.delta > 0
    assert (tmp_path / "analysis" / "report.html").is_file()
    with pytest.raises(M4BenchError, match="no publishable runs"):
        analyze(folder, tmp_path / "strict", AnalysisSettings(reps=200, permutation_reps=200))


def test_a_sandbox_that_cannot_see_the_hosts_files_is_refused(small_home: DataHome) -> None:
    with pytest.raises(M4BenchError, match="local sandbox only"):
        m4bench_task(TASK, home=str(small_home.root), sandbox_type="docker")


def test_a_folder_of_result_records_is_not_read_as_logs(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "result.json").write_text("{}", encoding="utf-8")
    (tmp_path / "stray.json").write_text('{"eval": {}, "version": 2}', encoding="utf-8")
    assert not holds_eval_logs(tmp_path)
    (tmp_path / "run" / "result.json").unlink()
    assert holds_eval_logs(tmp_path)
    with pytest.raises(M4BenchError, match="not a readable Inspect eval log"):
        load_inspect_logs(tmp_path)


@pytest.mark.slow
def test_inspect_eval_on_the_command_line_scores_through_m4bench(
    small_home: DataHome, tmp_path: Path
) -> None:
    """The entry point registers the tasks for ``inspect eval``; a message limit reached
    before the model answers leaves no output, which m4bench scores 0 (output missing)."""
    inspect_cli = Path(sys.executable).with_name("inspect")
    argv = [
        str(inspect_cli), "eval", f"m4bench/{TASK}", "--model", MOCK,
        "-T", f"home={small_home.root}", "--message-limit", "1",
        "--log-dir", str(tmp_path), "--display", "none",
    ]  # fmt: skip
    subprocess.run(argv, check=True, capture_output=True, timeout=300)
    (log_file,) = tmp_path.glob("*.eval")
    (run,) = load_inspect_logs(log_file)
    assert run.reward == 0.0 and run.failure_reason == "limit: message"
