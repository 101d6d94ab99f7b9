"""How the sandbox's egress proxy marks its own 502 (an allowlisted upstream it could not
reach), so a client can tell it from a 502 of the server itself without reading text.

Shared by the proxy (``m4bench.sandbox.egress``), which sets it, and the react agent's
client (``m4bench.agents.react.client``), which reads it inside the sandbox: this module
is mounted there with the agent, so it imports nothing.
"""

UNREACHABLE_HEADER = "X-M4bench-Egress"
UNREACHABLE_VALUE = "upstream-unreachable"
