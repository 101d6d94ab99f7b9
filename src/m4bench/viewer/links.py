"""Where the viewer's pages are, and links into them that other pages may write.

The index reads its filters from the link's fragment, ``index.html#task=...&model=...``
(values percent-encoded), so a link selects the runs of one cell without a server.
The analysis report writes such links when a view sits beside it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from urllib.parse import quote

VIEW_DIR = "view"
"""The folder of a view beside an analysis report (``analyze --view`` writes it)."""
INDEX_FILE = "index.html"
RUN_PAGES_DIR = "run"
MANIFEST_FILE = "view.json"

FILTERS = ("task", "condition", "schema", "agent", "model", "status")
"""The facets the index filters by, in the order it shows them."""

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,150}")


def index_link(index_href: str, filters: Mapping[str, str]) -> str:
    """``index_href`` filtered to ``filters`` (facet -> value, facets of :data:`FILTERS`)."""
    unknown = sorted(set(filters) - set(FILTERS))
    if unknown:
        raise ValueError(f"the index filters by {', '.join(FILTERS)}, not {', '.join(unknown)}")
    parts = [f"{name}={quote(filters[name], safe='')}" for name in FILTERS if name in filters]
    return f"{index_href}#{'&'.join(parts)}" if parts else index_href


def page_name(run_id: str) -> str:
    """The file name of a run's page: the run id when it is a safe file name (every id
    m4bench makes is), else a slug of it and a hash, so no id can name a path."""
    if _SAFE.fullmatch(run_id) and not run_id.endswith("."):
        return f"{run_id}.html"
    digest = hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", run_id)[:80].strip("._") or "run"
    return f"{slug}-{digest}.html"
