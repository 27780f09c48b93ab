"""The layers of docs/architecture.md, checked on the source: a lower layer never imports a
higher one, there is no import cycle, and project imports sit at module top (a function-local
import is allowed only in the few modules listed here, each to keep an optional dependency
lazy)."""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from tests.shared import REPO

# The layer folders sit at the repository's top level and install inside the touche namespace
# (pyproject's package-dir: touche.indexing <- indexing/): the module name a folder gets.
FOLDERS = {"touche": "touche", "stemming": "touche.stemming", "indexing": "touche.indexing",
           "retrieval": "touche.retrieval"}
LAYER_FOLDERS = ("stemming", "indexing", "retrieval")

# Lower number = lower layer. touche.cli and touche.__main__ are the command-line wing on top.
LAYERS = {"core": 0, "stemming": 1, "indexing": 2, "retrieval": 3, "wing": 4}


WING = ("touche.__main__", "touche.cli", "touche.api", "touche.pyterrier")


def layer_of(module: str) -> str:
    parts = module.split(".")
    if any(module == w or module.startswith(w + ".") for w in WING):
        return "wing"
    if len(parts) > 1 and parts[0] == "touche" and parts[1] in LAYER_FOLDERS:
        return parts[1]
    return "core"


def modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in (REPO / folder).rglob("*.py"):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def project_imports(path: Path, known: dict[str, Path]):
    """(imported module, line, function-local?) for every import of a project module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    local_nodes = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for n in ast.walk(f)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        for name in names:
            if name.split(".")[0] in FOLDERS:
                # the longest known module prefix is the imported module
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name:
                    yield name, node.lineno, id(node) in local_nodes
                    break


@pytest.fixture(scope="module")
def graph():
    known = modules()
    return known, {m: list(project_imports(p, known)) for m, p in known.items()}


def test_no_lower_layer_imports_a_higher_one(graph):
    known, edges = graph
    upward = [f"{known[m].relative_to(REPO)}:{line} ({layer_of(m)}) imports {target} ({layer_of(target)})"
              for m, imports in edges.items() for target, line, _ in imports
              if LAYERS[layer_of(target)] > LAYERS[layer_of(m)]]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_the_import_graph_has_no_cycle(graph):
    _, edges = graph
    adjacency = {m: {t for t, _, _ in imports if t != m} for m, imports in edges.items()}
    # package __init__ modules are imported implicitly by their children: a child importing its
    # parent package is not a cycle of the design, so only module-to-module edges count.
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(adjacency.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for module in sorted(adjacency):
        if module not in state:
            visit(module, [])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_project_imports_sit_at_module_top(graph):
    known, edges = graph
    local = [f"{known[m].relative_to(REPO)}:{line} imports {target} inside a function"
             for m, imports in edges.items() for target, line, is_local in imports if is_local]
    assert not local, "\n".join(local)


def test_the_checker_sees_an_upward_import(tmp_path):
    """The checks above are only as good as the parser: it must find an upward import."""
    fake = tmp_path / "x.py"
    fake.write_text("def f():\n    from touche.retrieval.session import Session\n", encoding="utf-8")
    found = list(project_imports(fake, {"touche.retrieval.session": fake}))
    assert found == [("touche.retrieval.session", 2, True)]
    assert LAYERS[layer_of("touche.retrieval.session")] > LAYERS[layer_of("touche.config")]
    assert layer_of("touche.api") == "wing" and layer_of("touche.indexing.corpora") == "indexing"


def test_nothing_imports_a_layer_by_its_bare_folder_name():
    """`import indexing` would load a second copy of the module (or PyPI's unrelated `indexing`
    distribution in an installed product): every project import goes through `touche.`."""
    bare = []
    for path in [p for folder in (*FOLDERS, "tests", "bench", "demo") for p in (REPO / folder).rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            bare += [f"{path.relative_to(REPO)}:{node.lineno} imports {n}" for n in names
                     if n.split(".")[0] in LAYER_FOLDERS]
    assert not bare, "\n".join(bare)


def module_families(root: Path = REPO, folders=tuple(FOLDERS)) -> dict[Path, dict[str, list[str]]]:
    """Per product folder under ``root``, the stems before ``_`` that two or more of its modules share."""
    shared = {}
    for folder in folders:
        for directory in [root / folder, *(p for p in (root / folder).rglob("*") if p.is_dir())]:
            if "__pycache__" in directory.parts or directory == root / "touche" / "cli":
                continue
            stems: dict[str, list[str]] = {}
            for module in sorted(directory.glob("*.py")):
                if module.stem != "__init__":
                    stems.setdefault(module.stem.split("_")[0], []).append(module.name)
            families = {stem: names for stem, names in stems.items() if len(names) > 1}
            if families:
                shared[directory.relative_to(root)] = families
    return shared


def test_a_family_of_modules_is_a_package():
    """A feature is found by its folder: modules that share a stem (explorer_data beside
    explorer_page) belong in a package of that name. touche/cli holds one module per command,
    named as the commands are (train_quality beside train_stance)."""
    shared = module_families()
    assert not shared, "\n".join(f"{folder}: {', '.join(names)}" for folder, families in shared.items()
                                 for names in families.values())


def test_the_family_check_sees_a_family(tmp_path):
    for folder in ("pkg/sub", "touche/cli"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("pkg/sub/choice_loss.py", "pkg/sub/choice_report.py", "pkg/sub/choose.py", "pkg/sub/__init__.py",
                 "pkg/explorer.py", "touche/cli/train_quality.py", "touche/cli/train_stance.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    assert module_families(tmp_path, ("pkg", "touche")) == {
        Path("pkg/sub"): {"choice": ["choice_loss.py", "choice_report.py"]}}


def test_package_data_lives_with_the_package_that_reads_it():
    """Templates and model files sit inside the package whose code opens them, and setup.py
    ships each folder under that package's name."""
    setup = (REPO / "setup.py").read_text(encoding="utf-8")
    for folder, package in (("retrieval/experiments/explorer/templates", "touche.retrieval.experiments.explorer"),
                            ("retrieval/stages/quality/data", "touche.retrieval.stages.quality"),
                            ("retrieval/tasks/task2/stance/data", "touche.retrieval.tasks.task2.stance")):
        assert any((REPO / folder).iterdir()), folder
        assert f'"{package}": ["{Path(folder).name}/' in setup, package


