"""Agent adapters: how to start each agent, where its skills go, how to read its trace.

Public API::

    adapter = get_adapter("codex")           # claude-code, codex, gemini-cli, mini-swe-agent, react
    ctx = AgentContext(workdir=..., instruction_path=..., model=..., credentials={...})
    adapter.prepare(ctx, host_workdir)       # control files (e.g. settings) + skills dir
    argv, env = adapter.command(ctx), adapter.environment(ctx)
    summary = adapter.parse_trace(trace)     # TraceSummary with disjoint token buckets
    trajectory = adapter.to_atif(trace, context)  # valid ATIF v1.6 (atif.Trajectory)

This layer imports nothing from provisioning, tasks, scoring or the sandbox. The
react agent itself lives in ``m4bench.agents.react`` and is import-light on purpose.
"""
