"""The streaming input check: SHA-256 plus a full gzip integrity check."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from m4bench.errors import M4BenchError
from m4bench.sources.integrity import digest_file


def _payload(lines: int) -> bytes:
    return b"".join(b"%d,2110-01-01 10:00:00,value %d\n" % (i, i * 7) for i in range(lines))


def test_digest_is_the_file_sha256_and_accepts_multi_member_gzip(tmp_path: Path) -> None:
    path = tmp_path / "t.csv.gz"
    # Two members, like a file written by `cat a.gz b.gz`, and large enough to need
    # several reads and several inflate rounds.
    data = gzip.compress(_payload(200_000), mtime=0) + gzip.compress(_payload(10), mtime=0)
    path.write_bytes(data)
    assert digest_file(path, verify_gzip=True) == hashlib.sha256(data).hexdigest()
    plain = tmp_path / "t.csv"
    plain.write_bytes(_payload(10))
    assert digest_file(plain, verify_gzip=False) == hashlib.sha256(_payload(10)).hexdigest()


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda data: data[:-9], "truncated"),
        (lambda data: data[: len(data) // 2], "truncated"),
        (lambda data: data + b"garbage after the end", "corrupt"),
        (lambda data: data[:40] + bytes(b ^ 0xFF for b in data[40:80]) + data[80:], "corrupt"),
    ],
)
def test_damaged_gzip_is_named(tmp_path: Path, damage: object, expected: str) -> None:
    path = tmp_path / "labevents.csv.gz"
    path.write_bytes(damage(gzip.compress(_payload(5_000), mtime=0)))  # type: ignore[operator]
    with pytest.raises(M4BenchError, match=expected) as caught:
        digest_file(path, verify_gzip=True)
    assert str(path) in caught.value.message


def test_trailing_zero_padding_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "padded.csv.gz"
    path.write_bytes(gzip.compress(_payload(100), mtime=0) + b"\x00" * 512)
    assert len(digest_file(path, verify_gzip=True)) == 64
