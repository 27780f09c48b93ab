"""`pip install` of a built wheel is the whole product: a fresh virtual environment gets the
wheel (built here, offline, from this checkout) and runs the demo submission from another
directory. Its third-party dependencies come from this environment's site-packages through a
path file, so the test needs no registry; the toolkit itself must come from the wheel."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.shared import REPO

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
    # the build leaves its metadata in the checkout, where it would shadow the installed entry
    # points of any Python started there (the current folder is first on sys.path)
    shutil.rmtree(REPO / "touche_toolkit.egg-info", ignore_errors=True)
    assert result.returncode == 0, result.stderr
    [built] = out.glob("touche_toolkit-*.whl")
    return built


def test_the_wheel_carries_the_product(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("touche/specs/__init__.py", "touche/indexing/corpora.py", "touche/retrieval/session.py",
                   "touche/stemming/analyzers.py", "touche/configs/task1/suite.yaml", "touche/demo/topics.xml",
                   "touche/demo/args.me/args-demo.json", "touche/java/src/touche/lucene/BatchIndexer.java",
                   "touche/lib/touche-lucene.jar", "touche/stemming/stoplists/smart.txt",
                   "touche/retrieval/stages/quality/data/quality_model.json", "touche/requirements.lock"):
        assert needed in names, needed
    # the pins the PyTerrier install line names (-c requirements.lock) are the checkout's
    assert zipfile.ZipFile(wheel).read("touche/requirements.lock") == (REPO / "requirements.lock").read_bytes()
    # no top-level module that could clash with another distribution
    assert {n.split("/")[0] for n in names} == {"touche", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1]
                                                + ".dist-info"}


def installed(wheel: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, str], Path]:
    """A fresh venv holding the wheel (its dependencies from this environment's site-packages as a
    plain path): its python, site-packages, a clean environment and a folder outside the checkout."""
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
    return python, site, env, elsewhere


def test_the_version_has_one_source_pyproject(wheel):
    """The wheel, the installed package's metadata and the package's ``__version__`` all say
    pyproject.toml's version; no module keeps a copy of it."""
    import tomllib
    from importlib.metadata import version

    import touche

    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert wheel.name.startswith(f"touche_toolkit-{declared}-")
    assert touche.__version__ == version("touche-toolkit") == declared
    assert declared not in (REPO / "touche" / "__init__.py").read_text(encoding="utf-8")


def test_the_installed_wheel_runs_the_demo_submission_from_another_directory(wheel, tmp_path):
    python, site, env, elsewhere = installed(wheel, tmp_path)
    venv = python.parent.parent
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


PAGE_RUNNER = r"""
import contextlib, io, json, re, sys
import touche
assert "site-packages" in touche.__file__, touche.__file__  # the wheel's, not the checkout's
outputs = []
namespace = {}
for block in re.findall(r"```python\n(.*?)```", open(sys.argv[1], encoding="utf-8").read(), flags=re.S):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, sys.argv[1], "exec"), namespace)
    outputs.append(printed.getvalue().splitlines())
print(json.dumps(outputs))
"""


def test_the_pyterrier_page_runs_from_the_installed_wheel(wheel, tmp_path):
    """docs/pyterrier.md as an installed user runs it: outside the checkout, the data found
    through TOUCHE_SHARED, the PyTerrier entry points from the wheel's metadata."""
    pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")
    from tests.api.test_python_api import code_blocks, expected_output
    from tests.shared import require_shared
    python, _, env, elsewhere = installed(wheel, tmp_path)
    env["TOUCHE_SHARED"] = str(require_shared())
    page = REPO / "docs" / "pyterrier.md"
    done = subprocess.run([str(python), "-c", PAGE_RUNNER, str(page)], capture_output=True, text=True, env=env,
                          cwd=elsewhere, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    printed = json.loads(done.stdout.strip().splitlines()[-1])
    blocks = code_blocks(page.read_text(encoding="utf-8"))
    assert printed == [expected_output(block) for block in blocks]
    entry_points = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(sorted({e.value for e in "
                                   "m.entry_points(group='pyterrier.java.init')} | {e.value for e in "
                                   "m.entry_points(group='pyterrier.artifact')}))"],
                                  capture_output=True, text=True, env=env, cwd=elsewhere, check=True).stdout
    assert "touche.pyterrier.java:ToucheJavaInit" in entry_points and "touche.pyterrier.index:Index" in entry_points
