"""Whether an agent has the credentials it needs, checked before runs start.

An agent's adapter names the environment variables its key may come in
(``credential_env``); the runner passes the ones that are set (from the environment, or
the ones a caller gives) and nothing else. One of them must be set, or every run of the
agent would end ``auth_error`` at its first request.

The built-in ``react`` agent talks to an OpenAI-compatible server; a local one (Ollama,
vLLM, llama.cpp on this machine or the local network: a loopback or private address,
or ``localhost``) usually needs no key, so none is asked for there. A remote server
that needs none takes any placeholder (``M4BENCH_REACT_API_KEY=none``).

Messages name the variables and the agent, never a value.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from m4bench.agents.base import AgentAdapter

REACT = "react"


def is_local_endpoint(endpoint: str) -> bool:
    """Whether ``endpoint`` is a server on this machine or the local network."""
    host = (urlsplit(endpoint).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def missing_credentials(
    agent: str,
    adapter: AgentAdapter,
    endpoint: str | None = None,
    given: Mapping[str, str] | None = None,
) -> str | None:
    """What ``agent`` lacks, in words (None when it has what it needs): one of its
    credential variables set in ``given`` (default: the environment)."""
    names = tuple(adapter.credential_env)
    pool = os.environ if given is None else given
    if not names or any(pool.get(name) for name in names):
        return None
    if agent == REACT and (endpoint is None or is_local_endpoint(endpoint)):
        return None  # a local server needs no key; no endpoint is refused elsewhere
    either = " or ".join(names)
    return f"agent {agent}: no API key: {either} is not set"


def credential_source(
    agent: str,
    adapter: AgentAdapter,
    endpoint: str | None = None,
    given: Mapping[str, str] | None = None,
) -> str:
    """Where ``agent``'s key comes from, in words, for a check that passed."""
    pool = os.environ if given is None else given
    found = [name for name in adapter.credential_env if pool.get(name)]
    if found:
        return f"{agent}: {found[0]} set"
    if not adapter.credential_env:
        return f"{agent}: needs no key"
    return f"{agent}: no key needed for the local endpoint {endpoint}"
