"""The docs stay true: every ``m4bench …`` command in a fenced block of the README or a
docs page names a real command and real options, and the cheap ones run."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from synthetic_sources import SyntheticSources
from typer.testing import CliRunner

import m4bench.cli.tasks as cli_tasks
import m4bench.preflight.checks as preflight_checks
from m4bench.cli import app
from m4bench.home import DataHome
from m4bench.tasks.catalog import Catalog
from m4bench.tasks.finding import Finding
from m4bench.tasks.lint import LintReport

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```")
# Commands cheap enough to run for real (no agent, no long build).
RUNNABLE = (
    "tasks list", "tasks show", "tasks lint --no-run", "concepts list", "concepts graph",
    "campaign profiles", "campaign plan", "data list", "data info", "version",
    "evidence verify", "preflight",
)  # fmt: skip


@dataclass(frozen=True)
class DocCommand:
    page: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def doc_commands() -> list[DocCommand]:
    found = []
    for page in PAGES:
        inside, pending, start = False, "", 0
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if FENCE.match(line.strip()):
                inside, pending = not inside, ""
                continue
            if not inside:
                continue
            text = line.strip().removeprefix("$ ")
            if pending:
                text, start = pending + " " + text, start
            elif text.startswith("m4bench "):
                start = number
            else:
                continue
            if text.endswith("\\"):
                pending = text[:-1].strip()
                continue
            pending = ""
            found.append(DocCommand(page.relative_to(ROOT).as_posix(), start, text))
    return found


def _words(text: str) -> list[str]:
    text = text.split("  #", 1)[0].split(" # ", 1)[0]
    text = re.sub(r"\s{2,}\S.*$", "", text) if "  " in text else text
    return [w.strip("[]()") for w in shlex.split(text)[1:] if w.strip("[]()|.")]


def _is_group(command: Any) -> bool:
    return hasattr(command, "commands")


def resolve(words: list[str]) -> tuple[Any, list[str]]:
    """The (vendored click) command the words name, and the words after it."""
    command: Any = typer.main.get_command(app)
    rest = list(words)
    while _is_group(command) and rest and rest[0] in command.commands:
        command = command.commands[rest.pop(0)]
    return command, rest


def _options(command: Any) -> set[str]:
    names: set[str] = set()
    for param in command.params:
        names.update(param.opts)
        names.update(param.secondary_opts)
    return names | {"--help"}


COMMANDS = doc_commands()


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) > 30
    assert any(c.text.startswith("m4bench demo") for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_documented_command_and_options_exist(command: DocCommand) -> None:
    words = _words(command.text)
    resolved, rest = resolve(words)
    assert not _is_group(resolved), f"{command}: no such subcommand"
    known = _options(resolved)
    for word in rest:
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            assert option in known, f"{command}: {resolved.name} has no option {option}"


def _placeholder(word: str) -> bool:
    return word.isupper() or word in ("...", "|") or "|" in word


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    home = DataHome(tmp_path_factory.mktemp("docs-home"))
    synthetic_sources.copy(home, "synthetic-mimic-iv", "mimic-iv", 60, 5)
    return home


RUN = [
    c
    for c in COMMANDS
    if any(" ".join(_words(c.text)).startswith(prefix) for prefix in RUNNABLE)
    and not any(_placeholder(w) for w in _words(c.text))
    and "results/" not in c.text
    and ".tar.zst" not in c.text
]


@pytest.fixture
def linted_once(
    catalog: Catalog, catalog_findings: list[Finding], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tasks lint`` and ``preflight`` print the shared lint of the shipped catalog
    instead of linting it again: the lint itself is proven by tests/tasks/test_task_lint.py
    and its command by tests/tasks/test_task_cli.py; here the documented words must run."""
    report = LintReport(tasks=len(catalog.tasks), findings=catalog_findings)
    monkeypatch.setattr(cli_tasks, "lint_report", lambda **_: report)
    monkeypatch.setattr(preflight_checks, "lint_catalog", lambda *_, **__: catalog_findings)


@pytest.mark.parametrize("command", RUN, ids=str)
@pytest.mark.usefixtures("linted_once")
def test_cheap_documented_commands_run(command: DocCommand, home: DataHome) -> None:
    words = _words(command.text)
    if words[:2] == ["data", "info"]:
        words = [*words[:2], "synthetic-mimic-iv", *words[3:]]
    result = CliRunner().invoke(app, [*words, "--home", str(home.root)] if _takes_home(words)
                                else words)  # fmt: skip
    assert result.exit_code in (0, 1) and "Traceback" not in result.output, (
        f"{command}\n{result.output[-2000:]}"
    )
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), f"{command}: {result.exception!r}"


def _takes_home(words: list[str]) -> bool:
    resolved, _ = resolve(words)
    return "--home" in _options(resolved)
