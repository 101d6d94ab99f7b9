"""Ctrl-C and SIGTERM as the command line sees them: a quiet stop, exit 130."""

from __future__ import annotations

import threading

import duckdb
import pytest

import m4bench.cli as cli
from m4bench.errors import is_interruption


def _interrupted_query() -> BaseException:
    """The exception DuckDB raises for a query stopped from outside (as Ctrl-C does)."""
    con = duckdb.connect()
    timer = threading.Timer(0.2, con.interrupt)
    timer.start()
    try:
        con.execute("SELECT count(*) FROM range(10_000_000_000) a")
    except Exception as exc:  # the exception under test
        return exc
    finally:
        timer.cancel()
        con.close()
    raise AssertionError("the query was not interrupted")


def test_interruptions_are_told_from_other_errors() -> None:
    assert is_interruption(_interrupted_query())
    assert is_interruption(KeyboardInterrupt())
    assert is_interruption(RuntimeError("Query interrupted"))
    assert not is_interruption(RuntimeError("something else"))
    assert not is_interruption(duckdb.CatalogException("no table"))


@pytest.mark.parametrize(
    "raised", [KeyboardInterrupt(), RuntimeError("Query interrupted"), _interrupted_query()]
)
def test_main_stops_quietly_with_130(
    raised: BaseException, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def app() -> None:
        raise raised

    monkeypatch.setattr(cli, "app", app)
    monkeypatch.delenv(cli.DEBUG_ENV, raising=False)
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err.strip() == "interrupted"


def test_other_runtime_errors_keep_their_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def app() -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main()
