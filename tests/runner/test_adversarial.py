"""An adversarial agent inside bwrap: every escape fails, is recorded, changes no record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from fake_openai import serve
from run_bench import Bench

from m4bench.fileio import sha256_file
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.sandbox import Limits
from m4bench.tasks.catalog import CATALOG_ROOT

pytestmark = needs_bwrap

TASK = "mimic-meld-24h"
AGENT = Path(__file__).with_name("canary_agent.py")


def canary_script(tmp_path: Path, targets: dict[str, object]) -> Path:
    text = AGENT.read_text(encoding="utf-8")
    literal = json.dumps(json.dumps(targets))
    text = text.replace('json.loads("{}")', f"json.loads({literal})")
    path = tmp_path / "canary_agent.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_escape_fails_and_is_recorded(
    bench: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_home = tmp_path / "user-home"
    (user_home / ".ssh").mkdir(parents=True)
    (user_home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY MATERIAL")
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("M4BENCH_SECRET_TOKEN", "sk-" + "x" * 40)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "y" * 40)
    results = tmp_path / "results"
    other = bench.run(results, "mimic-kdigo-48h", "oracle")
    other_record = results / other.run_id / "result.json"
    before = sha256_file(other_record)
    truth = ground_truth_path(bench.home, "run-mimic", bench.catalog.task(TASK))
    with serve([]) as model, serve([]) as harness_port:
        targets = {
            "read": [
                str(truth),
                str(truth.parent),
                str(CATALOG_ROOT),
                str(other_record),
                str(user_home / ".ssh" / "id_ed25519"),
                str(bench.home.root),
            ],
            "write": [
                str(other_record),
                str(CATALOG_ROOT / "owned.txt"),
                str(results / "owned.txt"),
                "/usr/owned.txt",
                "/m4data/owned.txt",
                "/owned.txt",
            ],
            "harness_port": harness_port.port,
            "fill_mib": 64,
        }
        record = bench.run(
            results,
            TASK,
            "replay",
            replay_file=canary_script(tmp_path, targets),
            endpoint=model.base_url,
            keep_workdir=True,
            limits=Limits(cpu_seconds=120, processes=64, file_size_bytes=8 << 20),
            timeout=120,
        )
    workdir = results / record.run_id / f"attempt-{record.attempt}" / "workdir"
    report = json.loads((workdir / "report.json").read_text())
    assert len(report) == 6 + 6 + 7
    escaped = [entry for entry in report if entry["succeeded"]]
    assert not escaped, escaped
    # The harness recorded the attempts it can see: refused connections, and a verdict.
    assert record.status == "egress_violation"
    egress = record.sandbox.egress
    assert egress is not None and egress.refused == 2
    assert any("example.com:443" in item for item in egress.refused_sample)
    assert any(f"127.0.0.1:{harness_port.port}" in item for item in egress.refused_sample)
    assert not record.publishable
    assert record.sandbox.canary is not None and record.sandbox.canary.passed
    # Nothing outside the workdir changed.
    assert sha256_file(other_record) == before
    assert not (CATALOG_ROOT / "owned.txt").exists()
    assert not (results / "owned.txt").exists()
    assert not Path("/owned.txt").exists() and not Path("/usr/owned.txt").exists()
    assert (workdir / "filler.bin").stat().st_size <= 8 << 20
    # The secrets it was not given never reached it, nor the stored trace.
    trace = (results / record.run_id / record.artifacts["trace.jsonl"].path).read_text()
    assert "x" * 40 not in trace and "y" * 40 not in trace
