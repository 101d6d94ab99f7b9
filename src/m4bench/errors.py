"""Errors a user can act on: every one says what went wrong and what to do."""

from __future__ import annotations


class M4BenchError(Exception):
    """A failure caused by input or environment, reported without a traceback.

    ``hint`` says what to do about it; the CLI prints it after the message.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message
