"""Access to the real Touché data beside the repository (never copied into it).

The data is found through ``TOUCHE_SHARED`` (default ``<repo>/../shared/touche``); tests that
need it skip, saying why, when it is absent.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from touche.paths import shared_touche_dir

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "demo"
RELEVANCE = DEMO / "qrels-relevance.txt"
# the smallest Task 1 variant (BM25), for tests of what any variant goes through
VARIANT = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")
# the same under its name in configs/, as touche.pyterrier takes it
BM25_VARIANT = "task1/examples/2-krovetz-bm25"


def shared_dir() -> Path:
    return shared_touche_dir()


def has_shared() -> bool:
    return (shared_dir() / "qrels").is_dir()


def require_shared() -> Path:
    if not has_shared():
        pytest.skip(f"real Touché data not found at {shared_dir()} (set TOUCHE_SHARED to its path)")
    return shared_dir()


def missing_tool(reason: str, environ=None) -> None:
    """A test tool (Chromium, Playwright) is missing: the test skips on a developer's machine, and
    fails in CI (``CI`` set, as the CI runner sets it), where run_tests.sh installs the tools.
    The explorer's exports are written in Python and in the page's script and held equal only by
    the browser tests: a skip in CI would let the two drift apart unseen."""
    environ = os.environ if environ is None else environ
    if environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{reason}; in CI (CI={environ['CI']}) a missing test tool fails, never skips: "
                    "run_tests.sh installs it (scripts/ensure_env.sh)", pytrace=False)
    pytest.skip(reason)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def parse_leaderboard(path: Path) -> list[dict[str, str]]:
    """Rows of an official leaderboard page: one `` | ``-prefixed cell per line.

    The header is an empty corner cell and the column names; data rows have one cell per
    column. The first numeric cell is a row's third (after Team and Tag), which tells where the
    header ends.
    """
    cells = [line[2:].strip() for line in path.read_text(encoding="utf-8").splitlines() if line.startswith(" |")]
    first_number = next(i for i, c in enumerate(cells) if _NUMBER.fullmatch(c))
    header = cells[1 : first_number - 2]
    data = cells[first_number - 2 :]
    if not header or len(data) % len(header):
        raise ValueError(f"{path}: cannot split {len(data)} cells into rows of {len(header)}")
    return [dict(zip(header, data[i : i + len(header)])) for i in range(0, len(data), len(header))]


def cli(*args: str) -> tuple[int, str]:
    """``touche ARGS`` in this process: its exit status and everything it printed (stdout, then stderr)."""
    from touche.cli import main
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(list(args))
        except SystemExit as exc:  # a usage error: argparse exits with 2
            code = exc.code
    return code, out.getvalue() + err.getvalue()


def demo_run(path: Path, tag: str = "t", topics=None) -> Path:
    """A valid run over the demo qrels: each topic's judged documents, best label first."""
    by_topic: dict[str, list[tuple[int, str]]] = {}
    for line in (DEMO / "qrels-relevance.txt").read_text().splitlines():
        qid, _, doc, label = line.split()
        by_topic.setdefault(qid, []).append((-int(label), doc))
    lines = []
    for qid, docs in by_topic.items():
        if topics is not None and qid not in topics:
            continue
        for rank, (_, doc) in enumerate(sorted(docs), 1):
            lines.append(f"{qid} Q0 {doc} {rank} {100 - rank} {tag}\n")
    path.write_text("".join(lines))
    return path


def judged_documents(qid: str = "1") -> list[str]:
    """The demo's judged documents of a topic, best label first (ties in the qrels' order)."""
    rows = [line.split() for line in RELEVANCE.read_text().splitlines() if line.split()[0] == qid]
    return [d for _, _, d, _ in sorted(rows, key=lambda r: -int(r[3]))]


def one_topic_run(path: Path, order: list[str], qid: str = "1") -> Path:
    """A valid Q0 run of one topic ranking ``order``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{qid} Q0 {d} {i} {100 - i} t\n" for i, d in enumerate(order, 1)))
    return path


def run_rows(*entries, column2: str = "Q0") -> list:
    """Run rows of (topic, document, rank, score) entries, tagged t."""
    from touche.retrieval.formats.runfile import RunRow
    return [RunRow(qid, column2, docid, rank, score, "t") for qid, docid, rank, score in entries]


def yaml_dump(data) -> str:
    """A variant, suite or sweep file's text, its keys in the order given."""
    import yaml
    return yaml.safe_dump(data, sort_keys=False)


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
