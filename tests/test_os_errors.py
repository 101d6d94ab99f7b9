"""A file-system failure that names a file is a user error: one "error:" line naming the
path the user can act on, a "hint:" line, exit 2; one naming no file keeps its traceback,
and ``M4BENCH_DEBUG=1`` shows the traceback of any error."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from console_entry import m4bench

from m4bench import cli
from m4bench.cli import main
from m4bench.errors import M4BenchError, from_os_error
from m4bench.fileio import atomic_write_text


def raised(action: object) -> OSError:
    """The OSError a real file-system call raises."""
    assert callable(action)
    with pytest.raises(OSError) as info:
        action()
    return info.value


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "f"
    path.write_text("a file, not a folder")
    return path


def test_a_folder_made_below_a_file_names_the_file(a_file: Path) -> None:
    error = from_os_error(raised(lambda: (a_file / "a" / "b").mkdir(parents=True)))
    assert error is not None
    assert error.message == (
        f"{a_file}: is a file, where a folder is needed (for {a_file / 'a' / 'b'})"
    )
    assert error.hint == f"move or rename the file {a_file}, or choose another location"


def test_a_file_where_the_folder_of_an_out_path_is_needed(a_file: Path) -> None:
    """``--out f/x.csv``: mkdir of f raises FileExistsError; f is what the user must move."""
    error = from_os_error(raised(lambda: a_file.mkdir(parents=True, exist_ok=True)))
    assert error is not None
    assert error.message == f"{a_file}: is a file, where a folder is needed"


def test_an_existing_folder_made_again_already_exists(tmp_path: Path) -> None:
    error = from_os_error(raised(tmp_path.mkdir))
    assert error is not None
    assert error.message == f"{tmp_path}: already exists"


def test_a_folder_where_a_file_is_written_names_the_folder_not_the_temporary(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "d.csv"
    folder.mkdir()
    renamed = raised(lambda: atomic_write_text(folder, "x"))
    assert isinstance(renamed, IsADirectoryError) and renamed.filename2 is not None
    error = from_os_error(renamed)
    assert error is not None
    assert error.message == f"{folder}: is a folder, where a file is needed"
    assert error.hint is not None and str(folder) in error.hint
    opened = from_os_error(raised(lambda: folder.open("w")))
    assert opened is not None and opened.message == error.message


def test_permission_denied_names_the_existing_folder_that_refused(tmp_path: Path) -> None:
    below = tmp_path / "runs" / "r1"
    error = from_os_error(PermissionError(errno.EACCES, "Permission denied", str(below)))
    assert error is not None
    assert error.message == f"{tmp_path}: permission denied (for {below})"
    assert error.hint == (
        f"check the permissions of {tmp_path} (ls -ld {tmp_path}), or choose another location"
    )


def test_no_space_left_names_the_folder_of_the_file(tmp_path: Path) -> None:
    target = tmp_path / ".out.csv.tmp"
    target.write_text("")
    error = from_os_error(OSError(errno.ENOSPC, "No space left on device", str(target)))
    assert error is not None
    assert error.message == f"{tmp_path}: no space left on device (for {target})"
    assert error.hint is not None and f"df -h {tmp_path}" in error.hint


def test_an_errno_without_plain_words_shows_its_own(tmp_path: Path) -> None:
    error = from_os_error(OSError(errno.EMFILE, "Too many open files", str(tmp_path)))
    assert error is not None and error.message == f"{tmp_path}: too many open files"


def test_an_os_error_naming_no_file_is_not_a_user_error() -> None:
    assert from_os_error(OSError(errno.EIO, "Input/output error")) is None
    assert from_os_error(ConnectionResetError(errno.ECONNRESET, "reset")) is None


def test_a_data_home_that_is_a_file_exits_2_with_a_hint(
    a_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["data", "synth", "eicu", "--stays", "5", "--home", str(a_file)]
    code, err = m4bench(args, monkeypatch, capsys)
    assert code == 2
    assert err.startswith(f"error: {a_file}: is a file, where a folder is needed (for {a_file}/")
    assert f"hint: move or rename the file {a_file}" in err
    assert "Traceback" not in err
    assert a_file.read_text() == "a file, not a folder"


def test_a_task_folder_that_is_a_file_exits_2(
    a_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tasks", "copy", "mimic-meld-24h", "--name", "mimic-meld-copy", "--family",
            "meldcopy", "--author", "test", "--into", str(a_file)]  # fmt: skip
    code, err = m4bench(args, monkeypatch, capsys)
    assert code == 2
    assert err.startswith(f"error: {a_file}: is a file, where a folder is needed")


def test_debug_shows_the_traceback_instead(
    a_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("M4BENCH_DEBUG", "1")
    monkeypatch.setattr(sys, "argv", ["m4bench", "data", "synth", "eicu", "--home", str(a_file)])
    with pytest.raises(NotADirectoryError):
        main()
    monkeypatch.setattr(sys, "argv", ["m4bench", "data", "info", "none", "--home", str(a_file)])
    with pytest.raises(M4BenchError, match="no source named 'none'"):
        main()
    assert "error:" not in capsys.readouterr().err


def test_debug_0_is_off(
    a_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("M4BENCH_DEBUG", "0")
    code, err = m4bench(["data", "synth", "eicu", "--home", str(a_file)], monkeypatch, capsys)
    assert code == 2 and err.startswith("error:")


def test_an_os_error_naming_no_file_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(cli, "app", broken)
    monkeypatch.delenv("M4BENCH_DEBUG", raising=False)
    with pytest.raises(OSError, match="Input/output error"):
        main()


def test_the_error_is_printed_whole_with_markup_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "[runs]"
    folder.mkdir()

    def broken() -> None:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(folder))

    monkeypatch.setattr(cli, "app", broken)
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"error: {folder}: is a folder, where a file is needed\n" in err
