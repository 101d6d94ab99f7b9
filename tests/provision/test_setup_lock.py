"""Two setups of one source: the second waits for the first; orphans are swept."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from provision_helpers import SOURCE, Provisioned, private_home

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.provision.setup_lock import setup_lock

pytestmark = pytest.mark.xdist_group("provision-synthetic")


def test_a_second_holder_waits_and_says_so(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "home")
    said: list[str] = []
    entered = threading.Event()

    def second() -> None:
        with setup_lock(home, "s", said.append):
            entered.set()

    with setup_lock(home, "s", said.append):
        waiter = threading.Thread(target=second)
        waiter.start()
        assert not entered.wait(0.5)  # held: the second setup waits
    waiter.join(10)
    assert entered.is_set()
    assert said == ["waiting for another m4bench setup of source 's' to finish"]


def test_orphaned_temporary_files_are_removed_under_the_lock(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "home")
    folder = home.tasks / "s" / "native" / "mimic-meld-24h"
    folder.mkdir(parents=True)
    left = folder / ".agent.duckdb.abcd1234.tmp"  # as a setup killed mid-write leaves it
    left.write_bytes(b"x" * 10)
    kept = folder / "notes.tmp"
    kept.write_text("mine")
    said: list[str] = []
    with setup_lock(home, "s", said.append):
        pass
    assert not left.exists() and kept.exists()
    assert len(said) == 1 and said[0].startswith("removed 1 temporary file (10 bytes)")


def test_setup_waits_for_another_setup_of_the_source(
    provisioned: Provisioned, tmp_path: Path
) -> None:
    home = private_home(provisioned, tmp_path)
    done = threading.Event()

    def provision() -> None:
        setup(home, SOURCE, ["mimic-meld-24h"], progress=False)
        done.set()

    with setup_lock(home, SOURCE, lambda message: None):
        worker = threading.Thread(target=provision)
        worker.start()
        time.sleep(1.0)
        assert not done.is_set() and not (home.tasks / SOURCE).exists()
    worker.join(120)
    assert done.is_set()
    assert (home.tasks / SOURCE / "native" / "mimic-meld-24h").is_dir()
