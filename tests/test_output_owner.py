"""One owner of every output path (docs/reliability.md, "What a command may touch"): no module but
the writer (touche/atomic.py), the guard (touche/guard.py) and its lock (touche/folderlock.py)
writes, replaces or deletes a file or folder, so a new command cannot forget the guard; the few
exceptions write only under names they make themselves, each listed here with why."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PRODUCT = ("touche", "stemming", "indexing", "retrieval")
OWNERS = {"touche/atomic.py": "the writer: every output file and folder, written beside and renamed",
          "touche/guard.py": "the guard: the folders commands fill and their records",
          "touche/folderlock.py": "the lock of a folder a command fills: its own lock file only"}
EXCEPTIONS = {
    "indexing/builder.py": "Lucene writes an index into a temporary the builder names with the writer's token "
                           "(atomic.temporary_name) and renames into the index root under its content key; "
                           "finished shards are moved in from their own folders to resume a build",
    "indexing/distributed.py": "a shard's claim file, created exclusively ('x') under the index root: one "
                               "worker of a cluster builds each shard",
    "touche/jvm.py": "the compiled Lucene helper jar, in the checkout's build/ or the user's cache: no name a "
                     "user gives",
    "touche/datasets.py": "ir_datasets' cache: archives unpacked and linked where ir_datasets looks, no name a "
                          "user gives",
    "retrieval/encoders/dense.py": "the sentence encoder's weights unpacked once into the user's cache",
    "touche/cli/docs.py": "the checkout's generated docs and the docs' example data (a developer's command)",
    "indexing/corpora.py": "links in a scratch folder of its own (tempfile) to try how a family reads a list of "
                           "corpus files",
}
WRITE_MODES = set("wax+")
PATH_CALLS = {"unlink", "rmdir", "symlink_to", "hardlink_to", "touch"}
ONE_ARG_CALLS = {"write_text", "write_bytes", "rename", "replace"}  # pathlib's take one argument
MODULE_CALLS = {"os": {"replace", "rename", "renames", "unlink", "remove", "rmdir", "removedirs", "symlink", "link",
                       "truncate"},
                "shutil": {"rmtree", "move", "copy", "copy2", "copyfile", "copytree"}}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def _mode(call: ast.Call, position: int) -> str | None:
    node = next((k.value for k in call.keywords if k.arg == "mode"), None)
    if node is None and len(call.args) > position:
        node = call.args[position]
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every call that writes, replaces or deletes on the file system."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open" and set(_mode(node, 1) or "r") & WRITE_MODES:
            found.append((node.lineno, f"open(..., {_mode(node, 1)!r})"))
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner == "os" and func.attr == "open":
                flags = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)} & WRITE_FLAGS
                if flags:
                    found.append((node.lineno, f"os.open(..., {'|'.join(sorted(flags))})"))
            elif owner in MODULE_CALLS and func.attr in MODULE_CALLS[owner]:
                found.append((node.lineno, f"{owner}.{func.attr}"))
            elif func.attr == "open" and owner not in ("os", "io", "gzip", "tarfile", "zipfile") \
                    and set(_mode(node, 0) or "r") & WRITE_MODES:
                found.append((node.lineno, f".open({_mode(node, 0)!r})"))
            elif func.attr in PATH_CALLS:
                found.append((node.lineno, f".{func.attr}()"))
            elif func.attr in ONE_ARG_CALLS and len(node.args) == 1 and owner not in ("re", "str", "dataclasses"):
                found.append((node.lineno, f".{func.attr}(…)"))
    return found


def product_modules():
    for folder in PRODUCT:
        for path in sorted((REPO / folder).rglob("*.py")):
            yield path.relative_to(REPO).as_posix(), path


def test_only_the_writer_and_the_guard_write_replace_or_delete():
    offenders = [f"{name}:{line}: {what}" for name, path in product_modules()
                 if name not in OWNERS and name not in EXCEPTIONS
                 for line, what in writes(ast.parse(path.read_text(encoding="utf-8")))]
    assert not offenders, ("write through touche.atomic (a file a user names) or a guard.OutputFolder (a folder a "
                           "command fills):\n" + "\n".join(offenders))


def test_every_exception_is_still_needed():
    """A listed module that no longer writes is struck off: the list is what is true now."""
    modules = dict(product_modules())
    idle = [name for name in EXCEPTIONS if not writes(ast.parse(modules[name].read_text(encoding="utf-8")))]
    assert not idle, idle


def test_the_check_sees_each_kind_of_write():
    source = '''
open(p, "w"); open(p, mode="ab"); open(p)
os.open(p, os.O_WRONLY | os.O_CREAT); os.open(p, os.O_RDONLY)
os.replace(a, b); os.unlink(a); shutil.rmtree(a); shutil.copyfile(a, b)
path.open("w"); path.open(); path.write_text("x"); path.write_bytes(b"x"); folder.write_text("name", "x")
path.unlink(); path.rmdir(); path.rename(q); text.replace("a", "b"); link.symlink_to(t)
'''
    kinds = sorted(what for _, what in writes(ast.parse(source)))
    assert kinds == sorted(["open(..., 'w')", "open(..., 'ab')", "os.open(..., O_CREAT|O_WRONLY)", "os.replace",
                            "os.unlink", "shutil.rmtree", "shutil.copyfile", ".open('w')", ".write_text(…)",
                            ".write_bytes(…)", ".unlink()", ".rmdir()", ".rename(…)", ".symlink_to()"])
