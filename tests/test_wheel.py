"""`pip install` of a built wheel is the whole product: a fresh virtual environment gets the
wheel (built here, offline, from this checkout) and runs the demo submission from another
directory. Its third-party dependencies come from this environment's site-packages through a
path file, so the test needs no registry; the toolkit itself must come from the wheel."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # setuptools builds in the checkout's build/: files of a removed module would linger in
    # build/lib and slip into the wheel (build/touche-lucene.jar is ours and stays)
    for stale in [REPO / "build" / "lib", *(REPO / "build").glob("bdist.*")]:
        shutil.rmtree(stale, ignore_errors=True)
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                             "--no-index", "-q", "-w", str(out), str(REPO)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    [built] = out.glob("touche_toolkit-*.whl")
    return built


def test_the_wheel_carries_the_product(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("touche/specs/__init__.py", "touche/indexing/corpora.py", "touche/retrieval/session.py",
                   "touche/stemming/analyzers.py", "touche/configs/task1/suite.yaml", "touche/demo/topics.xml",
                   "touche/demo/args.me/args-demo.json", "touche/java/src/touche/lucene/BatchIndexer.java",
                   "touche/lib/touche-lucene.jar", "touche/stemming/stoplists/smart.txt",
                   "touche/retrieval/stages/data/quality_model.json"):
        assert needed in names, needed
    # no top-level module that could clash with another distribution
    assert {n.split("/")[0] for n in names} == {"touche", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1]
                                                + ".dist-info"}


def test_the_installed_wheel_runs_the_demo_submission_from_another_directory(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    result = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                             "--no-index", str(wheel)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # dependencies from this environment, as plain paths: its .pth files (our editable finder
    # among them) are not processed, so `touche` can only come from the wheel
    (site / "zz-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOUCHE_", "PYTHON"))}
    env.update(HOME=str(tmp_path / "home"), TOUCHE_INDEX_ROOT=str(tmp_path / "indexes"),
               TOUCHE_MODEL_CACHE=str(tmp_path / "models"))
    where = subprocess.run([str(python), "-c", "import touche.retrieval.session as s; print(s.__file__)"],
                           capture_output=True, text=True, env=env, cwd=elsewhere)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)
    run = subprocess.run([str(venv / "bin" / "touche"), "run-all", "-o", "out"], capture_output=True, text=True,
                         env=env, cwd=elsewhere, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    runs = sorted(p.name for p in (elsewhere / "out").glob("*.txt"))
    assert "run.txt" in runs and len(runs) >= 6, runs  # run.txt + the five variants
    assert "nDCG@5" in run.stdout  # the evaluation table on the demo's qrels
    assert "compiling the Lucene helpers" not in run.stderr  # the wheel's jar was used
