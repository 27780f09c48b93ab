"""Progress that suits its stream: tqdm's bar on a terminal; on a file or a pipe (a TIRA log, CI),
plain lines at a modest rate, each with the count, the share done and the time left, and no
carriage returns or cursor codes (tqdm's ``\\r`` redraws filled a TIRA log with one unreadable line).

Every long step of the toolkit asks ``progress_bar(...)`` for its bar, with tqdm's arguments.
``TOUCHE_PROGRESS`` chooses: ``auto`` (by whether standard error is a terminal), ``bar``,
``lines`` or ``off``.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator, Sized
from typing import Any

from touche.settings import setting

LINE_SECONDS = 30.0  # a line at most this often in a log (and one at the end)


def progress_bar(iterable: Iterable | None = None, **options: Any):
    """A progress bar (tqdm's arguments: ``total``, ``desc``, ``unit``, ``disable``, ``leave`` …)
    that draws on a terminal and writes lines elsewhere."""
    mode = setting("TOUCHE_PROGRESS")
    if options.get("desc"):
        options["desc"] = fit_label(options["desc"])
    if mode == "off":
        options["disable"] = True
    if mode == "bar" or (mode == "auto" and _is_terminal(options.get("file") or sys.stderr)):
        from tqdm import tqdm  # here: a command that shows no progress need not load it
        return tqdm(iterable, **options)
    return LineProgress(iterable, **options)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class LineProgress:
    """tqdm's interface (``update``, ``set_postfix_str``, ``close``, iteration, ``with``) written as
    lines: ``indexing args.json: 12,000 of 40,000 docs (30 %), 1,234 docs/s, 23 s left``."""

    def __init__(self, iterable: Iterable | None = None, *, desc: str = "", total: float | None = None,
                 unit: str = "it", disable: bool = False, initial: float = 0, unit_scale: bool = False,
                 file=None, mininterval: float | None = None, **ignored: Any):
        self.iterable = iterable
        self.desc, self.unit, self.disable = fit_label(desc), unit, disable
        self.total = total if total is not None else (len(iterable) if isinstance(iterable, Sized) else None)
        self.n = self.initial = initial
        self.unit_scale = unit_scale
        self.file = file
        self.interval = max(mininterval or 0.0, LINE_SECONDS)
        self.postfix = ""
        self.started = self.last = time.monotonic()
        self.closed = False

    # ------------------------------------------------------------------ tqdm's interface
    def __iter__(self) -> Iterator:
        assert self.iterable is not None, "a bar made without an iterable is updated by hand, not iterated"
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: float = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= self.interval:
            self.last = now
            self._write(self.line(now))

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = fit_label(text)

    def set_description(self, desc: str = "", refresh: bool = True) -> None:
        self.desc = fit_label(desc)

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.n > self.initial or self.total:  # the end of a step said once, with what it took
            self._write(self.line(time.monotonic(), done=True))

    # ------------------------------------------------------------------ the line
    def _amount(self, value: float, per_second: bool = False) -> str:
        """``12,000 docs``, or with ``unit_scale`` ``324.2 kB``; a rate with ``/s``."""
        unit = self.unit.strip() or "it"
        suffix = "/s" if per_second else ""
        if self.unit_scale:
            for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
                if value >= factor:
                    return f"{value / factor:.1f} {prefix}{unit}{suffix}"
            return f"{value:.0f} {unit}{suffix}"
        if per_second:
            return rate(value, unit)
        return f"{value:,.0f} {unit}{suffix}"

    def line(self, now: float, done: bool = False) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = (self.n - self.initial) / elapsed
        head = f"{self.desc}: " if self.desc else ""
        if done:
            text = f"{head}{self._amount(self.n)} in {_duration(elapsed)} ({self._amount(rate, True)})"
        elif self.total:
            left = (self.total - self.n) / rate if rate > 0 else None
            done_part = self._amount(self.n) if self.unit_scale else f"{self.n:,.0f}"
            text = (f"{head}{done_part} of {self._amount(self.total)} ({100 * self.n / self.total:.0f} %), "
                    f"{self._amount(rate, True)}" + (f", {_duration(left)} left" if left is not None else ""))
        else:
            text = f"{head}{self._amount(self.n)}, {self._amount(rate, True)}"
        return text + (f" [{self.postfix}]" if self.postfix else "")

    def _write(self, text: str) -> None:
        if self.disable:
            return
        stream = self.file or sys.stderr
        stream.write(text + "\n")
        stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


LABEL_WIDTH = 90  # a label (a bar's description, what it is at now) at most this wide


def fit_label(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` in at most ``width`` characters, cut between words with an ellipsis (a sweep point's
    settings cut at 90 characters once read ``analyzer.stemmer=kro``)."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > width // 2 else cut).rstrip(" ,;:") + "…"


def rate(per_second: float, unit: str) -> str:
    """A rate a person reads at any speed: ``1,234 docs/s``, ``2.5 runs/s``; below one a second, per
    minute or as seconds each (a sweep's 0.1 points a second read "0 run/s")."""
    unit = unit.strip() or "it"
    if per_second >= 10:
        return f"{per_second:,.0f} {unit}/s"
    if per_second >= 1:
        return f"{per_second:.1f} {unit}/s"
    if per_second * 60 >= 1:
        return f"{per_second * 60:.1f} {unit}/min"
    if per_second > 0:
        return f"{_duration(1 / per_second)} per {unit}"
    return f"no {unit} yet"
