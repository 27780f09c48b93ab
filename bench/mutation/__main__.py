"""``python -m bench.mutation [MODULE ...] [--jobs 2] [--sample N --seed S] [--list] [--fresh]``:
every mutation site of every listed module (bench/mutation/modules.py), each mutant run against
the tests that execute its lines; see bench/mutation/__init__.py and docs/testing.md."""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.mutation.copied import module_path, run_copied
from bench.mutation.lines import LineMap, line_map, test_files
from bench.mutation.modules import LEFT_OUT, MODULES, fallback_tests
from bench.mutation.results import KILLING, ModuleResult, Store, equivalents, judged_on, stale_equivalents
from bench.mutation.sites import Mutant, mutants_of

ROOT = Path(__file__).resolve().parents[2]
TARGET = 0.9  # of a module's non-equivalent mutants killed
EQUIVALENT_SHARE = 0.1  # of a module's sites at most


def _plan(mutant: Mutant, source: str, path: Path, lines: LineMap,
          test_limit: float | None) -> tuple[str, list[str], float]:
    """How the mutant is run ("fork", "fork-then-copy", "copy" or "none": no test executes it), its
    tests (fastest first; those slower than ``test_limit`` seconds left out) and its time limit.
    A site in a function that also runs while the tests are collected (a table built for a
    parametrize) is forked first, where its tests' own calls judge it; only if it survives there
    is it run again in a copy, where the collection sees it too."""
    tests = sorted(lines.tests_for(path, mutant.lines), key=lambda t: (lines.seconds.get(t, 1.0), t))
    if test_limit is not None:
        tests = [t for t in tests if lines.seconds.get(t, 0.0) <= test_limit]
    at_import = mutant.scope is None or lines.runs_at_import(path, mutant.lines)
    if at_import:
        tests = [*tests, *(t for t in fallback_tests(mutant.module, ROOT) if t not in tests)]
    if not tests:
        return "none", [], 0.0
    limit = 3 * sum(lines.seconds.get(t, 5.0) for t in tests) + 30
    if not at_import:
        return "fork", tests, limit
    return ("copy" if mutant.scope is None else "fork-then-copy"), tests, limit


def _run_forked(jobs: list[dict], parallel: int, say) -> list[dict]:
    """The jobs in forked children of one pytest session over their tests' files."""
    if not jobs:
        return []
    with tempfile.TemporaryDirectory(prefix="touche-mutation-") as work:
        work_path = Path(work)
        (work_path / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
        results = work_path / "results.jsonl"
        files = sorted({t.split("::", 1)[0] for job in jobs for t in job["tests"]})
        env = {**os.environ, "TOUCHE_MUTATION_JOBS": str(work_path / "jobs.json"),
               "TOUCHE_MUTATION_RESULTS": str(results), "TOUCHE_MUTATION_PARALLEL": str(parallel),
               "TOUCHE_MUTATION_WORK": str(work_path), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "TOUCHE_PROGRESS": "off"}
        say(f"running {len(jobs)} mutant(s), {parallel} at a time, in forked children of one session over "
            f"{len(files)} test file(s)")
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                               "bench.mutation.forked", "-m", "not slow", *files], cwd=ROOT, env=env)
        if done.returncode not in (0, 5) and not results.is_file():
            raise SystemExit("the forked run failed before any mutant ran (see above)")
        return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()] \
            if results.is_file() else []


