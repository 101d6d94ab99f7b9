"""``m4bench concepts``: list, graph, build and document the derived concept library."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from m4bench.cli.common import HomeOption, make_console, resolve_home
from m4bench.concepts.build import BuildEvent, build_concepts
from m4bench.concepts.docs import write_docs
from m4bench.concepts.graph import layers, to_dot
from m4bench.concepts.library import ConceptLibrary
from m4bench.sources.defaults import choose_source
from m4bench.sources.layout import load_source

app = typer.Typer(help="The derived concept library (mimiciv_derived).", no_args_is_help=True)


@app.command("list")
def list_concepts(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List every concept with its category, grain and inputs."""
    library = ConceptLibrary.load()
    records = [
        {
            "name": c.name,
            "category": c.category,
            "grain": c.header.grain,
            "summary": c.header.summary,
            "dependencies": list(c.dependencies),
            "source_tables": list(c.source_tables),
            "path": str(c.path),
        }
        for c in library.order()
    ]
    if as_json:
        typer.echo(json.dumps(records, indent=2))
        return
    table = Table("concept", "category", "grain", "reads")
    for record in records:
        reads = [*record["dependencies"], *record["source_tables"]]
        table.add_row(
            str(record["name"]),
            str(record["category"]),
            str(record["grain"]),
            ", ".join(map(str, reads)),
        )
    make_console().print(table)


@app.command("graph")
def graph(
    dot: Annotated[bool, typer.Option("--dot", help="Print Graphviz DOT.")] = False,
) -> None:
    """Show the dependency graph: build layers as text, or Graphviz DOT."""
    library = ConceptLibrary.load()
    if dot:
        categories = {name: c.category for name, c in library.concepts.items()}
        typer.echo(to_dot(library.edges(), categories), nl=False)
        return
    for index, layer in enumerate(layers(library.edges())):
        typer.echo(f"layer {index}:")
        for name in layer:
            deps = library.get(name).dependencies
            typer.echo(f"  {name}" + (f"  <- {', '.join(deps)}" if deps else ""))


@app.command("build")
def build(
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Source to build into (default: the synthetic MIMIC-IV source when built, "
            "else the only MIMIC-IV source).",
        ),
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Build only this concept (and its inputs).")
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Concepts built at once.")] = 2,
    home: HomeOption = None,
) -> None:
    """Materialize the concepts into a source's mimiciv_derived schema, incrementally."""
    data_home = resolve_home(home)
    loaded = load_source(data_home, source or choose_source(data_home, "mimic-iv"))
    events: list[BuildEvent] = []
    manifest = build_concepts(loaded, only=only, jobs=jobs, progress=True, on_event=events.append)
    built = [e for e in events if e.action == "built"]
    slowest = sorted(built, key=lambda e: -e.seconds)[:5]
    typer.echo(
        f"{len(built)} built, {len(events) - len(built)} up to date; "
        f"{len(manifest.concepts)} concepts in {loaded.layout.root / 'concepts.json'}"
    )
    for event in slowest:
        typer.echo(f"  {event.name}: {event.seconds:.2f} s")


@app.command("docs")
def docs(
    output: Annotated[Path, typer.Option("--output", "-o", help="Markdown file to write.")] = Path(
        "docs/concepts.md"
    ),
    source: Annotated[
        str | None, typer.Option("--source", help="Take columns from this built source.")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Write the concept reference page (columns from a dry run unless --source is given)."""
    library = ConceptLibrary.load()
    loaded = load_source(resolve_home(home), source) if source else None
    write_docs(output, library, loaded)
    typer.echo(f"wrote {output} ({len(library.concepts)} concepts)")
