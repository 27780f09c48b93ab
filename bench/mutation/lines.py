"""Which tests execute which lines: coverage.py with one dynamic context per test (its pytest node
id, set by ``bench.mutation.contexts`` around the test's setup, call and teardown, as pytest-cov's
``--cov-context=test`` does), and each test's time.

The map is kept per test file in ``.mutation-cache/lines/``, keyed by the file's content and the
conftest's, and records the content of every measured module the file's tests executed: a test
file is measured again when it changed. When a module it executed changed since, its lines are
carried to where they are now (difflib: an unchanged line keeps its tests, an edited block gets
the tests that reached the lines it replaced), so an edit of a module does not cost measuring the
whole suite again; ``--remeasure`` measures every file again, for an exact map. Lines executed
outside any test (a module imported, a test file collected, a session fixture's teardown) are kept
as import time.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".mutation-cache"
BETWEEN = "(between tests)"  # contexts.BETWEEN: run outside any test (a session fixture's teardown)


def _sha(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:20]


def content_of(path: Path) -> str:
    return _sha(path.read_bytes()) if path.is_file() else "-"


def test_files() -> list[str]:
    """The suite's test files (``line_map``'s marker expression leaves the slow tests out: they
    test the wheel and fresh processes, whose code coverage does not see)."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))


