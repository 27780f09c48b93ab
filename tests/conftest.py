"""Shared fixtures. The JVM starts once per test session (a JVM starts once per process)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _model_cache(tmp_path_factory):
    """Unpacked models and cached encodings of this session in a folder of its own: a test never
    reads a vector an earlier session (or code) encoded."""
    import os
    folder = tmp_path_factory.mktemp("models")
    previous = os.environ.get("TOUCHE_MODEL_CACHE")
    os.environ["TOUCHE_MODEL_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("TOUCHE_MODEL_CACHE", None)
    else:
        os.environ["TOUCHE_MODEL_CACHE"] = previous


# Five tiny arguments whose statistics the tests compute by hand.
FIXTURE_ARGUMENTS = [
    ("Sa0000001-A00000001", "School uniforms should be mandatory",
     [("Uniforms reduce bullying in schools.", "PRO")], "School uniforms"),
    ("Sa0000001-A00000002", "School uniforms should not be mandatory",
     [("Uniforms limit the expression of students. Students should choose.", "CON")], "School uniforms"),
    ("Sa0000002-A00000001", "Nuclear energy is safe",
     [("Modern reactors are safe and nuclear energy emits little carbon.", "PRO")], "Nuclear energy"),
    ("Sa0000002-A00000002", "Nuclear energy is too risky",
     [("Accidents happen.", "CON")], "Nuclear energy"),
    ("Sa0000003-A00000001", "Homework helps",
     [("Homework builds discipline for students at school.", "PRO")], "Homework"),
]


def write_argsme(path: Path, arguments=FIXTURE_ARGUMENTS) -> Path:
    records = []
    for arg_id, conclusion, premises, title in arguments:
        records.append({
            "id": arg_id, "conclusion": conclusion,
            "premises": [{"text": t, "stance": s, "annotations": []} for t, s in premises],
            "context": {"sourceId": arg_id.split("-")[0][1:], "sourceTitle": title, "discussionTitle": title,
                        "sourceUrl": f"https://debate.example.org/{arg_id}", "sourceDomain": "debate.example.org",
                        "previousArgumentInSourceId": "", "nextArgumentInSourceId": "",
                        "acquisitionTime": "2019-04-18T00:00:00Z"},
        })
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"arguments": records}), encoding="utf-8")
    return path


FIXTURE_TOPICS = """<topics>
<topic><number>1</number><title>Should school uniforms be mandatory?</title></topic>
<topic><number>2</number><title>Is nuclear energy safe?</title></topic>
</topics>
"""


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
    repo = Path(__file__).resolve().parent.parent
    out = tmp_path_factory.mktemp("explore-demo")
    run_suite(repo / "configs" / "task1" / "suite.yaml", None, out, index_root=index_root, progress=False)
    return out


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (which never downloads a browser here)."""
    import importlib
    import shutil

    from shared import missing_tool
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
from explorer_pages import hundred, image_page, no_qrels_page, official, stance_page, twenty  # noqa: E402,F401
