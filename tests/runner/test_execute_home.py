"""``execute_run`` takes the data home as a DataHome or as its folder."""

from __future__ import annotations

from pathlib import Path

from m4bench.runner import RunSpec, execute_run


def test_a_home_folder_is_accepted_where_a_data_home_is(tmp_path: Path) -> None:
    record = execute_run(
        RunSpec(task="mimic-no-such-task", agent="oracle"),
        home=tmp_path / "home",
        source="synthetic-mimic-iv",
        results_dir=tmp_path / "results",
    )
    # The run fails as a recorded harness error (no such task), not on the home's type.
    assert record.status == "harness_error"
    assert "mimic-no-such-task" in (record.error or "")
