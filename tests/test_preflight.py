"""Preflight passes on a ready home and fails, with the fix, on each broken precondition."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bwrap_probe import bwrap_works
from synthetic_sources import SyntheticSources

import m4bench.preflight.checks as preflight_checks
from m4bench.home import DataHome
from m4bench.preflight import Check, PreflightOptions, run_preflight
from m4bench.preflight.checks import (
    check_agent_programs,
    check_catalog_lint,
    check_endpoint,
    check_results_dir,
    check_sandbox,
)
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.provision.layout import task_catalog_paths
from m4bench.provision.provisioner import setup
from m4bench.tasks.catalog import CATALOG_ROOT, load_catalog
from m4bench.tasks.finding import Finding

TASK = "mimic-meld-24h"
EICU_TASK = "eicu-gcs"
SOURCES = {"mimic-iv": "pf-mimic", "eicu": "pf-eicu"}


@pytest.fixture(scope="module")
def ready(
    tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources
) -> DataHome:
    home = DataHome(tmp_path_factory.mktemp("preflight-home"))
    synthetic_sources.copy(home, SOURCES["mimic-iv"], "mimic-iv", 40, 3, concepts=True)
    synthetic_sources.copy(home, SOURCES["eicu"], "eicu", 80, 5)
    setup(home, SOURCES["mimic-iv"], [TASK], progress=False)
    setup(home, SOURCES["eicu"], [EICU_TASK], progress=False)
    return home


@pytest.fixture
def broken(ready: DataHome, tmp_path: Path) -> DataHome:
    """A copy of the ready home a test may damage."""
    copy = tmp_path / "home"
    shutil.copytree(ready.root, copy, symlinks=True)
    return DataHome(copy)


def _checks(home: DataHome, **options: object) -> dict[str, Check]:
    opts = PreflightOptions(
        sources=dict(SOURCES), tasks=[TASK, EICU_TASK], sandbox="bwrap", lint=False
    )
    for name, value in options.items():
        setattr(opts, name, value)
    return {check.name.split(" (")[0].split(" ")[0]: check for check in run_preflight(home, opts)}


def _failed(checks: dict[str, Check]) -> list[Check]:
    return [check for check in checks.values() if not check.ok]


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here")
def test_everything_passes_on_a_ready_home(
    ready: DataHome,
    tmp_path: Path,
    catalog_findings: list[Finding],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The catalog check reads the shared lint of the shipped catalog (the lint itself is
    # tests/tasks/test_task_lint.py's); a failing lint is the lint-error test below.
    monkeypatch.setattr(preflight_checks, "lint_catalog", lambda *_, **__: catalog_findings)
    checks = _checks(ready, results=tmp_path / "new-results", lint=True)
    assert not _failed(checks), _failed(checks)
    names = {c.name for c in checks.values()}
    assert "catalog lint" in names
    assert any(name.startswith("sandbox bwrap") for name in names)


def test_missing_source_fails_with_the_synth_command(tmp_path: Path) -> None:
    checks = _checks(DataHome(tmp_path / "empty"), sandbox="none")
    source = checks["source"]
    assert not source.ok
    assert "m4bench data synth" in source.fix


def test_a_tampered_agent_catalog_fails_with_the_setup_command(broken: DataHome) -> None:
    catalog = task_catalog_paths(broken, SOURCES["mimic-iv"], "native", TASK).catalog
    with catalog.open("ab") as handle:
        handle.write(b"\0tampered")
    failed = [c for c in _failed(_checks(broken, sandbox="none")) if "provisioning" in c.name]
    assert len(failed) == 1
    assert TASK in failed[0].detail and "differs from its manifest" in failed[0].detail
    assert failed[0].fix == f"`m4bench setup --source {SOURCES['mimic-iv']}`"


def test_a_missing_ground_truth_fails(broken: DataHome) -> None:
    task = load_catalog().task(TASK)
    ground_truth_path(broken, SOURCES["mimic-iv"], task).unlink()
    failed = [c for c in _failed(_checks(broken, sandbox="none")) if "provisioning" in c.name]
    assert failed and "ground truth" in failed[0].detail


def test_perturbed_schemas_are_checked_only_when_the_profile_needs_them(
    ready: DataHome, tmp_path: Path
) -> None:
    profile = tmp_path / "probe.toml"
    profile.write_text(
        'format_version = 1\nname = "probe"\ndefault_agent = "oracle"\ntrials = 1\n'
        '[agents.oracle]\nprovider = "builtin"\nmodels = { primary = ["reference"] }\n'
        f'[[blocks]]\nname = "b"\ntasks = ["{TASK}"]\nconditions = ["no-skill"]\n'
        'schemas = ["native", "obfuscated"]\n',
        encoding="utf-8",
    )
    with_profile = run_preflight(
        ready,
        PreflightOptions(sources=dict(SOURCES), profile=str(profile), sandbox="none", lint=False),
    )
    obfuscated = [c for c in with_profile if c.name.endswith("(obfuscated)")]
    assert len(obfuscated) == 1 and not obfuscated[0].ok
    assert "--schema obfuscated" in obfuscated[0].fix
    no_profile = _checks(ready, sandbox="none")
    assert no_profile["perturbed"].detail == "not checked: no --profile given"
    profile.write_text(profile.read_text().replace(', "obfuscated"', ""), encoding="utf-8")
    native_only = _checks(ready, sandbox="none", profile=str(profile))
    assert native_only["perturbed"].detail == (
        "not checked: this profile runs the native schema only"
    )


def test_the_cli_agents_of_a_profile_are_looked_up(ready: DataHome, tmp_path: Path) -> None:
    profile = tmp_path / "agents.toml"
    profile.write_text(
        'format_version = 1\nname = "agents"\ndefault_agent = "codex"\ntrials = 1\n'
        '[agents.codex]\nprovider = "openai"\nmodels = { primary = ["gpt-x"] }\n'
        '[agents.claude-code]\nprovider = "anthropic"\nmodels = { primary = ["opus"] }\n'
        f'[[blocks]]\nname = "b"\ntasks = ["{TASK}"]\nconditions = ["no-skill"]\n',
        encoding="utf-8",
    )
    options = PreflightOptions(sources=dict(SOURCES), profile=str(profile), lint=False)
    checks = {c.name: c for c in run_preflight(ready, options)}
    programs = checks["agent programs"]
    installed = shutil.which("codex", path="/usr/local/bin:/usr/bin:/bin") is not None
    assert programs.ok == installed
    if not installed:
        assert "program 'codex' not found" in programs.detail
        assert "docs/agents.md" in programs.fix
    chosen = PreflightOptions(
        sources=dict(SOURCES), profile=str(profile), lint=False, agents=("claude-code",)
    )
    claude = {c.name: c for c in run_preflight(ready, chosen)}["agent programs"]
    assert claude.ok == (shutil.which("claude", path="/usr/local/bin:/usr/bin:/bin") is not None)
    assert "codex" not in claude.detail
    docker = check_agent_programs(["codex", "oracle"], "docker")
    assert docker.ok and docker.detail == "codex: provided by the docker image, not looked up here"
    assert "agent" not in _checks(ready, sandbox="none")


def test_a_backend_that_cannot_start_is_a_failed_check(ready: DataHome) -> None:
    """Docker without a daemon (or without docker) fails its check instead of raising."""
    check = check_sandbox("docker", ready, None)
    assert check.name == "sandbox docker and its canary"
    assert check.ok or (check.detail and check.fix)


def test_an_unisolated_sandbox_fails(ready: DataHome) -> None:
    sandbox = _checks(ready, sandbox="none")["sandbox"]
    assert not sandbox.ok and "isolates nothing" in sandbox.detail


def test_results_directory_must_be_fresh_or_this_profiles_campaign(
    ready: DataHome, tmp_path: Path
) -> None:
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("x", encoding="utf-8")
    check = _checks(ready, sandbox="none", results=stray)["results"]
    assert not check.ok and "holds no campaign" in check.detail

    other = tmp_path / "other"
    other.mkdir()
    (other / "campaign.json").write_text('{"profile": "paper-primary"}', encoding="utf-8")
    assert not check_results_dir(other, "paper-controls").ok
    resumable = check_results_dir(other, "paper-primary")
    assert resumable.ok and "resumable" in resumable.detail

    fresh = _checks(ready, sandbox="none", results=tmp_path / "fresh")["results"]
    assert fresh.ok and fresh.detail == "fresh"


def test_a_catalog_lint_error_fails_with_the_lint_command(tmp_path: Path) -> None:
    root = tmp_path / "catalog"
    for family in ("meld", "kdigo"):  # two families that decoy each other lint clean
        shutil.copytree(CATALOG_ROOT / family, root / family)
    instruction = next(root.glob("*/" + TASK + "/instruction.md"))
    instruction.write_text(
        instruction.read_text(encoding="utf-8") + "\nSELECT * FROM mimiciv_derived.meld;\n",
        encoding="utf-8",
    )
    check = check_catalog_lint(root=root)
    assert not check.ok
    assert "m4bench tasks lint" in check.fix
    assert TASK in check.detail


def test_the_model_endpoint_is_checked_when_given() -> None:
    import http.server
    import socket
    import threading

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            return

    server = http.server.HTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        up = check_endpoint(f"http://127.0.0.1:{server.server_port}/v1")
    finally:
        server.shutdown()
        server.server_close()
    assert up.ok and "answered (HTTP 404)" in up.detail
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    down = check_endpoint(f"http://127.0.0.1:{closed}/v1", timeout=2)
    assert not down.ok and "start the model server" in down.fix
    assert f"127.0.0.1:{closed}/v1/models" in down.detail
