"""What each mutant did, kept by the content it was judged on: a mutant's result is reused while
its module's source, its tests' node ids and their files (with the conftest) are unchanged, so a
rerun runs only what an edit could have changed. Equivalent mutants (no input tells them apart
from the code) are read from ``bench/mutation/equivalent/<module>.yaml``, each with why."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bench.mutation.sites import Mutant

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / ".mutation-cache" / "results.jsonl"
EQUIVALENT_FOLDER = Path(__file__).resolve().parent / "equivalent"
KILLING = ("killed", "timeout", "crashed")


def equivalents(modules: list[str] | None = None) -> dict[str, str]:
    """Every listed equivalent mutant's key → why (one file per module): of ``modules`` only, when
    given, so a run is not stopped by another module's file being edited."""
    known: dict[str, str] = {}
    for path in sorted(EQUIVALENT_FOLDER.glob("*.yaml")):
        if modules is not None and path.stem not in modules:
            continue
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise SystemExit(f"{path}: not valid YAML: {exc}") from None
        for entry in data.get("equivalent") or []:
            if not entry["key"].startswith(path.stem + ":"):
                raise SystemExit(f"{path}: {entry['key']} is not a mutant of {path.stem}")
            known[entry["key"]] = entry["why"]
    return known


def stale_equivalents(module: str, mutants: list[Mutant], known: dict[str, str]) -> list[str]:
    """The listed equivalents of ``module`` that name none of its mutants today: an edit changed
    the line a key is built from. A stale entry would hide a new survivor that comes to bear its
    key, so the run reports it and fails; the suite does not (an edit that keeps behaviour turns
    no test red)."""
    today = {m.key for m in mutants}
    return sorted(key for key in known if key.split(":", 1)[0] == module and key not in today)


def judged_on(mutant: Mutant, source: str, tests: list[str]) -> str:
    """The key of what a result depends on: the mutant, its module's source, its tests and
    their files' content."""
    digest = hashlib.sha256()
    for part in (mutant.key, str(mutant.index), source, *sorted(tests)):
        digest.update(part.encode() + b"\0")
    for test_file in sorted({t.split("::", 1)[0] for t in tests} | {"tests/conftest.py"}):
        path = ROOT / test_file
        digest.update(path.read_bytes() if path.is_file() else b"-")
    return digest.hexdigest()[:24]


class Store:
    """The cache: one JSON line per result, the last line of a key winning."""

    def __init__(self, path: Path = RESULTS, *, fresh: bool = False):
        self.path = path
        self.known: dict[str, dict] = {}
        if path.is_file() and not fresh:
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    self.known[entry["key"]] = entry
                except (ValueError, KeyError):
                    continue  # a torn last line of an interrupted run

    def get(self, key: str) -> dict | None:
        return self.known.get(key)

    def put(self, key: str, outcome: str, seconds: float) -> None:
        entry = {"key": key, "outcome": outcome, "seconds": round(seconds, 3)}
        self.known[key] = entry
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


@dataclass
class ModuleResult:
    module: str
    sites: int = 0
    killed: int = 0
    not_covered: list[Mutant] = field(default_factory=list)
    survived: list[Mutant] = field(default_factory=list)
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)
    not_applied: list[Mutant] = field(default_factory=list)
    listed_but_killed: list[tuple[Mutant, str]] = field(default_factory=list)  # a test told it apart after all
    stale: list[str] = field(default_factory=list)  # listed equivalents that name no mutant of today's module
    seconds: float = 0.0
    cached: int = 0

    @property
    def counted(self) -> int:
        return self.sites - len(self.equivalent)

    @property
    def score(self) -> float:
        return self.killed / self.counted if self.counted else float("nan")
