"""Shared fixtures. The JVM starts once per test session (a JVM starts once per process)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import FIXTURE_TOPICS, REPO, missing_tool, write_argsme


@pytest.fixture(scope="session", autouse=True)
def _session_caches(tmp_path_factory):
    """Unpacked models, cached encodings and OCR results of this session in folders of its own: a
    test never reads a vector or an image's text an earlier session (or code) made."""
    import os
    folders = {"TOUCHE_MODEL_CACHE": tmp_path_factory.mktemp("models"),
               "TOUCHE_OCR_CACHE": tmp_path_factory.mktemp("ocr-cache")}
    previous = {name: os.environ.get(name) for name in folders}
    os.environ.update({name: str(folder) for name, folder in folders.items()})
    yield folders
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def jvm_started():
    from touche import jvm
    jvm.start("1g")
    return jvm


@pytest.fixture(scope="session")
def fixture_corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    write_argsme(root / "args.me" / "args-fixture.json")
    (root / "args.me" / "topics.xml").write_text(FIXTURE_TOPICS)
    return root / "args.me"


@pytest.fixture(scope="session")
def index_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("indexes")


@pytest.fixture(scope="session")
def demo_out(jvm_started, tmp_path_factory, index_root):
    """The demo submission as run_all.sh writes it: five runs, evaluation.md and explore.html."""
    from touche.retrieval.suite import run_suite
    out = tmp_path_factory.mktemp("explore-demo")
    run_suite(REPO / "configs" / "task1" / "suite.yaml", None, out, index_root=index_root, progress=False)
    return out


@pytest.fixture(scope="session")
def tpt(jvm_started):
    """touche.pyterrier, imported once the session's JVM runs (PyTerrier starts Java through it)."""
    import touche.pyterrier as module
    return module


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (which never downloads a browser here)."""
    import importlib
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        missing_tool("chromium not installed (Debian: apt-get install chromium); scripts/ensure_env.sh installs it "
                     "as root")
    try:
        sync_api = importlib.import_module("playwright.sync_api")
    except ImportError:
        missing_tool("playwright (a test dependency) is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield launched
        launched.close()


# the explorer's pages, written once per session for every browser test that opens them
from tests.explorer_pages import hundred, image_page, no_qrels_page, official, stance_page, twenty  # noqa: E402,F401
