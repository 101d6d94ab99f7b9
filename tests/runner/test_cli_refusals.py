"""``m4bench run`` refuses what it can check before a run starts (exit 2, nothing
written), explains a zero reward, runs ``mutant:first`` and reports Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from console_entry import run_main
from run_bench import SOURCE, Bench
from synthetic_sources import SyntheticSources

from m4bench.runner import RunSpec, is_complete, read_result
from m4bench.runner.agent_choice import mutant_sql
from m4bench.runner.identity_inputs import identified
from m4bench.tasks.catalog import Catalog
from m4bench.tasks.mutants import task_mutants

pytestmark = needs_bwrap

TASK = "mimic-meld-24h"
EICU = "cli-eicu"


def m4bench(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """The console entry point, as a user runs it: (exit status, stdout, stderr)."""
    ran = run_main(args, monkeypatch, capsys)
    return ran.code, ran.out, ran.err


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def eicu_source(bench: Bench, synthetic_sources: SyntheticSources) -> str:
    """A tiny eICU source beside the bench's MIMIC-IV one (no tasks set up on it)."""
    synthetic_sources.copy(bench.home, EICU, "eicu", 5, 1)
    return EICU


def test_mistakes_are_refused_before_anything_is_written(
    bench: Bench,
    eicu_source: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "results"
    finished = bench.run(results, TASK, "oracle")
    assert finished.reward == 1.0
    before = files_under(results)
    places = ["--task", TASK, "--home", str(bench.home.root), "--results", str(results)]
    cases = [
        (["--agent", "oracle", "--source", eicu_source], "pick a mimic-iv source with --source"),
        (["--agent", "oracle", "--source", "nowhere"], "`m4bench data synth mimic-iv --name"),
        (["--agent", "replay", "--replay", str(tmp_path / "absent.sql")], "replay file not"),
        (["--agent", "replay"], "`m4bench run --replay FILE`"),
        (["--agent", "react", "--model", "m"], "pass --endpoint"),
        (["--agent", "react", "--endpoint", "http://127.0.0.1:9/v1"], "pass --model"),
        (["--agent", "react", "--model", "m", "--endpoint", "127.0.0.1:9"], "http(s) URL"),
        (["--agent", "mutant:no-such-mutant"], "has no mutant named 'no-such-mutant'"),
        (["--agent", "oracle", "--model", ""], "--model: '' names nothing"),
        (["--agent", "oracle", "--reasoning", " "], "--reasoning: ' ' names nothing"),
        (["--agent", "oracle", "--timeout", "10000000000000000000"], "--timeout: 1e+19 s"),
        (["--agent", "oracle", "--timeout", "nan"], "give 1 to 604800 seconds (7 days)"),
        (["--agent", "oracle", "--condition", "operational-spec"], "needs this file and task"),
        (["--agent", "oracle", "--sandbox", "bogus"], "choose one of: bwrap, docker, none"),
    ]
    for args, expected in cases:
        source = [] if "--source" in args else ["--source", SOURCE]
        code, out, err = m4bench(["run", *places, *source, *args], monkeypatch, capsys)
        assert code == 2, (args, out, err)
        assert expected in err, (args, err)
        assert out == ""
        assert files_under(results) == before, args  # the finished record is untouched
    assert read_result(results / finished.run_id).reward == 1.0


def test_a_perturbed_schema_of_an_eicu_task_is_refused_as_such(
    bench: Bench,
    eicu_source: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not "no schema mapping" with a setup command that only skips the task."""
    places = ["--home", str(bench.home.root), "--results", str(tmp_path)]
    for schema in ("obfuscated", "restructured"):
        args = ["run", "--task", "eicu-gcs", "--agent", "oracle", "--schema", schema]
        code, out, err = m4bench([*args, "--source", eicu_source, *places], monkeypatch, capsys)
        assert code == 2 and out == ""
        assert f"the {schema} schema exists for MIMIC-IV tasks only" in err
        assert "use --schema native for eicu tasks" in err
        assert "mapping" not in err
    assert not list(tmp_path.iterdir())


def test_the_python_api_records_a_timeout_out_of_range(bench: Bench, tmp_path: Path) -> None:
    """Said as such, not as a sandbox that could not start."""
    record = bench.run(tmp_path, TASK, "oracle", timeout=1e19)
    assert record.status == "harness_error"
    assert record.error is not None
    assert record.error.startswith("timeout: 1e+19 s is not a timeout a run can have")


def test_a_missing_source_names_the_tasks_dataset(
    bench: Bench,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    places = ["--home", str(bench.home.root), "--results", str(tmp_path)]
    # Named: without --source the command would take another eICU source of the home
    # (another test's), see tests/sources/test_choose_source.py.
    args = ["run", "--task", "eicu-gcs", "--agent", "oracle", "--source", "synthetic-eicu"]
    code, _, err = m4bench([*args, *places], monkeypatch, capsys)
    assert code == 2
    assert "no source named 'synthetic-eicu'" in err and "reads eicu data" in err
    assert "`m4bench data synth eicu`" in err and "mimic-iv" not in err
    assert not list(tmp_path.iterdir())
    # The Python API records the same hint.
    record = bench.run(tmp_path, "eicu-gcs", "oracle", source="synthetic-eicu")
    assert record.status == "harness_error"
    assert record.error is not None and "`m4bench data synth eicu`" in record.error


def test_the_summary_says_why_an_output_was_not_compared(
    bench: Bench,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sql = tmp_path / "one.sql"
    sql.write_text("SELECT 1 AS x")
    args = ["run", "--task", TASK, "--agent", "replay", "--replay", str(sql), "--source", SOURCE]
    places = ["--home", str(bench.home.root), "--results", str(tmp_path / "results")]
    code, out, err = m4bench([*args, *places], monkeypatch, capsys)
    assert code == 0, err
    assert "status ok" in out and "reward 0.0000" in out
    assert "output not compared: key_columns_missing" in out
    assert "note: output lacks key columns ['stay_id']" in out
    run_id = identified(RunSpec(task=TASK, agent="replay"), None, sql).run_id
    score = read_result(tmp_path / "results" / run_id).score
    assert score is not None
    check = next(c for c in score.checks if c.name == "output_is_valid_csv")
    assert not check.passed
    assert "data rows parsed" not in check.detail
    assert "not compared because key columns are missing: ['stay_id']" in check.detail


def test_mutant_first_is_the_tasks_first_mutant(
    bench: Bench,
    catalog: Catalog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = catalog.task(TASK)
    first = mutant_sql("mutant:first", task, None)
    assert first == task_mutants(task)[0].sql
    args = ["run", "--task", TASK, "--agent", "mutant:first", "--source", SOURCE]
    places = ["--home", str(bench.home.root), "--results", str(tmp_path)]
    code, out, err = m4bench([*args, *places], monkeypatch, capsys)
    assert code == 0, err
    assert "status ok" in out
    run_dir = tmp_path / RunSpec(task=TASK, agent="mutant:first").run_id
    record = read_result(run_dir)
    assert record.status == "ok" and record.score is not None
    trace = (run_dir / record.artifacts["trace.jsonl"].path).read_text()
    assert f"KNOWN WRONG (mutant {task_mutants(task)[0].name} of" in trace


TICKING = "echo started > started\nwhile true; do date +%s%N > tick; sleep 0.1; done\n"


@pytest.mark.parametrize(
    ("stop", "keep"), [(signal.SIGINT, True), (signal.SIGTERM, False)], ids=["int", "term"]
)
def test_ctrl_c_stops_the_agent_and_records_the_interruption(
    bench: Bench, tmp_path: Path, stop: signal.Signals, keep: bool
) -> None:
    """Ctrl-C, and SIGTERM as kill, a scheduler or a container stop send it. The
    interrupted attempt's workdir is swept unless --keep-workdir asks to keep it."""
    script = tmp_path / "ticking.sh"
    script.write_text(TICKING)
    results = tmp_path / "results"
    args = ["run", "--task", TASK, "--agent", "replay", "--replay", str(script)]
    args += ["--keep-workdir"] if keep else []
    args += ["--source", SOURCE, "--home", str(bench.home.root), "--results", str(results)]
    process = subprocess.Popen(
        [sys.executable, "-m", "m4bench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the signal goes to the harness alone, as a terminal's would
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    run_dir = results / identified(RunSpec(task=TASK, agent="replay"), None, script).run_id
    workdir = run_dir / "attempt-1" / "workdir"
    deadline = time.monotonic() + 60
    while not (workdir / "tick").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    if not (workdir / "tick").exists():
        process.kill()  # never leave the harness running past a failed test
        _, err = process.communicate(timeout=60)
        pytest.fail(f"the agent never ticked in {workdir}: {err.decode()}")
    process.send_signal(stop)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (out, err)
    assert err.decode().strip() == "interrupted: the run was stopped; its record says so"
    record = read_result(run_dir)
    assert record.status == "interrupted"
    assert "interrupted by the user" in record.status_detail
    assert not record.publishable
    assert record.publishable_reason == "the run was interrupted by the user"
    assert not is_complete(run_dir)  # retried, like any run that did not happen
    assert not (run_dir / "attempt-1" / "logs").exists()  # no raw, unredacted log is left
    if not keep:
        assert not workdir.exists()
        return
    tick = (workdir / "tick").read_bytes()
    time.sleep(0.5)
    assert (workdir / "tick").read_bytes() == tick  # the agent's loop is gone
    assert os.listdir(workdir)  # the kept workdir is left to inspect
