"""A pytest plugin that runs mutants in forked children of one collected session
(``-p bench.mutation.forked``, jobs in ``$TOUCHE_MUTATION_JOBS``, results appended to
``$TOUCHE_MUTATION_RESULTS``), as mutmut 3 does: the parent collects the tests once and runs none;
each child swaps one function's code for its mutated twin (the module's other objects, and every
reference other modules hold to the function, stay as they are), runs the tests that execute the
mutant's lines, fastest first, stops at the first failure and exits 1 (killed) or 0 (survived).

The parent starts no JVM (a forked JVM does not work): a child that needs one starts its own, as
a fresh session would. A child past its time is killed and counts as killed (a hang).
"""
from __future__ import annotations

import gc
import importlib
import importlib.util
import json
import os
import signal
import sys
import time
import types
from pathlib import Path

import pytest

from bench.mutation.sites import Mutant, mutated_tree

SURVIVED, KILLED, NOT_APPLIED = 0, 1, 3


def _code_named(code: types.CodeType, qualname: str) -> types.CodeType | None:
    """The code object of ``qualname`` inside a module's code (functions and class bodies nest)."""
    return next((c for c in _codes_within(code)[1:] if c.co_qualname == qualname), None)


def _codes_within(code: types.CodeType) -> list[types.CodeType]:
    """``code`` and the code objects of the functions nested in it."""
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found += _codes_within(const)
    return found


def _load_mutated(name: str, source: str, mutant: Mutant) -> None:
    """A module the session has not imported yet, loaded from its mutated code: whatever it runs
    as it loads runs mutated too."""
    parent, _, child = name.rpartition(".")
    if parent:
        importlib.import_module(parent)
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(mutated_tree(source, mutant), spec.origin, "exec"), module.__dict__)  # noqa: S102
    if parent:
        setattr(sys.modules[parent], child, module)


def swap_in(mutant: Mutant, source: str) -> int:
    """Give every live function of the mutant's scope the mutated code (a module not imported
    yet is loaded mutated); how many functions were changed (0: none to change, the mutant cannot
    be made this way)."""
    if mutant.module not in sys.modules:
        _load_mutated(mutant.module, source, mutant)
        return 1
    module = sys.modules[mutant.module]
    filename = module.__file__
    code = compile(mutated_tree(source, mutant), filename, "exec")
    target = _code_named(code, mutant.scope)
    if target is None:
        return 0
    # the function and every function nested in it: a closure made before the swap (a table of
    # them built at import) runs its own code object, which the outer function's swap leaves as it was
    wanted = {(c.co_qualname, c.co_firstlineno): c for c in _codes_within(target)}
    changed = 0
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            own = obj.__code__
            new = wanted.get((own.co_qualname, own.co_firstlineno)) if own.co_filename == filename else None
            if new is not None and new is not own:
                try:
                    obj.__code__ = new
                except ValueError:  # its closure no longer fits (a super() call deleted)
                    return 0
                changed += own.co_qualname == mutant.scope
    if not changed:
        return 0
    for value in list(vars(module).values()):  # results cached before the swap are the original's
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()
    return changed


def _child(job: dict, items: dict, config, work: Path) -> int:
    import faulthandler
    faulthandler.disable()  # a mutant that crashes a C extension is killed, not a page of tracebacks
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    factory = config._tmp_path_factory  # a base folder of its own: children never share one
    factory._basetemp = None
    factory._given_basetemp = work / f"child-{os.getpid()}"
    mutant = Mutant(**job["mutant"])
    if swap_in(mutant, Path(job["path"]).read_text(encoding="utf-8")) == 0:
        return NOT_APPLIED
    chosen = [items[nodeid] for nodeid in job["tests"] if nodeid in items]
    from _pytest.runner import runtestprotocol
    for position, item in enumerate(chosen):
        following = chosen[position + 1] if position + 1 < len(chosen) else None
        reports = runtestprotocol(item, log=False, nextitem=following)
        if any(report.failed for report in reports):
            return KILLED
    return SURVIVED


def _jvm_running() -> bool:
    config = sys.modules.get("jnius_config")
    return bool(config is not None and getattr(config, "vm_running", False))


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    jobs = json.loads(Path(os.environ["TOUCHE_MUTATION_JOBS"]).read_text(encoding="utf-8"))
    results = Path(os.environ["TOUCHE_MUTATION_RESULTS"])
    parallel = int(os.environ.get("TOUCHE_MUTATION_PARALLEL", "2"))
    work = Path(os.environ["TOUCHE_MUTATION_WORK"])
    if _jvm_running():
        raise pytest.UsageError("a JVM started while the tests were collected: a forked child cannot use it")
    items = {item.nodeid: item for item in session.items}
    missing = sorted({t for job in jobs for t in job["tests"]} - set(items))
    if missing:
        print(f"note: {len(missing)} test(s) of the line map are not collected now (renamed or removed): "
              f"{', '.join(missing[:5])}", file=sys.stderr)
    running: dict[int, tuple[dict, float]] = {}
    queue = list(jobs)
    with results.open("a", encoding="utf-8") as out:
        while queue or running:
            while queue and len(running) < parallel:
                job = queue.pop(0)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    code = 4
                    try:
                        code = _child(job, items, session.config, work)
                    finally:
                        os._exit(code)
                running[pid] = (job, time.perf_counter())
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                now = time.perf_counter()
                for other, (job, started) in list(running.items()):
                    if now - started > job["timeout"]:
                        os.kill(other, signal.SIGKILL)
                time.sleep(0.02)
                continue
            job, started = running.pop(pid)
            seconds = time.perf_counter() - started
            if os.WIFSIGNALED(status):
                outcome = "timeout" if seconds > job["timeout"] else "crashed"
            else:
                outcome = {SURVIVED: "survived", KILLED: "killed", NOT_APPLIED: "not-applied"}.get(
                    os.WEXITSTATUS(status), "error")
            out.write(json.dumps({"id": job["id"], "outcome": outcome, "seconds": round(seconds, 3)}) + "\n")
            out.flush()
    return True
