"""One owner of every location a user can name (docs/reliability.md, "What a command may touch"):
no module but the writer (touche/atomic.py), the guard (touche/guard.py) and its lock
(touche/folderlock.py) creates, writes, replaces or deletes anything at a path a flag, a YAML key,
an environment variable or the Python API can reach.

The check follows those paths through the source. It starts from every path setting of the
settings registry (``touche/settings.py``, the settings parsed as paths), every environment
variable read directly, ``sys.argv``, every argument of the ``touche`` command that a command's
``files(args)`` declares as a file or folder, everything the YAML reader returns (every key of a
variant, suite or sweep), and every argument of the public Python API (``touche.api``,
``touche.pyterrier``). It carries them through assignments, returns, calls (to the parameter they
land in), objects' attributes and the path operations (``/``, ``Path()``, ``.parent``), to every
call that writes on the file system. A value the writer or the guard returns (an owned folder, a
temporary of theirs) is theirs: what is written there has passed the guard. A name taken from a
path (``.name``) is no location. A module outside the owners may write only where none of these
reaches (a scratch folder ``tempfile`` makes, the checkout's docs).
"""
from __future__ import annotations

import argparse
import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.project.test_architecture import modules
from tests.shared import REPO

PRODUCT = ("touche", "stemming", "indexing", "retrieval")
OWNERS = {"touche/atomic.py": "the writer: every output file and folder, written beside and renamed",
          "touche/guard.py": "the guard: the folders commands fill, the locations a user names, their records",
          "touche/folderlock.py": "the lock of a folder a command fills: its own lock file only"}
# Modules that write beside the owners, each with what and where: no path a user names reaches
# those writes but through the guard (the first test verifies it; the second that each still writes).
OTHER_WRITERS = {
    "touche/cli/docs.py": "the checkout's generated docs, and a scratch ir_datasets cache tempfile makes for the "
                          "leaderboard (a developer's command)",
    "retrieval/encoders/dense.py": "the encodings database SQLite changes in place, at the path the guard owns "
                                   "(owned_database: made and recorded by the guard, its own while it is that file)",
}
WRITE_MODES = set("wax+")
PATH_CALLS = {"unlink", "rmdir", "symlink_to", "hardlink_to", "touch", "mkdir"}
ONE_ARG_CALLS = {"write_text", "write_bytes", "rename", "replace"}  # pathlib's take one argument
MODULE_CALLS = {"os": {"replace", "rename", "renames", "unlink", "remove", "rmdir", "removedirs", "symlink", "link",
                       "truncate", "mkdir", "makedirs"},
                "shutil": {"rmtree", "move", "copy", "copy2", "copyfile", "copytree"}}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
TEMPFILE_CALLS = {"mkdtemp", "mkstemp", "TemporaryDirectory", "NamedTemporaryFile"}
NOT_LOCATIONS = {"name", "stem", "suffix", "suffixes"}  # a name taken from a path is no location


def _mode(call: ast.Call, position: int) -> str | None:
    node = next((k.value for k in call.keywords if k.arg == "mode"), None)
    if node is None and len(call.args) > position:
        node = call.args[position]
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def write_site(node: ast.AST) -> tuple[str, list[ast.expr]] | None:
    """(what, the expressions naming where it writes) when ``node`` is a call that creates, writes,
    replaces or deletes on the file system."""
    if not isinstance(node, ast.Call):
        return None
    func, args = node.func, node.args
    first = args[:1]
    if isinstance(func, ast.Name) and func.id == "open" and set(_mode(node, 1) or "r") & WRITE_MODES:
        return f"open(..., {_mode(node, 1)!r})", first
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value.id if isinstance(func.value, ast.Name) else None
    if owner == "os" and func.attr == "open":
        flags = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)} & WRITE_FLAGS
        return (f"os.open(..., {'|'.join(sorted(flags))})", first) if flags else None
    if owner in MODULE_CALLS and func.attr in MODULE_CALLS[owner]:
        where = {"symlink": args[1:2], "link": args[1:2], "copy": args[1:2], "copy2": args[1:2],
                 "copyfile": args[1:2], "copytree": args[1:2]}.get(func.attr, args[:2])
        return f"{owner}.{func.attr}", where
    if owner == "sqlite3" and func.attr == "connect":
        return "sqlite3.connect", first
    if owner == "tempfile" and func.attr in TEMPFILE_CALLS:
        folder = _keyword(node, "dir")
        return (f"tempfile.{func.attr}(dir=…)", [folder]) if folder is not None else None
    if func.attr in ("extract", "extractall") and owner not in ("re",):
        folder = _keyword(node, "path") or (args[1] if func.attr == "extract" and len(args) > 1 else
                                            args[0] if func.attr == "extractall" and args else None)
        return f".{func.attr}()", [folder] if folder is not None else []
    if func.attr == "open" and owner not in ("os", "io", "gzip", "tarfile", "zipfile") \
            and set(_mode(node, 0) or "r") & WRITE_MODES:
        return f".open({_mode(node, 0)!r})", [func.value]
    if func.attr in PATH_CALLS:
        return f".{func.attr}()", [func.value]
    if func.attr in ONE_ARG_CALLS and len(args) == 1 and owner not in ("re", "str", "dataclasses"):
        return f".{func.attr}(…)", [func.value, *args] if func.attr in ("rename", "replace") else [func.value]
    return None


def writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every call that writes, replaces or deletes on the file system."""
    return [(node.lineno, site[0]) for node in ast.walk(tree) if (site := write_site(node))]


def product_modules() -> Iterator[tuple[str, Path]]:
    for folder in PRODUCT:
        for path in sorted((REPO / folder).rglob("*.py")):
            yield path.relative_to(REPO).as_posix(), path


# ------------------------------------------------------------------ where a user's paths come from
def path_settings() -> set[str]:
    """The settings the registry parses as paths."""
    from touche import settings
    return {name for name, spec in settings.SETTINGS.items() if spec.parse is settings.parse_path}


def cli_path_arguments() -> set[str]:
    """Every ``touche`` argument that a command's ``files(args)`` declares as something it reads,
    writes or fills: each argument given a value of its own, and the values found in the Files."""
    from touche.cli import build_parser
    parser = build_parser()
    subcommands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = set()
    for sub in subcommands.choices.values():
        values = {}
        for action in sub._actions:
            if action.dest in ("help", "files", "func", "command"):
                continue
            value = f"/given/{action.dest}"
            many = action.nargs in ("*", "+") or isinstance(action, argparse._AppendAction)
            values[action.dest] = [value] if many else value
        namespace = argparse.Namespace(**{**{a.dest: a.default for a in sub._actions}, **values})
        files = sub.get_default("files")(namespace)
        named = {str(path) for _, path in (*files.reads, *files.writes, *files.folders)}
        found |= {dest for dest in values if any(f"/given/{dest}" in text for text in named)}
    return found


# What the YAML reader returns is a user's: every key of a variant, suite or sweep (a stoplist, a
# model file, a sweep's output folder) comes out of it.
YAML_READERS = {("touche.yamlfiles", "load_yaml"), ("touche.yamlfiles", "read_yaml")}


# ------------------------------------------------------------------ following them
@dataclass
class Function:
    module: str
    name: str  # "f", "Class.method", or "<module>" for a module's own statements
    node: ast.AST
    params: list[str]
    klass: str | None = None
    tainted: set[str] = field(default_factory=set)
    fields: bool = False  # a class's fields, set by the call (no __init__ of its own)


class Reach:
    """Which values a user's path reaches, over the whole product (context-insensitive: a
    parameter is reached when any call hands it a reached value)."""

    def __init__(self, files: dict[str, Path], settings: set[str], arguments: set[str],
                 readers: set[tuple[str, str]] = YAML_READERS):
        self.files = files
        self.settings, self.arguments = settings, arguments
        self.trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in files.items()}
        self.functions: dict[tuple[str, str], Function] = {}
        self.imports: dict[str, dict[str, tuple[str, str | None]]] = {}
        self.returns: set[tuple[str, str]] = set(readers)
        self.attributes: set[tuple[str, str]] = set()  # (module, Class) attributes a user's path reaches
        self.owner_names: set[str] = set()
        for module, tree in self.trees.items():
            self._index(module, tree)
        self.methods: dict[str, list[tuple[str, str]]] = {}
        for (module, name), function in self.functions.items():
            if self.owned(module):
                self.owner_names.add(name.rpartition(".")[2])
            elif function.klass:
                self.methods.setdefault(name.rpartition(".")[2], []).append((module, name))
        self.resolved: dict[int, list[tuple[str, str]]] = {}
        self.nodes = {key: self._nodes_of(function) for key, function in self.functions.items()}
        self._seed_api()
        self._run()

    def owned(self, module: str) -> bool:
        return self.path_of(module) in OWNERS

    def path_of(self, module: str) -> str:
        return self.files[module].relative_to(REPO).as_posix()

    # ---------------------------------------------------------------- the program
    def _index(self, module: str, tree: ast.Module) -> None:
        names: dict[str, tuple[str, str | None]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in self.files:
                        names[alias.asname or alias.name] = (alias.name, None)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    names[alias.asname or alias.name] = ((full, None) if full in self.files
                                                         else (node.module, alias.name))
        self.imports[module] = names
        self.functions[module, "<module>"] = Function(module, "<module>", tree, [])
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._add(module, node.name, node)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._add(module, f"{node.name}.{item.name}", item, node.name)
                if (module, f"{node.name}.__init__") not in self.functions:
                    # a dataclass or a model: the call's arguments are its attributes
                    fields = [t.target.id for t in node.body if isinstance(t, ast.AnnAssign)
                              and isinstance(t.target, ast.Name)]
                    self.functions[module, f"{node.name}.__init__"] = Function(
                        module, f"{node.name}.__init__", ast.parse(""), ["self", *fields], node.name, fields=True)

    def _add(self, module: str, name: str, node, klass: str | None = None) -> None:
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        if node.args.vararg:
            params.append(node.args.vararg.arg)
        if node.args.kwarg:
            params.append(node.args.kwarg.arg)
        self.functions[module, name] = Function(module, name, node, params, klass)

    def _seed_api(self) -> None:
        """Every argument of the public Python API is a user's."""
        for (module, name), function in self.functions.items():
            public = not any(part.startswith("_") for part in name.split(".")) or name.endswith(".__init__")
            if (module == "touche.api" or module.startswith("touche.pyterrier")) and public and name != "<module>":
                function.tainted |= {p for p in function.params if p not in ("self", "cls")}

    def resolve(self, module: str, func: ast.expr, klass: str | None) -> list[tuple[str, str]]:
        """The product functions a call may run (a class's __init__ for a class)."""
        if id(func) not in self.resolved:
            self.resolved[id(func)] = self._resolve(module, func, klass)
        return self.resolved[id(func)]

    def _resolve(self, module: str, func: ast.expr, klass: str | None) -> list[tuple[str, str]]:
        def named(target_module: str, name: str) -> list[tuple[str, str]]:
            if (target_module, name) in self.functions:
                return [(target_module, name)]
            if (target_module, f"{name}.__init__") in self.functions:
                return [(target_module, f"{name}.__init__")]
            return []
        if isinstance(func, ast.Name):
            if (module, func.id) in self.functions or (module, f"{func.id}.__init__") in self.functions:
                return named(module, func.id)
            imported = self.imports[module].get(func.id)
            return named(imported[0], imported[1]) if imported and imported[1] else []
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name):
                imported = self.imports[module].get(func.value.id)
                if imported and imported[1] is None:
                    return named(imported[0], func.attr)
                if func.value.id == "self" and klass:
                    return named(module, f"{klass}.{func.attr}")
            return self.methods.get(func.attr, [])
        return []

    # ---------------------------------------------------------------- reached values
    def reached(self, node: ast.AST | None, function: Function) -> bool:
        if node is None or isinstance(node, (ast.Constant, ast.Lambda)):
            return False
        module = function.module
        if isinstance(node, ast.Name):
            return node.id in function.tainted or (node.id == "argv"
                                                   and self.imports[module].get("argv") == ("sys", "argv"))
        if isinstance(node, ast.Attribute):
            if node.attr in NOT_LOCATIONS:
                return False
            if isinstance(node.value, ast.Name):
                if node.value.id == "sys" and node.attr == "argv":
                    return True
                if node.value.id == "os" and node.attr == "environ":
                    return True
                if node.value.id == "args" and module.startswith("touche.cli.") and node.attr in self.arguments:
                    return True
                if node.value.id == "self" and (module, function.klass) in self.attributes:
                    return True
            return self.reached(node.value, function)
        if isinstance(node, ast.Call):
            return self._call_reached(node, function)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.reached(node.elt, function)  # its loops' names are the function's (see _step)
        if isinstance(node, ast.DictComp):
            return self.reached(node.key, function) or self.reached(node.value, function)
        if isinstance(node, ast.IfExp):
            return self.reached(node.body, function) or self.reached(node.orelse, function)
        if isinstance(node, ast.Subscript):
            return self.reached(node.value, function)  # what an index selects is the container's
        if isinstance(node, ast.Compare):
            return False  # a truth value
        return any(self.reached(child, function) for child in ast.iter_child_nodes(node)
                   if isinstance(child, ast.expr) or isinstance(child, (ast.comprehension, ast.keyword)))

    def _call_reached(self, node: ast.Call, function: Function) -> bool:
        func, module = node.func, function.module
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if called == "getenv":
            return True
        if called == "setting":  # touche.settings.setting(NAME): a path setting is a user's path
            name = node.args[0] if node.args else None
            return not isinstance(name, ast.Constant) or name.value in self.settings
        callees = self.resolve(module, func, function.klass)
        if callees and all(self.owned(m) for m, _ in callees):
            return False  # what the writer or the guard returns is theirs
        if isinstance(func, ast.Attribute) and func.attr in self.owner_names and \
                (not callees or not self.reached(func.value, function)):
            return False  # a method of the guard's on an object no user's path reaches: one of the guard's
        if callees:
            return any(callee in self.returns for callee in callees)
        parts = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(func, ast.Attribute):
            parts.append(func.value)
        return any(self.reached(part, function) for part in parts)

    # ---------------------------------------------------------------- to a fixpoint
    def _run(self) -> None:
        """Every function once, then again each one whose parameters, callees' returns or class
        attributes a user's path newly reaches, until none is."""
        self.callers: dict[tuple[str, str], set[tuple[str, str]]] = {}
        for key, nodes in self.nodes.items():
            for node in nodes:
                if isinstance(node, ast.Call):
                    for callee in self.resolve(key[0], node.func, self.functions[key].klass):
                        self.callers.setdefault(callee, set()).add(key)
        self.dirty = list(self.functions)
        while self.dirty:
            key = self.dirty.pop()
            while self._step(self.functions[key]):  # until its own names settle (a loop assigns late)
                pass

    def _touch(self, key: tuple[str, str]) -> None:
        if key not in self.dirty:
            self.dirty.append(key)

    def _touch_class(self, module: str, klass: str | None) -> None:
        for key, function in self.functions.items():
            if key[0] == module and function.klass == klass:
                self._touch(key)

    FLOWS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension,
             ast.withitem, ast.Return, ast.Call)

    def _nodes_of(self, function: Function) -> list[ast.AST]:
        """The nodes a value flows through: assignments, loops, with, returns and calls (a module's
        own statements without its functions and classes)."""
        if function.fields:
            return []
        if isinstance(function.node, ast.Module):
            tops = [t for t in function.node.body if not isinstance(t, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                       ast.ClassDef))]
        else:
            tops = [function.node]
        return [n for top in tops for n in ast.walk(top) if isinstance(n, self.FLOWS)]

    def _step(self, function: Function) -> bool:
        changed = False
        for node in self.nodes[function.module, function.name]:
            targets, value = [], None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                targets, value = [node.target], node.value
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                targets, value = [node.target], node.iter
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets, value = [node.optional_vars], node.context_expr
            for target, part in self._pairs(targets, value):
                if self.reached(part, function):
                    changed |= self._assign(target, function)
            if isinstance(node, ast.Return) and self.reached(node.value, function) and \
                    (function.module, function.name) not in self.returns:
                self.returns.add((function.module, function.name))
                for caller in self.callers.get((function.module, function.name), ()):
                    self._touch(caller)
                changed = True
            if isinstance(node, ast.Call):
                changed |= self._hand_over(node, function)
        return changed

    @staticmethod
    def _pairs(targets: list[ast.expr], value: ast.expr | None) -> list[tuple[ast.expr, ast.expr]]:
        """Each target with the part of the value it gets: ``a, b = x, y`` element by element."""
        if value is None:
            return []
        pairs = []
        for target in targets:
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
                    and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
                pairs += zip(target.elts, value.elts)
            else:
                pairs.append((target, value))
        return pairs

    def _assign(self, target: ast.expr, function: Function) -> bool:
        """A user's path reaches ``target``: its names, or its object's attributes (``self.x = …``)."""
        changed = False
        for name in ast.walk(target):
            if isinstance(name, ast.Name) and name.id not in function.tainted:
                function.tainted.add(name.id)
                changed = True
            elif isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name) and \
                    name.value.id == "self" and (function.module, function.klass) not in self.attributes:
                self.attributes.add((function.module, function.klass))
                self._touch_class(function.module, function.klass)
                changed = True
        return changed

    def _hand_over(self, node: ast.Call, function: Function) -> bool:
        """A reached argument reaches the parameter it lands in."""
        changed = False
        for module, name in self.resolve(function.module, node.func, function.klass):
            callee = self.functions[module, name]
            params = [p for p in callee.params if p not in ("self", "cls")] if callee.klass else callee.params
            landed = [params[i] if i < len(params) else (params[-1] if params else None)
                      for i, arg in enumerate(node.args) if self.reached(arg, function)]
            landed += [k.arg if k.arg in params else (params[-1] if params else None)
                       for k in node.keywords if self.reached(k.value, function)]
            for param in landed:
                if param is not None and param not in callee.tainted:
                    callee.tainted.add(param)
                    self._touch((module, name))
                    changed = True
            if callee.fields and callee.tainted and (module, callee.klass) not in self.attributes:
                self.attributes.add((module, callee.klass))
                self._touch_class(module, callee.klass)
                changed = True
        return changed

    # ---------------------------------------------------------------- the writes it reaches
    def reached_writes(self, module: str) -> list[tuple[int, str]]:
        found = []
        for (m, _), function in self.functions.items():
            if m != module:
                continue
            top = function.node.body if isinstance(function.node, ast.Module) else [function.node]
            for statement in top:
                if isinstance(function.node, ast.Module) and isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
                    continue
                for node in ast.walk(statement):
                    site = write_site(node)
                    if site and any(self.reached(where, function) for where in site[1]):
                        found.append((node.lineno, site[0]))
        return sorted(set(found))


