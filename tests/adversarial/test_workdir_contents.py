"""Whatever an agent leaves in its workdir ends as its own outcome, never a harness error.

Each test plays one thing a hostile (or broken) agent can leave where the harness looks
afterwards, and checks the record: ``no_output`` with a sentence saying why, or a scored
output; the workdir and the raw logs gone; reads and copies bounded.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
from hostile_runs import attempt_dir, hostile_run, shared_home
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.results.record import ResultRecord
from m4bench.runner.contamination import Kept, LogLimits, redact_file
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.adversarial

NOT_A_CSV = "printf 'a,b\\n1,2\\n' > output.csv\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    return shared_home(tmp_path_factory, synthetic_sources)


def _gone(results: Path, record: ResultRecord) -> None:
    """The attempt kept its artifacts only: no workdir, no raw logs."""
    folder = attempt_dir(results, record)
    assert not (folder / "workdir").exists()
    assert not (folder / "logs").exists()


@pytest.mark.parametrize(
    ("script", "kind"),
    [
        ("mkdir output.csv\n", "a directory"),
        ("mkfifo output.csv\n", "a FIFO"),
        ("ln -s /etc/hostname output.csv\n", "a symbolic link"),
        ("ln -s output.csv output.csv\n", "a symbolic link"),
    ],
    ids=["directory", "fifo", "symlink", "self-link"],
)
def test_output_that_is_no_regular_file_is_the_agent_s_failure(
    home: DataHome, catalog: Catalog, tmp_path: Path, script: str, kind: str
) -> None:
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog)
    assert record.status == "no_output", record.error
    assert f"output.csv is {kind}, not a regular file" in record.status_detail
    assert record.score is None and record.reward == 0.0
    assert "output.csv" not in record.artifacts
    _gone(results, record)


def test_a_device_node_for_output_is_never_opened(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    probe = tmp_path / "probe"
    try:
        os.mknod(probe, 0o600 | 0o020000, os.makedev(1, 3))  # a character device
    except OSError:
        pytest.skip("device nodes cannot be made here")
    results = tmp_path / "results"
    record = hostile_run(home, results, f"mv {probe} output.csv\n", catalog)
    assert record.status == "no_output"
    assert "output.csv is a character device" in record.status_detail
    _gone(results, record)


def test_a_tree_deeper_than_any_recursion_is_linted_within_caps_and_removed(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    script = (
        "import os\n"
        "os.makedirs('output.csv')\n"
        "os.chdir('output.csv')\n"
        "for _ in range(1500):\n"
        "    os.mkdir('deeper-folder-name')\n"
        "    os.chdir('deeper-folder-name')\n"
        "open('leaf.txt', 'w').write('x')\n"
    )
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog, suffix=".py")
    assert record.status == "no_output", record.error
    assert "a directory" in record.status_detail
    lint = record.sandbox.lint
    assert lint is not None and not lint.complete and not lint.passed
    assert "folders deep" in lint.caps
    assert [f.kind for f in lint.findings] == ["unscanned"]
    _gone(results, record)


def test_a_sparse_3_gib_file_is_read_up_to_the_cap_and_the_output_scored(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    script = NOT_A_CSV + "truncate -s 3G huge.bin\nmkfifo pipe\nln -s /etc/passwd link\n"
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog)
    assert record.status == "ok"
    assert record.score is not None  # scored (it is no answer to the task: reward 0)
    lint = record.sandbox.lint
    assert lint is not None
    assert lint.truncated == 1 and lint.complete and lint.passed
    assert lint.skipped >= 2  # the FIFO and the links are not read
    assert lint.bytes >= 3 << 30
    _gone(results, record)


def test_a_sparse_output_is_refused_not_copied_dense(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    script = NOT_A_CSV + "truncate -s 1G output.csv\n"
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog)
    assert record.status == "no_output"
    assert "output.csv is a sparse file" in record.status_detail
    assert not (attempt_dir(results, record) / "output.csv").exists()
    _gone(results, record)


def test_an_output_over_the_size_cap_is_the_agent_s_failure(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    script = "python3 -c \"print('a,b'); [print(i, i) for i in range(2000)]\" > output.csv\n"
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog, max_output_bytes=4096)
    assert record.status == "no_output"
    assert "over the cap of 4096 bytes" in record.status_detail
    assert "output.csv" not in record.artifacts
    again = hostile_run(home, tmp_path / "generous", script, catalog)
    assert again.status == "ok" and again.score is not None


def test_binary_garbage_and_unreadable_modes_end_scored_or_failed(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    script = (
        "head -c 65536 /dev/urandom > output.csv\n"
        "mkdir -p locked/inner && echo x > locked/inner/f && chmod 000 locked/inner locked\n"
        "head -c 4096 /dev/urandom > noise.bin && chmod 000 noise.bin\n"
    )
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog)
    assert record.status == "ok", record.error
    assert record.score is not None and record.reward == 0.0
    _gone(results, record)


def test_a_huge_stdout_line_is_cut_and_counted(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    script = NOT_A_CSV + "python3 -c \"print('y' * (3 << 20)); print('after')\"\n"
    results = tmp_path / "results"
    record = hostile_run(home, results, script, catalog)
    assert record.status == "ok"
    trace = record.artifacts["trace.jsonl"]
    assert trace.truncated_lines == 1
    assert trace.bytes < 2 << 20
    text = (results / record.run_id / trace.path).read_text(encoding="utf-8")
    assert "line cut at" in text and text.rstrip().endswith("after")


def test_a_killed_attempt_is_swept_by_the_next_one(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    first = hostile_run(home, results, NOT_A_CSV, catalog)
    run_dir = results / first.run_id
    # What a harness killed mid-run leaves: the workdir, and raw logs never redacted.
    killed = run_dir / "attempt-7"
    (killed / "workdir" / "deep" / "er").mkdir(parents=True)
    (killed / "logs").mkdir()
    (killed / "logs" / "stdout.log").write_text("sk-" + "z" * 40, encoding="utf-8")
    (killed / "logs" / "harness.pid").write_text(f"{os.uname().nodename} 999999999")
    # An attempt whose harness still runs on this host is left alone.
    live = run_dir / "attempt-8"
    (live / "workdir").mkdir(parents=True)
    (live / "logs").mkdir()
    (live / "logs" / "harness.pid").write_text(f"{os.uname().nodename} {os.getppid()}")
    second = hostile_run(home, results, NOT_A_CSV, catalog)
    assert second.attempt == 9
    assert sorted(p.name for p in killed.iterdir()) == []
    assert (live / "workdir").is_dir() and (live / "logs").is_dir()


def test_redacting_a_30_mb_line_holds_about_one_line_cap_in_memory(tmp_path: Path) -> None:
    raw = tmp_path / "stdout.log"
    with raw.open("w", encoding="utf-8") as handle:
        handle.write("secret-value-1234 " + "v" * (30 << 20) + "\n")
        handle.write("secret-value-1234 next line\n")
    tracemalloc.start()
    try:
        kept = redact_file(raw, tmp_path / "trace.jsonl", ["secret-value-1234"], [])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20  # a few line caps, never the 30 MB line
    assert kept == Kept(lines_cut=1, lines_dropped=0)
    text = (tmp_path / "trace.jsonl").read_text(encoding="utf-8")
    assert "secret-value-1234" not in text
    assert text.endswith("[redacted] next line\n")
    assert (tmp_path / "trace.jsonl").stat().st_mode & 0o777 == 0o600


def test_lines_past_the_size_cap_are_dropped_and_counted(tmp_path: Path) -> None:
    raw = tmp_path / "stderr.log"
    raw.write_text("".join(f"line {i}\n" for i in range(100)), encoding="utf-8")
    limits = LogLimits(line_chars=64, total_chars=70)
    kept = redact_file(raw, tmp_path / "stderr.kept", [], [], limits)
    assert kept.lines_dropped == 90 and kept.truncated == 90
    lines = (tmp_path / "stderr.kept").read_text(encoding="utf-8").splitlines()
    assert lines[:10] == [f"line {i}" for i in range(10)]
    assert "90 more lines dropped" in lines[-1]
