"""``m4bench view``: a results folder as a static site, one page per run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from m4bench.cli.common import make_console
from m4bench.viewer import DEFAULT_PORT, VIEW_DIR, build_view, server_url, view_server


def view_command(
    results: Annotated[
        Path,
        typer.Argument(
            help="A campaign's results folder, a folder `m4bench run --results` wrote, "
            "or one run's folder."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help=f"Folder of the site (default: RESULTS/{VIEW_DIR})."),
    ] = None,
    serve: Annotated[
        bool, typer.Option("--serve", help="Serve the site on 127.0.0.1 until Ctrl-C.")
    ] = False,
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="Port to serve on (0: a free one)."),
    ] = DEFAULT_PORT,
    with_truth: Annotated[
        bool,
        typer.Option(
            "--with-truth",
            help="Also show the truth's values of disagreements and missing keys "
            "(the pages are then not for sharing).",
        ),
    ] = False,
) -> None:
    """Write a browsable view of every run: trajectory, output against the truth, score,
    isolation verdicts, usage. Works offline from the files; --serve serves them."""
    console = make_console()
    built = build_view(results, out or results / VIEW_DIR, with_truth=with_truth)
    console.print(f"wrote {len(built.pages)} run pages and {built.index}", highlight=False)
    if built.unreadable:
        console.print(
            f"{built.unreadable} records could not be read; the index lists them",
            highlight=False,
        )
    if built.with_truth:
        console.print("the pages show truth values: do not share them", highlight=False)
    if not serve:
        return
    server = view_server(built.out, port)
    console.print(f"serving {server_url(server)} (Ctrl-C stops)", highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        console.print("stopped", highlight=False)
    finally:
        server.server_close()
