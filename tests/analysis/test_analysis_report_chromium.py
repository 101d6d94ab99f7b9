"""report.html rendered in headless Chromium: visible, quiet, and offline."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from m4bench.analysis import AnalysisSettings, analyze

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (scripts/system-deps.sh installs it)"
    ),
]


@dataclass
class Rendering:
    pixels: np.ndarray
    console: list[str]
    page_requests: list[str]


def _page_requests(net_log: Path) -> list[str]:
    """URLs the page itself asked for (browser housekeeping has no file:// partition)."""
    log = json.loads(net_log.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    found = []
    for event in log["events"]:
        params = event.get("params", {})
        if event["type"] == start and "file://" in params.get("network_isolation_key", ""):
            found.append(params["url"])
    return found


def render(page: Path, work: Path) -> Rendering:
    shot, net_log = work / "shot.png", work / "net.json"
    done = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={work / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            f"--log-net-log={net_log}",
            f"--screenshot={shot}",
            "--window-size=1280,1800",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return Rendering(image.imread(shot), console, _page_requests(net_log))


def test_the_checks_catch_a_noisy_online_page(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><body><h1>x</h1><img src="http://example.invalid/a.png">'
        '<script>console.error("boom");</script></body></html>',
        encoding="utf-8",
    )
    seen = render(page, tmp_path)
    assert any("boom" in line for line in seen.console)
    assert any(url.startswith("http://example.invalid") for url in seen.page_requests)


def test_report_renders_non_blank_without_errors_or_requests(tmp_path: Path) -> None:
    out = tmp_path / "analysis"
    analyze("paper-release-v1", out, AnalysisSettings(reps=500, permutation_reps=500))
    seen = render(out / "report.html", tmp_path)
    assert seen.console == []
    assert all(url.startswith(("file:", "data:")) for url in seen.page_requests), seen.page_requests
    rgb = seen.pixels[..., :3]
    assert rgb.shape[0] >= 1000 and rgb.shape[1] >= 1000
    assert float(rgb.std()) > 0.05
    assert float((rgb.mean(axis=2) < 0.5).mean()) > 0.005  # some dark text on the page