# --------------------------------------------------------------------------- the command line holds no decision
# Every `touche` command is a function of touche.api (``api.COMMANDS``), and its module in
# touche/cli only parses arguments, calls that function and prints what it returns. Checked on the
# parser and the source, so a rule added to a command alone (a refusal, a default, a branch on an
# option) fails here instead of being missing from the API:
#   1. the command's ``run(args)`` calls its API function (the very object ``touche.api`` exposes),
#      once, in its first statement: no work or decision comes before it;
#   2. every option of the command's parser reaches that call, bound to the API parameter of its
#      name (or the one the module's ``PARAMETERS`` maps it to), unless the module declares it
#      ``PRINTING`` (how the result is shown: read only after the call);
#   3. the module raises nothing and catches nothing (a refusal is the library's, so the API refuses
#      alike), and after the call it only prints: the functions it calls there are builtins, the
#      result's methods, ``note`` and formatters (``format_*``, ``status_of``).
PRINTS = {"note", "format_comparison", "status_of", "Path"}


def command_problems(name: str, module, parser, function) -> list[str]:
    """What breaks the three rules above in the command ``name``'s module (see above)."""
    import builtins
    import inspect

    problems = []
    params = list(inspect.signature(function).parameters)
    mapping = getattr(module, "PARAMETERS", {})
    printing = set(getattr(module, "PRINTING", ()))
    options = [a.dest for a in parser._actions if a.dest not in ("help",) and a.default != "==SUPPRESS=="]
    tree = ast.parse(inspect.getsource(module))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.Try)):
            problems.append(f"{name}: line {node.lineno} {'raises' if isinstance(node, ast.Raise) else 'catches'}: "
                            "a refusal belongs to the library")
    run = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    calls = [c for c in ast.walk(run) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and module.__dict__.get(c.func.id) is function]
    if len(calls) != 1:
        return problems + [f"{name}: run() calls {function.__name__} {len(calls)} times, not once"]
    call = calls[0]
    first = [s for s in run.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))][0]
    if call not in set(ast.walk(first)):
        problems.append(f"{name}: run() does work before it calls {function.__name__}")

    def options_read(node) -> set[str]:
        return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == "args"}
    bound = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords]
    reached = set()
    for param, value in bound:
        if param not in params:
            problems.append(f"{name}: {function.__name__} has no parameter {param}")
        for dest in options_read(value):
            reached.add(dest)
            if mapping.get(dest, dest) != param:
                problems.append(f"{name}: option {dest} goes to parameter {param}, not {mapping.get(dest, dest)}")
    for dest in options:
        if dest in printing:
            if dest in reached:
                problems.append(f"{name}: option {dest} is declared PRINTING but changes the call")
        elif mapping.get(dest, dest) not in params:
            problems.append(f"{name}: option {dest} has no parameter of {function.__name__} (the API lacks it)")
        elif dest not in reached:
            problems.append(f"{name}: option {dest} does not reach {function.__name__}")
    after = [n for s in run.body[run.body.index(first) + 1:] for n in ast.walk(s)]
    for node in after:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = node.func.id
            if not (hasattr(builtins, callee) or callee in PRINTS or callee.startswith("format_")):
                problems.append(f"{name}: line {node.lineno} calls {callee} after the API call: it may only print")
    return problems


