"""The documentation cannot drift from the code.

The config reference and the generated blocks of the guides (each suite's variants, the
ir_datasets ids, the CLI's help) are rendered from the code: a stale page fails here. The
guides have the sections the issue asks for, the README starts with its two commands, and every
``touche`` command shown in the docs is accepted by the parser. Every path, module, source file
and test that the pages, docstrings and comments name exists, and every page is in the index.
"""
from __future__ import annotations

import ast
import bisect
import fnmatch
import functools
import re
import shlex
from pathlib import Path

import pytest
import yaml

from tests.shared import REPO
from touche.cli import build_parser, docs
from touche.config import BM25

DOCS = REPO / "docs"
GUIDES = {"task1": "task1.md", "task1-pairs": "task1-pairs.md", "task2": "task2.md", "task2-stance": "task2.md",
          "image": "image.md"}


def test_generated_pages_are_up_to_date(capsys):
    code = docs.main(["--check"])
    assert code == 0, capsys.readouterr().err + "\n(run `python -m touche.cli.docs` and commit the result)"


def test_a_schema_change_makes_the_reference_stale(monkeypatch, tmp_path, capsys):
    """The page comes from the schema: change a description, a range, a default and the
    rendering changes with it, and --check reports the committed page as stale."""
    before = docs.render()
    field = BM25.model_fields["k1"]
    monkeypatch.setattr(field, "description", "saturation, as changed by this test")
    monkeypatch.setattr(field, "default", 1.7)
    after = docs.render()
    assert after != before
    assert "| `k1` | number | `1.7` | [0, 10] | saturation, as changed by this test |" in after
    monkeypatch.setattr(docs, "REFERENCE", tmp_path / "config-reference.md")
    (tmp_path / "config-reference.md").write_text(before)
    monkeypatch.setattr(docs, "generated_pages", lambda: {docs.REFERENCE: docs.render()})
    assert docs.main(["--check"]) == 1
    assert "config-reference.md is stale" in capsys.readouterr().err


def _reference_keys() -> dict[str, set[str]]:
    """{section path: keys} as the reference lists them, per file kind."""
    out: dict[str, set[str]] = {}
    section = None
    for line in (DOCS / "config-reference.md").read_text().splitlines():
        if m := re.match(r"### (Run variant|Suite|Sweep): (?:top level|`([^`]+)`)", line):
            section = f"{m.group(1)}:{m.group(2) or ''}"
            out.setdefault(section, set())
        elif section and (m := re.match(r"\| `([a-z0-9_]+)` \|", line)):
            out[section].add(m.group(1))
    return out


def _dotted_keys(data, prefix: str = ""):
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        yield prefix, key
        if key == "sets" and not prefix and isinstance(value, dict):  # a sweep's sets: name → section
            for item in value.values():
                yield from _dotted_keys(item, "sets.<name>")
        elif isinstance(value, dict) and key not in ("field_weights", "qrels", "grid",
                                                     "text_weights", "cross_validated"):
            yield from _dotted_keys(value, path)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value) and key == "rerank":
            for item in value:
                yield from _dotted_keys(item, f"{path}[]")


def test_every_key_our_configs_use_is_in_the_reference():
    listed = _reference_keys()
    checked = 0
    for path in sorted((REPO / "configs").rglob("*.yaml")):
        if path.name == "regression.yaml":
            continue  # pinned figures written by `touche regressions`, not a config
        data = yaml.safe_load(path.read_text()) or {}
        kind = "Suite" if path.name == "suite.yaml" else "Sweep" if "sweeps" in path.parts else "Run variant"
        for section, key in _dotted_keys(data):
            if kind == "Run variant" and key == "extends" and not section:
                continue  # the loader's own key, documented in the reference's introduction
            if kind == "Sweep" and section.startswith(("grid", "zip")):
                continue
            assert key in listed.get(f"{kind}:{section}", set()), f"{path.relative_to(REPO)}: {section}.{key}"
            checked += 1
    assert checked > 50


