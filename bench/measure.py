"""Measuring one step as its own process: wall time, CPU time and peak RSS from the kernel.

Every engine is timed the same way (a child process, ``os.wait4`` for its resource usage), so
JVM start-up, imports and page-cache effects are counted alike for Anserini, our path and the
pure-Python engine. CPU seconds are reported beside wall seconds because the benchmark machine
may be shared: wall time moves with the load, CPU time much less.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Measured:
    """One finished child process."""

    command: list[str]
    seconds: float  # wall clock, start to exit
    cpu_seconds: float  # user + system of the child and its descendants
    peak_rss_mib: float  # the largest resident set of the child (or of one waited-for descendant)
    stdout: str
    stderr: str
    result: dict = field(default_factory=dict)  # the JSON a bench worker printed last, if any


class StepFailed(RuntimeError):
    pass


def run_measured(command: list[str], *, env: dict[str, str] | None = None, cwd: Path = ROOT,
                 timeout: float | None = None, poll: float = 0.25) -> Measured:
    """Run ``command`` to completion and measure it; raise StepFailed (with its stderr) on failure.

    CPU time and the single-process peak come from ``os.wait4`` (the kernel's accounting of the
    child and its reaped descendants); the peak of the whole process tree at once (parallel
    shard builders) is sampled from /proc, and the larger of the two is reported.
    """
    import tempfile
    import threading

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})}, stdout=out, stderr=err,
                                text=True)
        tree_peak = [0.0]
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                tree_peak[0] = max(tree_peak[0], tree_rss_mib(proc.pid))
                done.wait(poll)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            done.set()
            watcher.join()
            if timer:
                timer.cancel()
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        tail = "\n".join(stderr.strip().splitlines()[-15:])
        raise StepFailed(f"{' '.join(command[:6])} … exited with {proc.returncode}:\n{tail}")
    peak = max(usage.ru_maxrss / 1024, tree_peak[0])
    return Measured(command, seconds, usage.ru_utime + usage.ru_stime, peak, stdout, stderr, _last_json(stdout))


def tree_rss_mib(pid: int) -> float:
    """Resident set of a process and all its descendants, in MiB (0 when it is gone)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total / 1024


def _last_json(stdout: str) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return {}
    return {}


def python_command(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


def directory_mib(path: Path) -> float:
    """Size of a file, or of all files under a directory, in MiB."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size / 2**20
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")


def log_interval(log: str, start_marker: str, end_marker: str) -> float | None:
    """Seconds between the log4j lines containing two markers (Anserini logs with milliseconds)."""
    start = end = None
    for line in log.splitlines():
        m = _LOG_TIME.match(line)
        if not m:
            continue
        stamp = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
        if start is None and start_marker in line:
            start = stamp
        if end_marker in line:
            end = stamp
    if start is None or end is None:
        return None
    return (end - start).total_seconds()
