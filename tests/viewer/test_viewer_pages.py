"""The viewer's pages built from hand-made runs: hostile text stays text, truth stays
out unless asked for, pages stay bounded, and the folder is written safely."""

from __future__ import annotations

import os
import re
import stat
import threading
import urllib.request
from pathlib import Path

import pytest
from result_records import record, score
from viewer_runs import (
    HOSTILE,
    TRUTH_KEY,
    TRUTH_VALUE,
    hostile_run,
    pages_of,
    run_with_diff,
    spec,
    trajectory,
    write_run,
)

from m4bench.errors import M4BenchError
from m4bench.fileio import write_model
from m4bench.viewer import build_view, index_link, page_name, server_url, view_server
from m4bench.viewer.collect import collect


def test_agent_text_is_rendered_as_text_everywhere(tmp_path: Path) -> None:
    hostile_run(tmp_path / "results")
    built = build_view(tmp_path / "results", tmp_path / "view")
    pages = pages_of(built.out)
    [run_page] = [text for name, text in pages.items() if name.startswith("run/")]
    assert "<script" not in run_page and "<img" not in run_page
    assert run_page.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") >= 5
    assert "SELECT &#x27;&lt;script&gt;" in run_page  # the query, shown as code
    index = pages["index.html"]
    assert index.count("<script") == 1 and "<img" not in index  # the index's own script only
    assert 'data-agent="evil&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"' in index
    # The policy runs no script but the page's own: inline script needs its hash.
    assert "script-src &#x27;none&#x27;" in run_page
    assert re.search(r"script-src &#x27;sha256-[A-Za-z0-9+/=]+&#x27;", index)


@pytest.mark.parametrize("with_diff", [True, False], ids=["diff", "score-samples"])
def test_no_truth_value_reaches_a_page_without_with_truth(tmp_path: Path, with_diff: bool) -> None:
    results = tmp_path / "results"
    if with_diff:
        run_with_diff(results)
    else:
        from viewer_runs import scored_with_truth

        write_run(results, record(spec(), scored=scored_with_truth()), {})
    shared = build_view(results, tmp_path / "shared")
    text = "".join(pages_of(shared.out).values())
    assert TRUTH_VALUE not in text and TRUTH_KEY not in text
    assert "30000001" in text and "5.0" in text  # the disagreement's key and agent value
    assert "missing keys: 1" in text
    private = build_view(results, tmp_path / "private", with_truth=True)
    text = "".join(pages_of(private.out).values())
    assert TRUTH_VALUE in text and TRUTH_KEY in text
    assert "do not share" in pages_of(private.out)["index.html"]
    # pages meant for sharing are readable as any new file; truth-bearing ones private
    umask = os.umask(0)
    os.umask(umask)
    for built, mode in ((shared, 0o666 & ~umask), (private, 0o600)):
        for page in [built.index, *built.pages]:
            assert stat.S_IMODE(page.stat().st_mode) == mode, page


def test_a_rebuild_without_truth_replaces_every_page(tmp_path: Path) -> None:
    results = tmp_path / "results"
    run_with_diff(results)
    build_view(results, tmp_path / "view", with_truth=True)
    build_view(results, tmp_path / "view")
    assert TRUTH_VALUE not in "".join(pages_of(tmp_path / "view").values())


def test_huge_observations_and_long_trajectories_are_cut_with_a_note(tmp_path: Path) -> None:
    big = "row," * 5_000
    steps = [{"source": "user", "message": "go"}] + [
        {"source": "agent", "message": f"step {i}",
         "tool_calls": [{"tool_call_id": f"c{i}", "function_name": "bash",
                         "arguments": {"command": "cat big.csv"}}],
         "observation": {"results": [{"source_call_id": f"c{i}", "content": big}]}}
        for i in range(250)
    ]  # fmt: skip
    write_run(tmp_path / "results", record(spec(), scored=score(1.0)),
              {"trajectory.json": trajectory(steps)})  # fmt: skip
    built = build_view(tmp_path / "results", tmp_path / "view")
    page = built.pages[0].read_text(encoding="utf-8")
    assert len(page) < 2_000_000  # 5 MB of observations in the trajectory
    assert "more characters not shown" in page
    assert re.search(r"… [\d,]+ more steps not shown", page)