def test_readme_starts_with_the_two_commands():
    text = (REPO / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["./run_all.sh", "./run_tests.sh"]


@pytest.mark.parametrize("task", sorted(GUIDES))
def test_each_task_has_a_guide_with_the_asked_sections(task):
    text = (DOCS / GUIDES[task]).read_text()
    for heading in ("## Input layout", "## The five default variants", "## Write your own variant", "## Sweep",
                    "## Read the report"):
        assert heading in text, f"{GUIDES[task]}: {heading}"
    assert f"<!-- generated: variants configs/{task}/suite.yaml -->" in text


def test_each_guide_lists_its_suites_variants():
    for task, page in GUIDES.items():
        suite = REPO / "configs" / task / "suite.yaml"
        block = re.search(
            rf"<!-- generated: variants configs/{re.escape(task)}/suite.yaml -->\n(.*?)<!-- /generated -->",
            (DOCS / page).read_text(),
            re.S,
        ).group(1)
        if not suite.is_file():
            assert "is not written yet" in block
            continue
        for name in yaml.safe_load(suite.read_text())["variants"]:
            assert f"configs/{task}/{name}" in block, f"{page} does not list {name}"


def _shown_commands() -> list[tuple[str, str]]:
    """(page, command) for every `touche …` line in a bash block of the docs and the README."""
    found = []
    for page in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #")[0].strip()
                if line.startswith("touche "):
                    found.append((page.name, line))
    return found


def test_every_touche_command_in_the_docs_parses():
    shown = _shown_commands()
    assert len(shown) >= 10
    parser = build_parser()
    for page, line in shown:
        argv = shlex.split(line)[1:]
        try:
            parser.parse_args(argv)
        except SystemExit as exc:
            raise AssertionError(f"{page}: `{line}` is not accepted by the CLI") from exc


def test_leaderboard_explains_its_reproduction():
    text = (DOCS / "leaderboard.md").read_text()
    assert "python -m touche.cli.docs --leaderboard" in text
    names = re.findall(r"<!-- generated: leaderboard ([\w-]+) -->", text)
    assert names == [b.name for b in docs.BOARDS]
    task1 = re.search(r"<!-- generated: leaderboard task1-demo -->\n(.*?)<!-- /generated -->", text, re.S).group(1)
    for name in yaml.safe_load((REPO / "configs/task1/suite.yaml").read_text())["variants"]:
        assert Path(name).stem in task1, f"the Task 1 demo table lacks {name}"


# --------------------------------------------------------------------------- names that must exist
# A page, a docstring or a comment that names a module, a file or a test the code no longer has
# sends its reader nowhere (a sweep module that became a package, a stance module that was split):
# every such name is checked here. Repository paths (and path.attribute), dotted module names
# with their attribute, bare source file names, test names, and the pages' own links.
ROOTS = ("touche", "retrieval", "indexing", "stemming", "bench", "tests", "configs", "demo", "java", "docs", "scripts")
LAYERS = ("retrieval", "indexing", "stemming")  # touche.<layer> lives in <layer>/ (setup.py)
ROOTED = re.compile(r"(?<![\w./:$~-])((?:%s)/(?:[\w./*<>…-]*[\w/*>…])?)" % "|".join(ROOTS))
DOTTED = re.compile(r"(?<![\w./:-])((?:touche|bench)(?:\.\w+)+)(?!\.?[\w@])")
BARE = re.compile(r"(?<![\w./:$~-])((?:[\w-]+/)*[\w-]+\.(?:py|js|java|sh))(?![\w.])")
TEST_NAME = re.compile(r"(?<![\w./:])(test_\w+)(?![\w/.])")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
PLACEHOLDER = re.compile(r"<[^>/]*>|\*|…|\b[A-Z]+\b")  # configs/<task>/…, configs/TASK/suite.yaml
# Named on purpose, yet not in the repository; each with where it is instead.
ELSEWHERE = {
    "bench/data/": "the benchmarks' corpora and results, made by python -m bench (ignored by git)",
    "touche/20": "ir_datasets' own file names under its home (datasets.md's generated table)",
    "touche/lib/": "the helper jar a wheel carries, compiled by setup.py",
    "touche/requirements.lock": "the pins a wheel carries, copied there by setup.py",
    "configs/task1/my-porter-lmd.yaml": "the variant task1.md has its reader write",
}
THEIRS = {"coverage.py", "node.js", "_impact_searcher.py"}  # other projects' names


def _skipped(path: Path) -> bool:
    return any(part.startswith(".") or part in ("node_modules", "__pycache__") for part in path.relative_to(REPO).parts)


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.glob("*.md"))]


