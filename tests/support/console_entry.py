"""The ``m4bench`` console entry point run in-process, as a user runs it."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from m4bench.cli import main


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str

    @property
    def err_line(self) -> str:
        """stderr with its lines (and the terminal's wrapping) joined by single spaces."""
        return " ".join(self.err.split())


def run_main(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Ran:
    """``m4bench ARGS`` through ``main()``: its exit status and what it printed (tables
    400 columns wide)."""
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys, "argv", ["m4bench", *args])
    with pytest.raises(SystemExit) as stopped:
        main()
    captured = capsys.readouterr()
    code = stopped.value.code
    return Ran(code if isinstance(code, int) else 1, captured.out, captured.err)


def m4bench(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """(exit status, stderr on one line) of ``m4bench ARGS``."""
    ran = run_main(args, monkeypatch, capsys)
    return ran.code, ran.err_line