@pytest.fixture(scope="module")
def reach() -> Reach:
    known = modules()
    files = {m: p for m, p in known.items() if p.relative_to(REPO).parts[0] in PRODUCT}
    return Reach(files, path_settings(), cli_path_arguments())


def test_no_path_a_user_names_reaches_a_write_outside_the_writer_and_the_guard(reach):
    offenders = [f"{reach.path_of(m)}:{line}: {what}" for m in sorted(reach.files) if not reach.owned(m)
                 for line, what in reach.reached_writes(m)]
    assert not offenders, ("a location a user can name is written outside the writer and the guard: write through "
                           "touche.atomic (a file a user names) or guard.OutputFolder / named_location (a folder "
                           "the toolkit fills, an index root, a cache):\n" + "\n".join(offenders))


def test_every_module_that_writes_is_an_owner_or_listed_with_what_it_writes():
    """A module outside the owners that writes says what and where; the list is what is true now."""
    writing = {name for name, path in product_modules() if writes(ast.parse(path.read_text(encoding="utf-8")))}
    assert writing - set(OWNERS) == set(OTHER_WRITERS)


def test_the_sources_are_the_paths_a_user_names():
    """The check starts where a user's paths come from: if these shrank, it would follow nothing."""
    assert {"TOUCHE_INDEX_ROOT", "TOUCHE_HELPER_JAR", "TOUCHE_DATASETS_CACHE", "TOUCHE_MODEL_CACHE",
            "TOUCHE_OCR_CACHE", "IR_DATASETS_HOME"} <= path_settings()
    assert {"index_root", "output", "input", "config", "topics", "qrels", "out"} <= cli_path_arguments()
    assert all(hasattr(importlib.import_module(module), name) for module, name in YAML_READERS)