def _files() -> list[str]:
    """The repository's files under its top folders, as relative paths."""
    return sorted(str(p.relative_to(REPO)) for root in ROOTS for p in (REPO / root).rglob("*")
                  if p.is_file() and not _skipped(p))


# Python's strings and comments, in the order they come (C speed; tokenize or ast over every module
# costs seconds). A triple-quoted string opening a line of its own is a docstring; a string in code
# (an argument, an assignment) may name a path it is about to make, and is not read.
LEXED = re.compile(r'(?P<q>"""|' + r"''')(?P<long>.*?)(?<!\\)(?P=q)"  # a long string
                   + r'|"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'"  # a short one
                   + r"|(?P<comment>#[^\n]*)", re.S)


@functools.cache
def _prose_of(source: str) -> tuple[list[int], list[tuple[int, int]]]:
    """Where each line starts, and the spans of the docstrings and comments, in order."""
    starts = [0] + [m.end() for m in re.finditer("\n", source)]
    spans = []
    for m in LEXED.finditer(source):
        if m["comment"] is not None:
            spans.append(m.span("comment"))
        elif m["long"] is not None and not source[source.rfind("\n", 0, m.start()) + 1:m.start()].strip(" \trRuU"):
            spans.append(m.span("long"))
    return starts, spans


def prose_matches(pattern: re.Pattern, source: str) -> list[tuple[int, str]]:
    """(line, name) of each match of ``pattern`` in a Python source's docstrings and comments."""
    starts, spans = _prose_of(source)
    found = []
    for match in pattern.finditer(source):
        i = bisect.bisect_right(spans, (match.start(), len(source))) - 1
        if i >= 0 and spans[i][0] <= match.start() < spans[i][1]:
            found.append((bisect.bisect_right(starts, match.start()), match.group(1)))
    return found


@functools.cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _named(pattern: re.Pattern) -> list[tuple[str, str]]:
    """(where, name) of every match in the README and the pages, and in the docstrings and
    comments of every Python file."""
    found = [(page.name, m.group(1)) for page in _pages() for m in pattern.finditer(_text(page))]
    for path in [*(REPO / f for f in _files() if f.endswith(".py")), *REPO.glob("*.py")]:
        found += [(f"{path.relative_to(REPO)}:{line}", name) for line, name in prose_matches(pattern, _text(path))]
    return found


def _module_file(parts: list[str]) -> Path | None:
    if parts[0] == "touche" and len(parts) > 1 and parts[1] in LAYERS:
        parts = parts[1:]
    base = REPO.joinpath(*parts)
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


