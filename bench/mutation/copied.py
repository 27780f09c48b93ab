"""Mutants that cannot be swapped into a running process (a module-level statement, a function
run while its module loads): each is written into a copy of the checkout (never the working
tree; a sitecustomize points the editable install at the copy) and its tests run there in a
fresh pytest process."""
from __future__ import annotations

import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.mutation.sites import Mutant, mutated

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {"touche.retrieval": "retrieval", "touche.indexing": "indexing", "touche.stemming": "stemming"}


def module_path(module: str, root: Path = ROOT) -> Path:
    for package, folder in LAYERS.items():
        if module.startswith(package + "."):
            return root / folder / Path(*module[len(package) + 1:].split(".")).with_suffix(".py")
    plain = root / Path(*module.split(".")).with_suffix(".py")
    return plain if plain.is_file() else root / Path(*module.split(".")) / "__init__.py"


def make_copy(into: Path) -> Path:
    """The checkout's files (and the compiled Lucene helpers) in ``into``, importable as
    ``touche`` ahead of the editable install."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    for name in files:
        if name and (ROOT / name).is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    if (ROOT / "build").is_dir():
        shutil.copytree(ROOT / "build", into / "build", dirs_exist_ok=True)
    site = into / ".mutation-site"
    site.mkdir()
    # The editable install may point at another checkout (a worktree run from the main venv):
    # its root is read from the mapping, not assumed to be ours.
    (site / "sitecustomize.py").write_text(
        "import os, sys\n"
        "for name, module in list(sys.modules.items()):\n"
        "    if name.startswith('__editable___touche') and hasattr(module, 'MAPPING'):\n"
        "        old = os.path.dirname(module.MAPPING['touche'])\n"
        f"        module.MAPPING.update({{k: v.replace(old, {str(into)!r}) for k, v in module.MAPPING.items()}})\n"
        f"        module.NAMESPACES.update({{k: [p.replace(old, {str(into)!r}) for p in v] "
        "for k, v in module.NAMESPACES.items()})\n")
    return into


def run_tests(copy_root: Path, tests: list[str], timeout: float | None) -> tuple[str, float]:
    """"killed", "survived" or "timeout", and how long the tests took in the copy."""
    env = {**os.environ, "PYTHONPATH": str(copy_root / ".mutation-site"), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                               *tests], cwd=copy_root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - started
    outcome = "survived" if done.returncode in (0, 5) else "killed"
    return outcome, time.perf_counter() - started


def run_copied(jobs: list[tuple[Mutant, str, list[str], float]], parallel: int, on_result) -> None:
    """Each (mutant, module source, tests, timeout) in one of ``parallel`` copies; ``on_result``
    gets (mutant, outcome, seconds) as each ends."""
    if not jobs:
        return
    with tempfile.TemporaryDirectory(prefix="touche-mutation-") as work:
        copies = [make_copy(Path(tempfile.mkdtemp(prefix=f"copy-{i}-", dir=work))) for i in range(parallel)]

        def one(slot: int, job) -> None:
            mutant, source, tests, timeout = job
            target = module_path(mutant.module, copies[slot])
            target.write_text(mutated(source, mutant), encoding="utf-8")
            try:
                outcome, seconds = run_tests(copies[slot], tests, timeout)
            finally:
                target.write_text(source, encoding="utf-8")
            on_result(mutant, outcome, seconds)

        with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
            free, pending, queue = list(range(parallel)), {}, list(jobs)
            while queue or pending:
                while queue and free:
                    slot = free.pop()
                    pending[pool.submit(one, slot, queue.pop(0))] = slot
                done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    free.append(pending.pop(future))
                    future.result()
