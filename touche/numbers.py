"""How a number is written in anything a user gives as text: the digits 0-9 only.

Python's ``int()`` and ``float()`` read every script's digits (``int("٣")`` is 3, ``float("１.５")``
1.5), underscores (``1_000``) and surrounding Unicode spaces; trec_eval, Java and a shell read none
of them. ``TOUCHE_PIPE_WAIT=٣`` waited 3 s and ``--depth ٥`` cut at 5, where the same text in a run
file is refused. Every reader of a number in user text (environment settings, command-line
options, YAML's explicit ``!!int``/``!!float``, measure cut-offs, run files and qrels, a WARC
record's length) matches it here first.
"""
from __future__ import annotations

import re

WHOLE = re.compile(r"[+-]?[0-9]+")
# a decimal number as trec_eval's strtod and Python both read it, written in 0-9 only
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
MAX_DIGITS = 100  # int() of thousands of digits is slow and no setting needs so many
BLANKS = " \t\r\n"  # around a value: ASCII blanks only (a shell or editor leaves these)


def is_whole(text: str) -> bool:
    """Whether ``text`` is a whole number in the digits 0-9 (a sign allowed)."""
    return WHOLE.fullmatch(text) is not None


def whole(text: str) -> int:
    """The whole number ``text`` holds (ASCII blanks around it allowed); ValueError for anything
    else, other scripts' digits and ``1_000`` included."""
    core = text.strip(BLANKS)
    if not is_whole(core):
        raise ValueError(f"{text!r} is not a whole number in the digits 0-9")
    if len(core.lstrip("+-")) > MAX_DIGITS:
        raise ValueError(f"{text[:20]!r}… has more than {MAX_DIGITS} digits")
    return int(core)


def decimal(text: str) -> float:
    """The decimal number ``text`` holds (``3``, ``2.5``, ``1e-3``; ASCII blanks around it
    allowed); ValueError for anything else: other scripts' digits, ``1_000``, ``inf``, ``nan``."""
    core = text.strip(BLANKS)
    if DECIMAL.fullmatch(core) is None or len(core) > MAX_DIGITS:
        raise ValueError(f"{text!r} is not a number in the digits 0-9")
    return float(core)
