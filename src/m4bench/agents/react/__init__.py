"""The built-in tool-calling agent for any OpenAI-compatible chat endpoint.

Kept import-light: ``python -m m4bench.agents.react`` runs inside the sandbox.
"""