def test_every_command_is_a_function_of_the_api():
    from touche import api
    from touche.cli import COMMANDS
    assert list(api.COMMANDS) == list(COMMANDS)
    assert all(callable(getattr(api, function)) for function in api.COMMANDS.values())


@pytest.mark.parametrize("name", list(__import__("touche.cli.commands", fromlist=["COMMANDS"]).COMMANDS))
def test_a_command_only_parses_calls_its_api_function_and_prints(name):
    from touche import api, cli
    parser = cli.build_parser(load=[name])._subparsers._group_actions[0].choices[name]
    assert command_problems(name, cli.command_module(name), parser, getattr(api, api.COMMANDS[name])) == []


def test_the_command_check_sees_a_decision_the_api_lacks(tmp_path, monkeypatch):
    """The check is only as good as what it finds: a refusal, an option the call never sees, work
    before the call and a decision after it, each in a module of its own."""
    import argparse
    import importlib
    import sys

    def api_function(runs, *, depth=5, topics_only=None):
        return runs
    monkeypatch.syspath_prepend(str(tmp_path))
    bodies = {
        "raises": "    if args.depth < 1:\n        raise ValueError('depth')\n    return api_function(args.runs, "
                  "depth=args.depth, topics_only=args.topics_only)",
        "unread": "    return api_function(args.runs, depth=args.depth)",
        "before": "    runs = sorted(args.runs)\n    return api_function(runs, depth=args.depth, "
                  "topics_only=args.topics_only)",
        "after": "    found = api_function(args.runs, depth=args.depth, topics_only=args.topics_only)\n"
                 "    return decide(found)",
        "wrong": "    return api_function(args.runs, depth=args.topics_only, topics_only=args.depth)",
    }
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--depth", type=int)
    parser.add_argument("--topics-only")
    parser.add_argument("--verbose", action="store_true")
    found = {}
    for case, body in bodies.items():
        (tmp_path / f"fake_{case}.py").write_text(f"PRINTING = {{'verbose'}}\n\ndef run(args):\n{body}\n")
        module = importlib.import_module(f"fake_{case}")
        module.api_function = api_function
        module.decide = len
        found[case] = command_problems(case, module, parser, api_function)
        sys.modules.pop(f"fake_{case}")
    assert any("raises" in p for p in found["raises"])
    assert found["unread"] == ["unread: option topics_only does not reach api_function"]
    assert any("does work before it calls" in p for p in found["before"])
    assert found["after"] == ["after: line 5 calls decide after the API call: it may only print"]
    assert "wrong: option topics_only goes to parameter depth, not topics_only" in found["wrong"]
def test_the_static_checks_cover_every_layer_under_its_installed_name():
    """mypy checks the core and each layer folder as the package it installs as: pyproject's
    [tool.mypy] packages and the links scripts/static_checks.sh keeps name the layers setup.py
    maps, so a new layer is checked from its first line."""
    import re
    import tomllib

    setup_tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    [mapped] = [ast.literal_eval(node.value) for node in setup_tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "LAYERS" for t in node.targets)]
    assert set(mapped) == set(LAYER_FOLDERS)
    mypy = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert sorted(mypy["packages"]) == sorted(["touche", *(FOLDERS[folder] for folder in mapped)])
    script = (REPO / "scripts" / "static_checks.sh").read_text(encoding="utf-8")
    assert sorted(re.search(r"^for layer in ([^;]*); do$", script, re.M).group(1).split()) == sorted(mapped)