def _reach_of(tmp_path: Path, sources: dict[str, str], **seeds) -> Reach:
    """The check over fake modules (named as product modules; ``touche.guard`` is the owner)."""
    files = {}
    for module, text in sources.items():
        files[module] = (tmp_path / Path(*module.split("."))).with_suffix(".py")
        files[module].parent.mkdir(parents=True, exist_ok=True)
        files[module].write_text(text, encoding="utf-8")

    class Fake(Reach):
        def path_of(self, module):
            return "touche/guard.py" if module == "touche.guard" else f"{module}.py"
    return Fake(files, seeds.get("settings", set()), seeds.get("arguments", set()), {("touche.yamlfiles", "read_yaml")})


def test_the_check_follows_a_setting_an_argument_and_a_key_to_a_write(tmp_path):
    """The check is only as good as its following: the index builder's old rmtree of a folder under
    the root a setting names, through a default, a call and a join, is found; so are a flag handed
    down to a helper, a YAML key, an object's attribute, the API's argument and sys.argv; the
    guard's own folder and a scratch folder are not."""
    sources = {
        "touche.paths": "from touche.settings import setting\n"
                        "def default_root():\n    return setting('TOUCHE_INDEX_ROOT') or Path('x')\n",
        "touche.builder": "import shutil\nfrom touche.paths import default_root\n"
                          "def ensure(root=None):\n    root = root or default_root()\n    build(root / 'k')\n"
                          "def build(target):\n    if target.exists():\n        shutil.rmtree(target)\n",
        "touche.cli.index": "from touche.builder import ensure\ndef run(args):\n    ensure(args.index_root)\n"
                            "def other(args):\n    args.quiet.unlink()\n",
        "touche.yamlfiles": "def read_yaml(path):\n    return {}\n",
        "touche.sweep": "from touche.yamlfiles import read_yaml\nclass Sweep:\n    def __init__(self, file):\n"
                        "        self.out = read_yaml(file)['output']\n"
                        "    def write(self):\n        (self.out / 'x').write_text('y')\n",
        "touche.api": "def index(root):\n    open(root / 'f', 'w')\n",
        "touche.jvm": "import sys\nfrom touche.guard import named_location\nimport tempfile\n"
                      "def main():\n    to = sys.argv[1]\n    folder = named_location(to)\n"
                      "    (folder.path / 'jar').unlink()\n    with tempfile.TemporaryDirectory() as scratch:\n"
                      "        (Path(scratch) / to.name).symlink_to(to)\n",
        "touche.guard": "def named_location(path):\n    return path\n",
    }
    found = _reach_of(tmp_path, sources, settings={"TOUCHE_INDEX_ROOT"}, arguments={"index_root"})
    assert found.reached_writes("touche.builder") == [(8, "shutil.rmtree")]
    assert found.reached_writes("touche.cli.index") == []  # --quiet is no path
    assert found.reached_writes("touche.sweep") == [(6, ".write_text(…)")]
    assert found.reached_writes("touche.api") == [(2, "open(..., 'w')")]
    assert found.reached_writes("touche.jvm") == []
    unguarded = _reach_of(tmp_path, {**sources, "touche.jvm": sources["touche.jvm"].replace(
        "folder = named_location(to)", "folder = Folder(to)")}, settings={"TOUCHE_INDEX_ROOT"})
    assert unguarded.reached_writes("touche.jvm") == [(7, ".unlink()")]


