"""Do the tests notice? A mutation run over the modules that decide a result (docs/testing.md):

    python -m bench.mutation [MODULE ...] [--sample 40] [--seed 1] [--jobs 2] [--list]

For each module (dotted, ``touche.retrieval.formats.gate``, or a path): every place a small
mistake could be made is listed (a comparison flipped, ``and``/``or`` swapped, an arithmetic
operator swapped, a number moved by one, a condition negated, a return replaced by None, a
statement deleted); ``--sample`` of them are drawn with ``--seed``; each is written into a copy
of the checkout (never the working tree) and the module's own tests run against it. A mutant the
tests fail on (or that hangs past three times the tests' own time) is killed; one they pass
survives. Mutants shown equivalent (no input can tell them apart) are listed in
``bench/mutation_equivalent.yaml`` with why, and count neither way. Per module it prints what
was tried, killed, survived and equivalent, the score killed / (tried − equivalent), and every
survivor (line, change, source).

Why our own mutator and not mutmut or cosmic-ray: both rewrite the package in place or need their
own runner configuration, and neither maps a module to the test files that exercise it here,
where ``touche.retrieval`` lives in ``retrieval/`` (an editable install's mapping), so each would
run the whole 8-minute suite per mutant. Here a mutant costs its module's tests only.
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {"touche.retrieval": "retrieval", "touche.indexing": "indexing", "touche.stemming": "stemming"}
EQUIVALENT_FILE = ROOT / "bench" / "mutation_equivalent.yaml"
# The modules that decide a result (the list) and the test files that exercise them.
MODULES: dict[str, tuple[str, ...]] = {
    "touche.retrieval.formats.gate": ("tests/test_gate.py", "tests/test_reliability_round5.py",
                                      "tests/test_mutation_kills.py", "tests/test_mutation_kills_readers.py"),
    "touche.retrieval.formats.qrels": ("tests/test_readers.py", "tests/test_gate.py", "tests/test_evaluate.py",
                                       "tests/test_mutation_kills_readers.py"),
    "touche.retrieval.formats.runfile": ("tests/test_runfile.py", "tests/test_gate.py",
                                         "tests/test_mutation_kills_readers.py"),
    "touche.retrieval.formats.runwriter": ("tests/test_runfile.py", "tests/test_reliability_round6.py",
                                           "tests/test_mutation_kills_readers.py"),
    "touche.retrieval.evaluation.registry": ("tests/test_evaluate.py", "tests/test_extension_points.py",
                                             "tests/test_mutation_kills_measures.py"),
    "touche.retrieval.evaluation.scorers": ("tests/test_evaluate.py", "tests/test_mutation_kills_measures.py"),
    "touche.retrieval.evaluation.measures": ("tests/test_evaluate.py", "tests/test_python_api.py",
                                             "tests/test_mutation_kills.py", "tests/test_mutation_kills_measures.py"),
    "touche.retrieval.evaluation.significance": ("tests/test_report.py", "tests/test_mutation_kills.py"),
    "touche.retrieval.evaluation.pooled": ("tests/test_pooled.py", "tests/test_mutation_kills_measures.py"),
    "touche.retrieval.evaluation.agreement": ("tests/test_agreement.py", "tests/test_mutation_kills_measures.py"),
    "touche.guard": ("tests/test_reliability_round5.py", "tests/test_reliability_round6.py",
                     "tests/test_mutation_kills.py", "tests/test_mutation_kills_guard.py"),
    "touche.settings": ("tests/test_reliability_round5.py", "tests/test_mutation_kills.py"),
    "touche.bounds": ("tests/test_reliability_round6.py", "tests/test_gate.py", "tests/test_mutation_kills_choice.py"),
    "touche.retrieval.experiments.choose.loss": ("tests/test_choose_trust.py", "tests/test_mutation_kills.py"),
    "touche.retrieval.experiments.robust": ("tests/test_sweep_reliability.py", "tests/test_mutation_kills.py",
                                            "tests/test_mutation_kills_choice.py"),
    "touche.retrieval.experiments.choose.picks": (
        "tests/test_choose_trust.py", "tests/test_mutation_kills.py", "tests/test_mutation_kills_choice.py",
        "tests/test_sweep.py::test_choose_writes_five_variants_and_a_suite_that_reproduce_the_sweep",
        "tests/test_sweep_sets.py::test_a_rerun_runs_nothing_and_choose_picks_by_the_criterion"),
    "touche.retrieval.experiments.sweep.analysis": ("tests/test_mutation_kills_choice.py", "tests/test_sweep_sets.py",
                                                    "tests/test_sweep_reliability.py"),
}


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int
    change: str  # "< → <=", "return → return None", …
    source_line: str
    index: int  # which site of the module (in walk order)

    @property
    def key(self) -> str:
        """What identifies it across edits elsewhere in the file: the change and its line's text."""
        digest = hashlib.sha1(f"{self.change}|{self.source_line.strip()}".encode()).hexdigest()[:12]
        return f"{self.module}:{digest}"