def run(modules: list[str], *, parallel: int, sample: int | None, seed: int, fresh: bool,
        test_limit: float | None = 1.0, remeasure: bool = False, say=print) -> dict:
    started = time.perf_counter()
    chosen: dict[str, tuple[Path, str, list[Mutant]]] = {}
    every: dict[str, list[Mutant]] = {}
    for module in modules:
        path = module_path(module)
        source, mutants = mutants_of(module, path)
        every[module] = mutants
        if sample is not None:
            mutants = random.Random(f"{seed}:{module}").sample(mutants, min(sample, len(mutants)))
        chosen[module] = (path, source, mutants)
    # every listed module measured, whichever are run now: one map serves every later run
    lines, measuring = line_map(test_files(), [module_path(m) for m in MODULES], remeasure=remeasure, say=say)
    store, known = Store(fresh=fresh), equivalents(list(chosen))
    report = {m: ModuleResult(m, sites=len(ms)) for m, (_, _, ms) in chosen.items()}
    for module, entry in report.items():
        entry.stale = stale_equivalents(module, every[module], known)
        if entry.stale:  # said now, not only after an hour of mutants
            say(f"{module}: {len(entry.stale)} listed equivalent(s) no longer name a mutant (see the report)")
    forked, copied, keys, cached = [], [], {}, 0

    def settle(mutant: Mutant, outcome: str, seconds: float) -> None:
        entry = report[mutant.module]
        entry.seconds += seconds
        if outcome in KILLING:
            entry.killed += 1
            if mutant.key in known:
                entry.listed_but_killed.append((mutant, outcome))
        elif outcome == "not-applied":
            entry.not_applied.append(mutant)
        elif mutant.key in known:
            entry.equivalent.append((mutant, known[mutant.key]))
        elif outcome == "not-covered":
            entry.not_covered.append(mutant)
        else:
            entry.survived.append(mutant)

    for module, (path, source, mutants) in chosen.items():
        for mutant in mutants:
            how, tests, limit = _plan(mutant, source, path, lines, test_limit)
            if how == "none":
                settle(mutant, "not-covered", 0.0)
                continue
            key = judged_on(mutant, source, tests)
            hit = store.get(key)
            if hit is not None and hit["outcome"] != "error":
                cached += 1
                report[module].cached += 1
                settle(mutant, hit["outcome"], 0.0)
                continue
            keys[key] = (mutant, source, tests, limit)
            job = {"id": key, "mutant": mutant.__dict__, "path": str(path), "tests": tests, "timeout": limit}
            job["then_copy"] = how == "fork-then-copy"
            if job["then_copy"]:  # forked, its covering tests; the fallback files are the copy's
                job["tests"] = [t for t in tests if "::" in t]
            (copied if how == "copy" else forked).append(job)
    say(f"{sum(r.sites for r in report.values())} mutants in {len(chosen)} module(s): {cached} judged before "
        f"(cached), {len(forked)} to run in forked children, {len(copied)} in copies (import-time sites)")
    then_copy = {job["id"]: job.pop("then_copy") for job in forked}
    for job in copied:
        job.pop("then_copy", None)
    for result in _run_forked(forked, parallel, say):
        mutant, source, tests, limit = keys[result["id"]]
        if result["outcome"] == "not-applied" or (result["outcome"] == "survived" and then_copy[result["id"]]):
            # its code could not be swapped in, or collection also runs it: judge it in a copy
            copied.append({"id": result["id"], "mutant": mutant.__dict__, "path": "", "tests": tests,
                           "timeout": limit})
            continue
        store.put(result["id"], result["outcome"], result["seconds"])
        settle(mutant, result["outcome"], result["seconds"])
    by_mutant = {id(keys[job["id"]][0]): job["id"] for job in copied}

    def on_copied(mutant: Mutant, outcome: str, seconds: float) -> None:
        store.put(by_mutant[id(mutant)], outcome, seconds)
        settle(mutant, outcome, seconds)
    if copied:
        say(f"running {len(copied)} mutant(s) in copies of the checkout")
    run_copied([keys[job["id"]] for job in copied], parallel, on_copied)
    return {"report": report, "seconds": time.perf_counter() - started, "measuring": measuring, "cached": cached}