@functools.cache
def _bound_names(path: Path) -> set[str]:
    """The names a module binds at its top level (and a package's submodules)."""
    names = set()
    for node in ast.parse(_text(path)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    if path.name == "__init__.py":
        names |= {p.stem for p in path.parent.glob("*.py")} | {p.parent.name for p in path.parent.glob("*/__init__.py")}
    return names


def _served(module: list[str], name: str, path: Path) -> bool:
    """Whether a module that serves names on first use (a module ``__getattr__``, as touche.api's
    functions load with their submodule) serves ``name``."""
    if "__getattr__" not in _bound_names(path):
        return False
    import importlib
    return hasattr(importlib.import_module(".".join(module)), name)


def module_problem(dotted: str) -> str | None:
    """Why a dotted name (``touche.retrieval.formats.gate``, ``touche.jvm.use_starter``) names no
    module, or an attribute its module does not bind; None when it names one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = _module_file(parts[:cut])
        if path is not None:
            if cut == len(parts) or parts[cut] in _bound_names(path) or _served(parts[:cut], parts[cut], path):
                return None
            return f"{'.'.join(parts[:cut])} has no {parts[cut]}"
    return "no such module"


def path_problem(name: str, files: list[str]) -> str | None:
    """Why a repository path named in prose names nothing (None when it names something). Only a
    name that reads as a path is checked: with a file's extension or a folder's trailing slash
    (docs/s is a unit). ``indexing/corpora.check_corpus_files`` is a module's attribute."""
    last = name.rstrip("/").rsplit("/", 1)[-1]
    if not (name.endswith("/") or "." in last) or name.startswith(tuple(ELSEWHERE)) or (REPO / name).exists():
        return None
    folder, _, attribute = name.rpartition(".")
    if "/" not in attribute and (REPO / folder).with_suffix(".py").is_file():
        bound = _bound_names((REPO / folder).with_suffix(".py"))
        return None if attribute in bound else f"{folder}.py has no {attribute}"
    if PLACEHOLDER.search(name):
        pattern = PLACEHOLDER.sub("*", name).rstrip("/")
        if any(fnmatch.fnmatch(f, pattern) or fnmatch.fnmatch(f, pattern + "/*") for f in files):
            return None
        return "nothing matches it"
    return "no such file or folder"


def test_every_path_named_in_the_docs_and_docstrings_exists():
    files, named = _files(), _named(ROOTED)
    assert len(named) > 300
    wrong = [f"{where}: {name}: {problem}" for where, name in named if (problem := path_problem(name, files))]
    assert not wrong, "\n".join(wrong)


def test_every_module_named_in_the_docs_and_docstrings_exists():
    named = _named(DOTTED)
    assert len(named) > 100
    wrong = [f"{where}: {name}: {problem}" for where, name in named if (problem := module_problem(name))]
    assert not wrong, "\n".join(wrong)


def test_every_source_file_named_by_its_name_alone_exists():
    """``sentences.py`` beside ``indexing/argsme.py``, ``(patterns.py)`` in a docstring: some file
    of the repository ends so."""
    files = [*_files(), *(p.name for p in REPO.glob("*.*"))]
    tails = {f.split("/", i)[-1] for f in files for i in range(f.count("/") + 1)}
    named = _named(BARE)
    assert len(named) > 100
    wrong = [f"{where}: {name}" for where, name in named if name not in THEIRS and name not in tails]
    assert not wrong, "no file of these names:\n" + "\n".join(wrong)


def test_every_test_named_in_the_docs_exists():
    defined = set()
    for path in (REPO / "tests").rglob("test_*.py"):
        defined |= set(re.findall(r"^\s*(?:async )?def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    named = [(page.name, m.group(1)) for page in _pages() for m in TEST_NAME.finditer(page.read_text(encoding="utf-8"))]
    assert len(named) > 100
    missing = [f"{page}: {name}" for page, name in named if name not in defined]
    assert not missing, "tests the docs name that no longer exist:\n" + "\n".join(missing)


def test_every_page_is_listed_in_the_index_and_every_link_leads_somewhere():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| \[([\w.-]+\.md)\]\(\1\) \|", index, re.M))
    pages = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    assert pages - listed == set(), "docs/README.md does not list these pages"
    assert listed - pages == set(), "docs/README.md lists pages that do not exist"
    broken = [f"{page.relative_to(REPO)}: {target}" for page in _pages()
              for target in LINK.findall(page.read_text(encoding="utf-8"))
              if "://" not in target and not target.startswith("mailto:") and not (page.parent / target).exists()]
    assert not broken, "links to nothing:\n" + "\n".join(broken)


def test_the_name_checks_tell_a_missing_name_from_a_present_one():
    """The checks above pass because the names exist, not because they look at nothing."""
    files = _files()
    assert path_problem("retrieval/experiments/sweep/spec.py", files) is None
    assert path_problem("retrieval/experiments/sweep.py", files) == "no such file or folder"
    assert path_problem("indexing/corpora.check_corpus_files", files) is None
    assert path_problem("indexing/corpora.no_such_function", files) == "indexing/corpora.py has no no_such_function"
    assert path_problem("configs/<task>/suite.yaml", files) is None
    assert path_problem("configs/<task>/nothing.yaml", files) == "nothing matches it"
    assert path_problem("docs/s", files) is None and path_problem("bench/data/results-N.md", files) is None
    assert module_problem("touche.retrieval.formats.gate.load_run") is None
    assert module_problem("touche.retrieval.formats.gate.no_reader") == "touche.retrieval.formats.gate has no no_reader"
    assert module_problem("touche.retrieval.experiments.sweep") is None
    assert module_problem("touche.retrieval.nowhere") == "touche.retrieval has no nowhere"
    source = ('def f():\n    """See retrieval/a.py,\n    retrieval/b.py."""\n    if 1:\n'
              '        return "retrieval/c.py", """retrieval/d.py"""  # retrieval/e.py\n    "#", "retrieval/f.py"\n')
    assert prose_matches(ROOTED, source) == [(2, "retrieval/a.py"), (3, "retrieval/b.py"), (5, "retrieval/e.py")]