# ----------------------------------------------------------------------------------- mutators
_COMPARE_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                  ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
                ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}
_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
            ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
            ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.And: "and", ast.Or: "or"}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first))
    return out


def _in_annotation(tree: ast.AST) -> set[int]:
    """Nodes inside type annotations and f-strings: changing them changes no behaviour worth testing."""
    out: set[int] = set()
    for node in ast.walk(tree):
        parts = []
        if isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation is not None:
            parts.append(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            parts.append(node.returns)
        if isinstance(node, ast.JoinedStr):
            parts.append(node)
        for part in parts:
            out.update(id(n) for n in ast.walk(part))
    return out


def sites(tree: ast.Module) -> list[tuple[ast.AST, str, str]]:
    """Every (node, kind, change) a mutant can be made at, in walk order."""
    skip = _docstring_nodes(tree) | _in_annotation(tree)
    functions = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _COMPARE_FLIPS:
                    out.append((node, f"compare:{i}",
                                f"{_SYMBOLS[type(op)]} → {_SYMBOLS[_COMPARE_FLIPS[type(op)]]}"))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
            out.append((node, "binop", f"{_SYMBOLS[type(node.op)]} → {_SYMBOLS[_BINOP_SWAPS[type(node.op)]]}"))
        elif isinstance(node, ast.BoolOp):
            out.append((node, "boolop", f"{_SYMBOLS[type(node.op)]} → {'or' if isinstance(node.op, ast.And) else 'and'}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and id(node) in functions:
            if isinstance(node.value, bool):
                out.append((node, "const", f"{node.value} → {not node.value}"))
            else:
                out.append((node, "const", f"{node.value!r} → {node.value + 1!r}"))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            out.append((node, "negate", "condition → not condition"))
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            out.append((node, "return", "return … → return None"))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and id(node) in functions:
            out.append((node, "delete", "statement deleted"))
    return out


class _Apply(ast.NodeTransformer):
    def __init__(self, target: ast.AST, kind: str):
        self.target, self.kind = target, kind

    def visit(self, node):
        if node is not self.target:
            return self.generic_visit(node)
        kind = self.kind
        if kind.startswith("compare:"):
            i = int(kind.split(":")[1])
            node.ops[i] = _COMPARE_FLIPS[type(node.ops[i])]()
        elif kind == "binop":
            node.op = _BINOP_SWAPS[type(node.op)]()
        elif kind == "boolop":
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif kind == "const":
            node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
        elif kind == "negate":
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif kind == "return":
            node.value = ast.Constant(value=None)
        elif kind == "delete":
            return ast.copy_location(ast.Pass(), node)
        return node


def mutants_of(module: str, path: Path) -> tuple[str, list[Mutant]]:
    """The module's source and every mutant that can be made of it (``mutated`` writes one)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    out = []
    for index, (node, _, change) in enumerate(sites(ast.parse(source))):
        line = getattr(node, "lineno", 0)
        out.append(Mutant(module, line, change, lines[line - 1] if line else "", index))
    return source, out


def mutated(source: str, mutant: Mutant) -> str:
    """The module's source with ``mutant`` made (as ``ast.unparse`` writes it)."""
    tree = ast.parse(source)
    node, kind, _ = sites(tree)[mutant.index]
    _Apply(node, kind).visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


# ----------------------------------------------------------------------------------- running
def module_path(module: str, root: Path = ROOT) -> Path:
    for package, folder in LAYERS.items():
        if module.startswith(package + "."):
            return root / folder / Path(*module[len(package) + 1:].split(".")).with_suffix(".py")
    return root / Path(*module.split(".")).with_suffix(".py")


def make_copy(into: Path) -> Path:
    """The checkout's tracked files (and the compiled Lucene helpers) in ``into``, importable as
    ``touche`` ahead of the editable install: a sitecustomize points its mapping at the copy."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_file():
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


def run_tests(copy_root: Path, tests: tuple[str, ...], timeout: float | None) -> tuple[bool, float]:
    """Whether the tests pass in the copy, and how long they took."""
    env = {**os.environ, "PYTHONPATH": str(copy_root / ".mutation-site"), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                               *tests], cwd=copy_root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, time.perf_counter() - started
    return done.returncode == 0, time.perf_counter() - started


def equivalents() -> dict[str, str]:
    if not EQUIVALENT_FILE.is_file():
        return {}
    data = yaml.safe_load(EQUIVALENT_FILE.read_text(encoding="utf-8")) or {}
    return {entry["key"]: entry["why"] for entry in data.get("equivalent", [])}


def mutate_module(module: str, sample: int, seed: int, jobs: int, work: Path) -> dict:
    """Run a sample of ``module``'s mutants against its tests; the counts and the survivors."""
    # a test file, or one test of it (path::name: a slow file's test that exercises the module)
    tests = tuple(t for t in MODULES.get(module) or default_tests(module) if (ROOT / t.split("::")[0]).is_file())
    path = module_path(module)
    source, mutants = mutants_of(module, path)
    chosen = random.Random(f"{seed}:{module}").sample(mutants, min(sample, len(mutants)))
    known = equivalents()
    copies = [make_copy(Path(tempfile.mkdtemp(prefix=f"mutation-{i}-", dir=work))) for i in range(jobs)]
    passed, baseline = run_tests(copies[0], tests, None)
    if not passed:
        raise SystemExit(f"{module}: its tests fail unmutated ({' '.join(tests)}): fix them first")
    timeout = 3 * baseline + 30

    def one(slot: int, mutant: Mutant) -> tuple[Mutant, bool]:
        target = module_path(module, copies[slot])
        target.write_text(mutated(source, mutant), encoding="utf-8")
        try:
            survived, _ = run_tests(copies[slot], tests, timeout)
        finally:
            target.write_text(source, encoding="utf-8")
        return mutant, survived

    results: list[tuple[Mutant, bool]] = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        free = list(range(jobs))
        pending = {}
        queue = list(chosen)
        while queue or pending:
            while queue and free:
                slot = free.pop()
                pending[pool.submit(one, slot, queue.pop(0))] = slot
            finished, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                free.append(pending.pop(future))
                results.append(future.result())
    for folder in copies:
        shutil.rmtree(folder, ignore_errors=True)
    survivors = [m for m, survived in results if survived and m.key not in known]
    equivalent = [m for m, survived in results if survived and m.key in known]
    killed = sum(1 for _, survived in results if not survived)
    counted = len(results) - len(equivalent)
    return {"module": module, "tests": tests, "sites": len(mutants), "tried": len(results), "killed": killed,
            "survived": survivors, "equivalent": [(m, known[m.key]) for m in equivalent],
            "score": killed / counted if counted else float("nan"), "baseline": baseline}


def default_tests(module: str) -> tuple[str, ...]:
    """Test files that import ``module`` by name (for a module MODULES does not list)."""
    name = module.rsplit(".", 1)[-1]
    return tuple(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")
                        if module in p.read_text(encoding="utf-8") or f"import {name}" in p.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mutation", description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help=f"dotted module names (default: {len(MODULES)} modules that decide "
                                                   "a result)")
    parser.add_argument("--sample", type=int, default=40, help="mutants drawn per module (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once, each in its own copy (default 2)")
    parser.add_argument("--list", action="store_true", help="only list each module's mutation sites")
    args = parser.parse_args(argv)
    modules = args.modules or list(MODULES)
    if args.list:
        for module in modules:
            _, mutants = mutants_of(module, module_path(module))
            print(f"{module}: {len(mutants)} sites")
        return 0
    with tempfile.TemporaryDirectory(prefix="touche-mutation-") as work:
        rows = []
        for module in modules:
            started = time.perf_counter()
            result = mutate_module(module, args.sample, args.seed, args.jobs, Path(work))
            result["seconds"] = time.perf_counter() - started
            rows.append(result)
            print(f"\n{module} ({result['tried']} of {result['sites']} sites, seed {args.seed}, "
                  f"{result['seconds']:.0f} s; tests: {' '.join(result['tests'])})", flush=True)
            for m in result["survived"]:
                print(f"  survived  line {m.line}: {m.change}: {m.source_line.strip()[:90]}   [{m.key}]")
            for m, why in result["equivalent"]:
                print(f"  equivalent line {m.line}: {m.change}: {why}")
        print("\n| module | tried | killed | survived | equivalent | score |\n|---|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| `{r['module']}` | {r['tried']} | {r['killed']} | {len(r['survived'])} | {len(r['equivalent'])} | "
                  f"{r['score']:.0%} |")
    return 0 if all(r["score"] >= 0.9 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
