"""Atomic writes, content hashes and validated reads of on-disk records."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from m4bench.errors import M4BenchError

ModelT = TypeVar("ModelT", bound=BaseModel)

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def make_private(path: Path) -> None:
    """Give ``path`` mode 0600 (a file) or 0700 (a folder): files holding ground-truth
    rows or row-level data are the harness user's alone. A link is left alone."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return
    path.chmod(PRIVATE_DIR_MODE if stat.S_ISDIR(info.st_mode) else PRIVATE_FILE_MODE)


def private_dir(path: Path) -> Path:
    """Create the folder ``path`` (and its parents) if missing, and make it 0700."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(PRIVATE_DIR_MODE)
    return path


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextlib.contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it over ``target`` on success.

    On any exception the temporary file is removed and ``target`` is untouched, so a
    reader sees either the old file or the complete new one, never a partial write.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# The names atomic_path gives its temporary files: tempfile.mkstemp's 8 random characters
# between ``.<target name>.`` and ``.tmp``; DuckDB adds ``.wal`` beside one opened as a database.
_ATOMIC_TEMP = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp(?:\.wal)?")


def is_atomic_temp(name: str) -> bool:
    """True for a file name of the kind :func:`atomic_path` writes before its rename."""
    return _ATOMIC_TEMP.fullmatch(name) is not None


@dataclass(frozen=True)
class Sweep:
    """What :func:`sweep_atomic_temps` removed."""

    files: tuple[Path, ...]
    bytes: int

    def summary(self, where: str) -> str:
        """One line for the user: ``removed 3 temporary files (1.2 GB) left by ...``."""
        noun = "file" if len(self.files) == 1 else "files"
        units = ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
        size = next((f"{self.bytes / s:,.1f} {u}" for s, u in units if self.bytes >= s), None)
        return (
            f"removed {len(self.files)} temporary {noun} ({size or f'{self.bytes} bytes'}) "
            f"left by an interrupted write in {where}"
        )


def sweep_atomic_temps(root: Path) -> Sweep:
    """Delete the temporary files that interrupted :func:`atomic_path` writes left under
    ``root`` (a crash or SIGKILL skips their cleanup), and DuckDB's ``.wal`` beside them.

    Only regular files named as :func:`is_atomic_temp` says are touched; symbolic links
    are neither removed nor followed. Call it only while no other process can be writing
    under ``root`` (hold the lock that guards it), or a live writer loses its file.
    """
    removed: list[Path] = []
    total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            if not is_atomic_temp(name):
                continue
            try:
                info = path.lstat()
                if not stat.S_ISREG(info.st_mode):
                    continue
                path.unlink()
            except FileNotFoundError:
                continue
            removed.append(path)
            total += info.st_size
    return Sweep(tuple(sorted(removed)), total)


def atomic_write_bytes(target: Path, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(target: Path, text: str) -> None:
    atomic_write_bytes(target, text.encode("utf-8"))


def current_umask() -> int:
    """The process's file-creation mask, read without changing it (Linux reports it in
    /proc/self/status; elsewhere the common 022 is assumed)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_shareable(target: Path, data: bytes | str) -> None:
    """Write ``data`` atomically with the mode any new file gets (``0666 & ~umask``).

    The atomic writers above make their files 0600 (they also write ground truth); this
    one is for what is meant to be read by others: reports, figures, viewer pages
    without truth values. Never for a file holding truth or row-level data.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(target) as tmp:
        tmp.write_bytes(payload)
        tmp.chmod(0o666 & ~current_umask())


def canonical_json(value: Any) -> str:
    """Stable JSON text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_model(target: Path, model: BaseModel) -> None:
    """Write a pydantic record as canonical JSON, atomically."""
    atomic_write_text(target, canonical_json(model.model_dump(mode="json")))


_NOT_UTF8_HINT = "is it the file you meant? a text file must be saved as UTF-8"
_DAMAGED_HINT = "the file is damaged or from another m4bench version; rebuild it"


def read_user_text(path: Path, hint: str = _NOT_UTF8_HINT) -> str:
    """The UTF-8 text of a file a user may have given or edited.

    As ``path.read_text(encoding="utf-8")`` (newlines made LF), except that bytes that
    are not UTF-8 (a binary file, another encoding) raise an error naming the file, the
    first bad byte and its offset, with ``hint``. OSErrors (no such file, ...) pass
    through.
    """
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise M4BenchError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            hint=hint,
        ) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_model(path: Path, model: type[ModelT]) -> ModelT:
    """Read and validate a JSON record; errors name the file and the bad field."""
    try:
        raw = read_user_text(path, hint=_DAMAGED_HINT)
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: file not found") from exc
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(document)"
        raise M4BenchError(
            f"{path}: invalid {model.__name__} record at '{where}': {first['msg']}",
            hint=_DAMAGED_HINT,
        ) from exc


def read_toml_model(path: Path, model: type[ModelT], docs: str) -> ModelT | None:
    """Read and validate a TOML data file; None when it does not exist.

    Errors name the file and the first bad field, and point at ``docs`` for the format.
    """
    try:
        text = read_user_text(path)
    except FileNotFoundError:
        return None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(path, exc, text) from exc
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise M4BenchError(
            f"{path}: [{field}] {first['msg']}", hint=f"see {docs} for the format"
        ) from exc


def toml_error_line(message: str, text: str) -> int:
    """The line a TOML parser's message names ("... (at line 7, column 21)"); the last
    line of ``text`` for an error "at end of document"; else 1."""
    match = re.search(r"at line (\d+)", message)
    if match:
        return int(match.group(1))
    if "end of document" in message:
        return max(1, len(text.rstrip("\n").split("\n")))
    return 1


def toml_syntax_error(path: Path, exc: tomllib.TOMLDecodeError, text: str) -> M4BenchError:
    """``path:LINE: not valid TOML: ...`` (``text``: the file's text), located like every
    other file problem."""
    line = toml_error_line(str(exc), text)
    return M4BenchError(f"{path}:{line}: not valid TOML: {exc}", hint="fix the syntax")


def reject_duplicate_names(path: Path, names: list[str], what: str) -> None:
    """Raise naming the file when some of ``names`` repeat (``what``: 'mutant', 'bin')."""
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise M4BenchError(f"{path}: duplicate {what} names {duplicates}")


def _fsync_file(path: Path) -> None:
    with path.open("rb") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