def test_the_index_lists_every_run_with_its_facets_and_a_page(tmp_path: Path) -> None:
    results = tmp_path / "results"
    for condition in ("no-skill", "with-skill"):
        for agent in ("oracle", "codex"):
            write_run(
                results, record(spec(agent=agent, condition=condition), scored=score(0.5)), {}
            )
    (results / "broken").mkdir()
    (results / "broken" / "result.json").write_text("{}", encoding="utf-8")
    built = build_view(results, tmp_path / "view")
    index = built.index.read_text(encoding="utf-8")
    hrefs = re.findall(r'<a href="(run/[^"]+)"', index)
    assert len(hrefs) == 4 and all((built.out / href).is_file() for href in hrefs)
    assert index.count('data-condition="with-skill"') == 2
    assert "broken" in index and "no format_version" in index  # listed, not fatal
    assert built.unreadable == 1


def test_links_into_the_index_encode_each_value() -> None:
    link = index_link("view/index.html", {"model": "a&b c", "task": "t#1"})
    assert link == "view/index.html#task=t%231&model=a%26b%20c"
    with pytest.raises(ValueError, match="reward"):
        index_link("index.html", {"reward": "1"})
    assert page_name("../../etc/passwd").endswith(".html")
    assert "/" not in page_name("../../etc/passwd")


def test_an_artifact_path_leaving_the_run_folder_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    made = write_run(tmp_path / "results", record(spec()), {"instruction.md": "fine"})
    moved = made.artifacts["instruction.md"].model_copy(update={"path": "../../secret.md"})
    made = made.model_copy(update={"artifacts": {"instruction.md": moved}})
    write_model(tmp_path / "results" / made.run_id / "result.json", made)
    [view] = collect(tmp_path / "results", with_truth=False).runs
    assert view.instruction is None
    assert any("leads outside the run's folder" in note for note in view.notes)


def test_an_invalid_trajectory_is_shown_as_escaped_text(tmp_path: Path) -> None:
    write_run(tmp_path / "results", record(spec()),
              {"trajectory.json": f'{{"steps": "{HOSTILE.replace(chr(34), "")}"}}'})  # fmt: skip
    built = build_view(tmp_path / "results", tmp_path / "view")
    page = built.pages[0].read_text(encoding="utf-8")
    assert "not a valid ATIF trajectory" in page and "<script" not in page


def test_the_out_folder_is_refused_when_it_holds_other_files(tmp_path: Path) -> None:
    write_run(tmp_path / "results", record(spec()), {})
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(M4BenchError, match="holds other files"):
        build_view(tmp_path / "results", tmp_path / "busy")
    with pytest.raises(M4BenchError, match="no result records"):
        build_view(tmp_path / "busy", tmp_path / "view")


def test_a_rebuild_removes_pages_of_runs_no_longer_there(tmp_path: Path) -> None:
    results = tmp_path / "results"
    kept = write_run(results, record(spec(trial=1)), {})
    gone = write_run(results, record(spec(trial=2)), {})
    build_view(results, tmp_path / "view")
    (results / gone.run_id / "result.json").unlink()
    built = build_view(results, tmp_path / "view")
    assert sorted(p.name for p in (tmp_path / "view" / "run").iterdir()) == [page_name(kept.run_id)]
    assert built.pages == [tmp_path / "view" / "run" / page_name(kept.run_id)]


def test_the_server_listens_on_localhost_only(tmp_path: Path) -> None:
    write_run(tmp_path / "results", record(spec()), {})
    built = build_view(tmp_path / "results", tmp_path / "view")
    server = view_server(built.out, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = server_url(server)
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b"m4bench runs" in response.read()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_command_writes_the_view_beside_the_results(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from m4bench.cli import app

    run_with_diff(tmp_path / "results")
    done = CliRunner().invoke(app, ["view", str(tmp_path / "results")])
    assert done.exit_code == 0, done.output
    assert "wrote 1 run pages" in done.output
    assert (tmp_path / "results" / "view" / "index.html").is_file()
    again = CliRunner().invoke(app, ["view", str(tmp_path / "results"), "--with-truth"])
    assert again.exit_code == 0 and "do not share" in again.output
