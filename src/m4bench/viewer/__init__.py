"""The run viewer: a static site of a results folder, one page per run.

It reads records and artifacts through :mod:`m4bench.results` only (and the scoring and
ATIF models inside them), never the campaign or the runner that wrote them. Public API::

    build_view(results, out, with_truth=False) -> BuiltView   # index.html, run/*.html
    view_server(out, port) -> ThreadingHTTPServer             # 127.0.0.1 only
    index_link("view/index.html", {"task": ..., "model": ...}) # the index on one cell

See ``docs/viewer.md``.
"""

from m4bench.viewer.links import FILTERS, INDEX_FILE, VIEW_DIR, index_link, page_name
from m4bench.viewer.serve import DEFAULT_PORT, server_url, view_server
from m4bench.viewer.site import BuiltView, ViewManifest, build_view

__all__ = [
    "DEFAULT_PORT",
    "FILTERS",
    "INDEX_FILE",
    "VIEW_DIR",
    "BuiltView",
    "ViewManifest",
    "build_view",
    "index_link",
    "page_name",
    "server_url",
    "view_server",
]
