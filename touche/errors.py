"""User-facing errors: each names the file, the line or record, and what was expected.

The CLI prints ``str(error)`` and exits non-zero; a traceback is shown only with ``--debug``.
"""
from __future__ import annotations

import os


class ToucheError(Exception):
    """An error the user can fix (bad input, bad config, missing tool)."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | os.PathLike[str] | None = None, where: str | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.where = where
        super().__init__(self.__str__())

    def __str__(self) -> str:
        location = ""
        if self.path:
            location = self.path + (f", {self.where}" if self.where else "") + ": "
        elif self.where:
            location = self.where + ": "
        return location + self.message


class ConfigError(ToucheError):
    """A run-variant YAML file is malformed, has an unknown key or a value out of range."""


class InputError(ToucheError):
    """A corpus, topics, qrels or run file does not have the expected format."""


class EnvironmentProblem(ToucheError):
    """Java, the Lucene jar or another required tool is missing or of the wrong version."""

    exit_code = 3


class Terminated(KeyboardInterrupt):
    """SIGTERM (a job scheduler's stop, ``kill``) turned into an interruption, so that what a command
    holds is released on the way out (its lock, its temporaries) as after Ctrl-C, and it says so."""

    exit_code = 143  # 128 + SIGTERM, as a shell reports a process the signal ended
