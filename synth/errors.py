"""Errors that end a command, each with its documented exit code.

Exit codes (README, "Exit codes"):
  0  success (raised and validated / equivalent)
  1  internal error (a bug in synth, or a crash inside MLIR that is not the input's fault)
  2  bad or unsupported input, with a FILE:LINE:COL message where one is known
  3  no equivalent program found within the budget (nothing written)
  4  not equivalent (synth verify), with a counterexample
  130 interrupted (Ctrl-C; synth.cli.main)
"""

from __future__ import annotations


class SynthError(Exception):
    exit_code = 1

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


class InputError(SynthError):
    """The input file cannot be read, parsed, or is outside what synth supports."""

    exit_code = 2


class NoSolutionError(SynthError):
    """The search found no equivalent program within its budget."""

    exit_code = 3


class NotEquivalentError(SynthError):
    """Validation found inputs on which two programs differ."""

    exit_code = 4


class ExecutionError(SynthError):
    """Compiling or running generated IR failed (including a crash of the MLIR worker)."""

    exit_code = 1


class CallTimeout(ExecutionError):
    """A backend's compile or call took longer than its limit (`synth bench --call-timeout`):
    the worker running it was stopped, or, for a call made in this process (XLA), the call
    is not repeated. `limit`: the limit in seconds."""

    def __init__(self, message: str, limit: float):
        super().__init__(message)
        self.limit = limit
