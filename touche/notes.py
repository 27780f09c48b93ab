"""Notes about one topic of a batch (a query that analyses to nothing, one cut to its first words,
one that cannot be formulated): the batch goes on, and the note says which topic.

Every such note goes through ``topic_note``: it names the topic as its caller knows it (the
PyTerrier layer numbers a frame's qids ``x1``, ``q9`` … 1, 2 … for the gate, and a note once
said "topic 5" for the user's q9), and where the caller asks (``topic_notes(warn=True)``: a
PyTerrier transformer) it is a Python warning too, which ``warnings.catch_warnings`` and a
notebook show, besides the log line every command prints.
"""
from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

_context: ContextVar[tuple[Mapping[str, str], bool]] = ContextVar("touche_topic_notes", default=({}, False))


class TopicNote(UserWarning):
    """A note about one topic of a batch (its query has no results, or was cut); the batch went on."""


@contextmanager
def topic_notes(names: Mapping[str, str] | None = None, *, warn: bool = False) -> Iterator[None]:
    """Within it, notes name topic ``n`` as ``names[n]`` (the caller's own id) and, with ``warn``,
    are Python warnings as well as log lines."""
    outer_names, outer_warn = _context.get()
    token = _context.set(({**outer_names, **(names or {})}, warn or outer_warn))
    try:
        yield
    finally:
        _context.reset(token)


def topic_name(qid: str) -> str:
    """How the user knows topic ``qid`` here."""
    return _context.get()[0].get(qid, qid)


def topic_note(logger: logging.Logger, qid: str, text: str) -> str:
    """Say ``text`` about topic ``qid`` (``warning: topic q9: <text>``); returns what was said."""
    names, warn = _context.get()
    message = f"topic {names.get(qid, qid)}: {text}"
    logger.warning("warning: %s", message)
    if warn:
        warnings.warn(message, TopicNote, stacklevel=3)
    return message