def test_the_check_sees_each_kind_of_write():
    source = '''
open(p, "w"); open(p, mode="ab"); open(p)
os.open(p, os.O_WRONLY | os.O_CREAT); os.open(p, os.O_RDONLY)
os.replace(a, b); os.unlink(a); shutil.rmtree(a); shutil.copyfile(a, b); os.makedirs(a)
path.open("w"); path.open(); path.write_text("x"); path.write_bytes(b"x"); folder.write_text("name", "x")
path.unlink(); path.rmdir(); path.rename(q); text.replace("a", "b"); link.symlink_to(t); path.mkdir()
sqlite3.connect(p); zf.extractall(p); zf.extract(m, p); tempfile.mkdtemp(dir=p); tempfile.mkdtemp()
'''
    kinds = sorted(what for _, what in writes(ast.parse(source)))
    assert kinds == sorted(["open(..., 'w')", "open(..., 'ab')", "os.open(..., O_CREAT|O_WRONLY)", "os.replace",
                            "os.unlink", "shutil.rmtree", "shutil.copyfile", "os.makedirs", ".open('w')",
                            ".write_text(…)", ".write_bytes(…)", ".unlink()", ".rmdir()", ".rename(…)",
                            ".symlink_to()", ".mkdir()", "sqlite3.connect", ".extractall()", ".extract()",
                            "tempfile.mkdtemp(dir=…)"])