# --------------------------------------------------------------------------- the tests' own layout
# The tests mirror the product: one folder per package (docs/testing.md lists them), one file per
# module or behaviour. This table is the rule: a test file lives in one of these folders, named for
# what it holds, never for when it was written (a round of work, an issue, a mutation run's kills).
TEST_FOLDERS = {
    "core": "touche",  # the core's own modules: config, settings, bounds, jvm, datasets, render, ...
    "guard": "touche/guard.py",  # what a command writes: guard, record, atomic writer, folder lock
    "stemming": "stemming",
    "indexing": "indexing",
    "retrieval": "retrieval",  # its own modules (session, suite, preflight, search) and encoders/
    "formats": "retrieval/formats",
    "evaluation": "retrieval/evaluation",
    "experiments": "retrieval/experiments",
    "tasks": "retrieval/tasks",
    "stages": "retrieval/stages",
    "cli": "touche/cli",
    "api": "touche/api",
    "pyterrier": "touche/pyterrier",
    "project": "docs",  # the repository as a whole: layering, docs, packaging, scripts
    "bench": "bench",
}
HISTORY_NAME = re.compile(r"round_?\d|issue_?\d|mutation_kills|kills_")


def layout_problems(test_files: list[str]) -> list[str]:
    """What is wrong with where the test files (paths relative to tests/) are and how they are named."""
    problems = []
    for name in test_files:
        parts = Path(name).parts
        if len(parts) != 2 or parts[0] not in TEST_FOLDERS:
            problems.append(f"tests/{name}: not in a folder that mirrors a product package ({', '.join(TEST_FOLDERS)})")
        if HISTORY_NAME.search(Path(name).stem):
            problems.append(f"tests/{name}: named after a round, an issue or a mutation run, not the behaviour held")
    return problems


def test_every_test_file_lives_in_a_mirrored_folder_named_for_its_behaviour():
    tests = REPO / "tests"
    files = sorted(str(p.relative_to(tests)) for p in tests.rglob("test_*.py") if "node_modules" not in p.parts)
    assert len(files) > 50
    assert not layout_problems(files), "\n".join(layout_problems(files))
    for folder, mirrored in TEST_FOLDERS.items():
        assert (tests / folder / "__init__.py").is_file(), f"tests/{folder}/ is no package"
        assert (REPO / mirrored).exists(), f"tests/{folder}/ mirrors {mirrored}, which is gone"
        assert f"`tests/{folder}/`" in (REPO / "docs" / "testing.md").read_text(encoding="utf-8"), \
            f"docs/testing.md does not list tests/{folder}/"


def test_the_layout_check_refuses_history_names_and_stray_folders():
    assert layout_problems(["formats/test_gate.py", "guard/test_atomic.py"]) == []
    for bad in ["test_gate.py", "misc/test_gate.py", "formats/deeper/test_gate.py"]:
        assert "not in a folder that mirrors" in " ".join(layout_problems([bad])), bad
    for bad in ["core/test_reliability_round8.py", "formats/test_issue62.py", "guard/test_mutation_kills_guard.py",
                "evaluation/test_kills_pooled.py"]:
        assert "named after a round" in " ".join(layout_problems([bad])), bad
# --------------------------------------------------------------------------- module size
MAX_MODULE_LINES = 600  # the house's limit: a module past it is split by concern
NOT_OURS = ("build", "node_modules", "__pycache__")  # a build's copies, the browser tests' packages, caches


def project_modules(root: Path) -> list[Path]:
    """Every Python module the project writes under ``root``: the product's folders, bench, tests,
    demo, setup.py; not what a hidden folder (.venv, .git, caches) or ``NOT_OURS`` holds."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if not name.startswith(".") and name not in NOT_OURS]
        found += [Path(folder) / name for name in files if name.endswith(".py")]
    return sorted(found)


def long_modules(root: Path, limit: int = MAX_MODULE_LINES) -> list[str]:
    """The project's modules (product, bench, tests, demo) longer than ``limit`` lines, with their length."""
    found = []
    for path in project_modules(root):
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > limit:
            found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def test_no_module_is_over_600_lines():
    assert len(project_modules(REPO)) > 300  # the walk reaches the tree, tests and bench included
    assert long_modules(REPO) == []


def test_the_size_check_sees_a_long_module(tmp_path):
    """A product module and a test module past the limit are found, one at it is not, and nothing
    in a virtual environment, a build or node_modules counts."""
    too_long, at_limit = "x = 1\n" * (MAX_MODULE_LINES + 1), "x = 1\n" * MAX_MODULE_LINES
    for module, text in {"touche/long.py": too_long, "touche/short.py": at_limit,
                         "tests/formats/test_long.py": too_long, "tests/formats/test_short.py": at_limit,
                         ".venv/lib/site-packages/big.py": too_long, "build/lib/touche/long.py": too_long,
                         "tests/browser/node_modules/pkg/big.py": too_long}.items():
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text(text)
    assert long_modules(tmp_path) == [f"tests/formats/test_long.py: {MAX_MODULE_LINES + 1} lines",
                                      f"touche/long.py: {MAX_MODULE_LINES + 1} lines"]