@dataclass
class LineMap:
    """{module file: {line: {test node ids}}}, the import-time lines of each file, and each test's
    time in seconds."""
    tests_of: dict[str, dict[int, set[str]]] = field(default_factory=dict)
    import_time: dict[str, set[int]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def tests_for(self, path: Path, lines: range) -> set[str]:
        by_line = self.tests_of.get(str(path), {})
        return set().union(*(by_line.get(line, set()) for line in lines))

    def runs_at_import(self, path: Path, lines: range) -> bool:
        return bool(self.import_time.get(str(path), set()) & set(lines))

    def add(self, data: dict) -> None:
        for name, by_line in data["lines"].items():
            target = self.tests_of.setdefault(name, {})
            for line, tests in by_line.items():
                target.setdefault(int(line), set()).update(tests)
        for name, lines in data["import_time"].items():
            self.import_time.setdefault(name, set()).update(lines)
        self.seconds.update(data["seconds"])


def _entry_path(test_file: str) -> Path:
    # every conftest.py from tests/ down to the file's folder: the fixtures its tests may use
    folders = [ROOT / Path(*Path(test_file).parts[:i]) for i in range(1, len(Path(test_file).parts))]
    conftests = [folder / "conftest.py" for folder in folders if (folder / "conftest.py").is_file()]
    key = _sha(*(c.read_bytes() for c in conftests), test_file.encode(), (ROOT / test_file).read_bytes())
    return CACHE / "lines" / f"{'-'.join(Path(test_file).with_suffix('').parts[1:])}-{key}.json"


def _current(entry: Path, measured: list[Path], exact: bool) -> bool:
    """Whether a cached entry still describes its test file: it measured every module listed now
    and (``exact``) every module its tests executed has the content it had then. Otherwise a
    changed module's lines are carried over to where they are now (``_moved``)."""
    if not entry.is_file():
        return False
    data = json.loads(entry.read_text(encoding="utf-8"))
    if not {str(path) for path in measured} <= set(data.get("measured", ())):  # a module listed since
        return False
    modules = data.get("modules", {})
    changed = [name for name, digest in modules.items() if content_of(Path(name)) != digest]
    return not changed if exact else all((CACHE / "sources" / f"{modules[name]}.py").is_file() for name in changed)


def _moved(by_line: dict[str, list[str]], before: str, now: str) -> dict[str, list[str]]:
    """A module's {line: tests} measured on ``before``, carried to the lines of ``now``: an
    unchanged line keeps its tests; a changed or inserted block gets the tests of the lines it
    replaced or sits between (they are the tests that reach it). Measure again for exactness."""
    import difflib
    old_lines, new_lines = before.splitlines(), now.splitlines()
    out: dict[str, set[str]] = {}
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(i2 - i1):
                tests = by_line.get(str(i1 + offset + 1))
                if tests:
                    out.setdefault(str(j1 + offset + 1), set()).update(tests)
            continue
        reaching = set().union(*(by_line.get(str(i), ()) for i in range(max(1, i1), i2 + 2)))
        for j in range(j1, j2):
            if reaching:
                out.setdefault(str(j + 1), set()).update(reaching)
    return {line: sorted(tests) for line, tests in out.items()}


def line_map(files: list[str], measured: list[Path], *, marker_expression: str = "not slow", remeasure: bool = False,
             say=print) -> tuple[LineMap, float]:
    """The map for ``files`` over the ``measured`` module files, measuring the test files whose
    entry is missing or stale (one pytest process under coverage); the seconds spent measuring."""
    (CACHE / "lines").mkdir(parents=True, exist_ok=True)
    entries = {f: _entry_path(f) for f in files}
    stale = [f for f, entry in entries.items() if remeasure or not _current(entry, measured, exact=False)]
    spent = 0.0
    if stale:
        say(f"measuring which tests execute which lines: {len(stale)} test file(s) under coverage "
            f"({len(files) - len(stale)} cached)")
        spent = _measure(stale, measured, entries, marker_expression)
    result = LineMap()
    now = {str(p): p.read_text(encoding="utf-8") for p in measured}
    for entry in entries.values():
        data = json.loads(entry.read_text(encoding="utf-8"))
        for name, digest in data.get("modules", {}).items():
            if name in now and content_of(Path(name)) != digest:
                before = (CACHE / "sources" / f"{digest}.py").read_text(encoding="utf-8")
                data["lines"][name] = _moved(data["lines"][name], before, now[name])
        result.add(data)
    imports, seconds = import_time_lines(files, measured, say=say)
    for name, lines in imports.items():
        result.import_time.setdefault(name, set()).update(lines)
    return result, spent + seconds


def _coverage_of(arguments: list[str], measured: list[Path], work: Path, extra_env: dict[str, str]):
    """coverage.py's data of ``python -m <arguments>`` over the measured files, and the process."""
    import coverage
    rc = work / "coveragerc"
    data_file = work / "coverage.data"
    include = "\n    ".join(str(p) for p in measured)
    rc.write_text(f"[run]\ndata_file = {data_file}\ninclude =\n    {include}\n", encoding="utf-8")
    env = {**os.environ, **extra_env, "COVERAGE_RCFILE": str(rc)}
    done = subprocess.run([sys.executable, "-m", "coverage", "run", "--rcfile", str(rc), "-m", *arguments],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    data = coverage.CoverageData(basename=str(data_file))
    if data_file.is_file():
        data.read()
    return data, done


def import_time_lines(files: list[str], measured: list[Path], *, say=print) -> tuple[dict[str, set[int]], float]:
    """The lines of each measured module run while the test files are collected (module-level
    statements, functions called as a module loads): a mutant there must be run in a fresh process.
    Kept by the content of every measured module and test file."""
    key = _sha(*(content_of(p).encode() for p in sorted(measured)), *(content_of(ROOT / f).encode() for f in files))
    cached = CACHE / "lines" / f"import-time-{key}.json"
    if cached.is_file():
        return {k: set(v) for k, v in json.loads(cached.read_text(encoding="utf-8")).items()}, 0.0
    say("measuring which lines run while the tests are collected")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="touche-lines-") as work:
        data, done = _coverage_of(["pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files], measured,
                                  Path(work), {})
        if done.returncode not in (0, 5):
            raise SystemExit(f"the tests cannot be collected:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
        lines = {name: sorted(data.lines(name) or ()) for name in data.measured_files()}
    temporary = cached.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(lines), encoding="utf-8")
    temporary.replace(cached)
    return {k: set(v) for k, v in lines.items()}, time.perf_counter() - started


def _measure(stale: list[str], measured: list[Path], entries: dict[str, Path], marker_expression: str) -> float:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="touche-lines-") as work:
        work_path = Path(work)
        seconds_file = work_path / "seconds.json"
        data, done = _coverage_of(["pytest", "-q", "-p", "no:cacheprovider", "-p", "bench.mutation.contexts", "-m",
                                   marker_expression, *stale], measured, work_path,
                                  {"TOUCHE_MUTATION_SECONDS": str(seconds_file)})
        if done.returncode not in (0, 5):  # 5: no test selected in these files
            raise SystemExit(f"the tests fail unmutated, so no mutant can be judged:\n{done.stdout[-4000:]}"
                             f"\n{done.stderr[-2000:]}")
        seconds = json.loads(seconds_file.read_text(encoding="utf-8")) if seconds_file.is_file() else {}
        digests = {str(p): content_of(p) for p in measured}
        (CACHE / "sources").mkdir(parents=True, exist_ok=True)
        for p in measured:  # kept, so that a later version's lines can be matched to these
            kept = CACHE / "sources" / f"{digests[str(p)]}.py"
            if not kept.is_file():
                kept.write_bytes(p.read_bytes())
        per_file: dict[str, dict] = {f: {"lines": {}, "import_time": {}, "seconds": {}, "modules": dict(digests)}
                                     for f in stale}
        for name in data.measured_files():
            for line, contexts in data.contexts_by_lineno(name).items():
                for context in contexts:
                    if context == BETWEEN:  # the session's end: each file of this run may have caused it
                        for entry in per_file.values():
                            entry["import_time"].setdefault(name, []).append(line)
                        continue
                    if context == "":
                        continue  # imports: measured on their own (import_time_lines)
                    owner = context.split("::", 1)[0]
                    if owner in per_file:
                        per_file[owner]["lines"].setdefault(name, {}).setdefault(str(line), []).append(context)
        for nodeid, took in seconds.items():
            owner = nodeid.split("::", 1)[0]
            if owner in per_file:
                per_file[owner]["seconds"][nodeid] = took
    for test_file, entry in per_file.items():
        # only the modules its tests executed decide whether it must be measured again
        entry["modules"] = {name: digest for name, digest in entry["modules"].items() if name in entry["lines"]}
        entry["measured"] = sorted(digests)
        target = entries[test_file]
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(entry), encoding="utf-8")
        temporary.replace(target)
    return time.perf_counter() - started