def print_report(outcome: dict, sample: int | None, seed: int, test_limit: float) -> bool:
    """The survivors of each module and the table; whether every module meets the targets."""
    good = True
    for entry in outcome["report"].values():
        print(f"\n{entry.module}: {entry.sites} sites{'' if sample is None else f' (a draw of {sample}, seed {seed})'}"
              f", {entry.killed} killed, {len(entry.survived)} survived, {len(entry.not_covered)} executed by no "
              f"test, {len(entry.equivalent)} equivalent; {entry.seconds:.0f} s of tests ({entry.cached} cached)")
        for m in sorted(entry.not_covered + entry.survived, key=lambda m: m.line):
            why = ("no test executes it" if not test_limit else f"no test ≤ {test_limit:g} s runs it") \
                if m in entry.not_covered else "survived"
            print(f"  {why:<19} line {m.line}: {m.change}: {m.source_line.strip()[:90]}   [{m.key}]")
        for m in entry.not_applied:
            print(f"  not run            line {m.line}: {m.change}   [{m.key}]")
        for m, how in entry.listed_but_killed:
            print(f"  listed equivalent, yet {how}: line {m.line}: {m.change}   [{m.key}] (not equivalent: a test "
                  "tells it apart; or a timeout under load: run it again)")
        for key in entry.stale:
            print(f"  stale equivalent   [{key}]: no mutant of the module has this key today (its line was edited): "
                  f"remove it from bench/mutation/equivalent/{entry.module}.yaml, and list the mutant again if it "
                  "survives")
        if entry.score < TARGET or len(entry.equivalent) > EQUIVALENT_SHARE * entry.sites or entry.stale:
            good = False
    print("\n| module | sites | killed | survived | no test executes it | equivalent | score |\n"
          "|---|---:|---:|---:|---:|---:|---:|")
    for e in outcome["report"].values():
        print(f"| `{e.module}` | {e.sites} | {e.killed} | {len(e.survived)} | {len(e.not_covered)} | "
              f"{len(e.equivalent)} | {e.score:.1%} |")
    total = outcome["report"].values()
    killed, counted = sum(e.killed for e in total), sum(e.counted for e in total)
    print(f"\nall: {killed} / {counted} killed ({killed / counted if counted else float('nan'):.1%}); "
          f"{outcome['seconds']:.0f} s in all ({outcome['measuring']:.0f} s measuring lines, {outcome['cached']} "
          "results reused)")
    return good


def _untracked() -> set[str]:
    """Files in the checkout that git neither tracks nor ignores."""
    listed = subprocess.run(["git", "ls-files", "-o", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    return set(listed.stdout.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mutation", description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help=f"dotted module names (default: the {len(MODULES)} listed in "
                                                   "bench/mutation/modules.py)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--sample", type=int, help="only a draw of this many mutants a module (a reviewer's check)")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    parser.add_argument("--fresh", action="store_true", help="judge every mutant again (ignore cached results)")
    parser.add_argument("--test-limit", type=float, default=1.0,
                        help="judge by the tests that took at most this many seconds in the line map's run (default "
                             "1: 1,224 of 1,345 tests, 95 of 625 s; the slower end-to-end tests are the suite's); "
                             "0 for every test")
    parser.add_argument("--remeasure", action="store_true", help="measure which tests execute which lines again")
    parser.add_argument("--list", action="store_true", help="list the modules, their sites and why each is listed")
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"not a listed module: {', '.join(unknown)} (see bench/mutation/modules.py)")
    modules = args.modules or list(MODULES)
    if args.list:
        for module in modules:
            _, mutants = mutants_of(module, module_path(module))
            print(f"{module}: {len(mutants)} sites; {MODULES[module].why}")
        for name, why in LEFT_OUT.items():
            print(f"left out: {name}: {why}")
        return 0
    before = _untracked()
    outcome = run(modules, parallel=args.jobs, sample=args.sample, seed=args.seed, fresh=args.fresh,
                  test_limit=args.test_limit or None, remeasure=args.remeasure)
    appeared = sorted(_untracked() - before)
    if appeared:  # said, never removed: a file someone made meanwhile is theirs
        print(f"\nnew files in the checkout since the run began (a mutant that moved an output, or a crashed "
              f"JVM's hs_err log, writes into the tests' working folder; remove those that are not yours): "
              f"{', '.join(appeared)}")
    return 0 if print_report(outcome, args.sample, args.seed, args.test_limit) else 1


if __name__ == "__main__":
    sys.exit(main())
