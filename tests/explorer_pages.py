"""The explorer pages the browser tests open, each written once per session (conftest imports the
fixtures), and how a test opens one.

* ``no_qrels_page``: the demo's five runs without judgements;
* ``twenty``: 20 noisy re-rankings of the demo's judged arguments, long names;
* ``stance_page``: five Task 2 2022 runs over the demo passages, one predicting no stance;
* ``official``: the 16 official Task 2 2022 runs with relevance, quality and stance qrels (``../shared``);
* ``hundred``: 100 runs a year's submissions could be: ten families of near-duplicates, a run that
  shares nothing with the first, and names a spreadsheet or a table would misread;
* ``image_page``: two image runs over the demo images.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from touche.retrieval.experiments.explorer.build import write_explorer

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "demo"
QRELS = {"relevance": DEMO / "qrels-relevance.txt", "quality": DEMO / "qrels-quality.txt"}
T2 = DEMO / "task2"
STANCE_QRELS = {"relevance": T2 / "qrels-passages-relevance.txt", "quality": T2 / "qrels-passages-quality.txt",
                "stance": T2 / "qrels-passages-stance.txt"}
AXE = Path(__file__).resolve().parent / "browser" / "node_modules" / "axe-core" / "axe.min.js"
WCAG22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
FORMULA_NAME = '=HYPERLINK("example.org","x")'
TWO_LINE_NAME = "two\nlines"
HTML_NAME = "x|y<img src=x onerror=alert(1)>"  # a Markdown cell's end and HTML
LATEX_NAME = '"><svg onload=alert(1)>_50%&$#{}~^\\'  # HTML and every LaTeX special
HUNDRED_FAMILIES = 10


def demo_judgments() -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    for line in QRELS["relevance"].read_text().splitlines():
        qid, _, docid, label = line.split()
        judged.setdefault(qid, {})[docid] = int(label)
    return judged


def demo_argument_ids() -> list[str]:
    return [a["id"] for a in json.loads((DEMO / "args.me" / "args-demo.json").read_text())["arguments"]]


@pytest.fixture(scope="session")
def no_qrels_page(demo_out, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("no-qrels") / "explore.html"
    return write_explorer(sorted(demo_out.glob("[1-5]-*.txt")), None, out, corpus=DEMO / "args.me",
                          topics=DEMO / "topics.xml")


@pytest.fixture(scope="session")
def twenty(tmp_path_factory) -> Path:
    """20 runs over the demo's arguments, each a noisy re-ranking of the judged ones, names long."""
    folder = tmp_path_factory.mktemp("twenty")
    ids, judged = demo_argument_ids(), demo_judgments()
    rng = np.random.default_rng(20)
    runs = []
    for number in range(1, 21):
        lines = []
        for qid, labels in judged.items():
            pool = list(labels) + [d for d in rng.choice(ids, 30, replace=False) if d not in labels]
            noise = rng.normal(0, 1.0 + number / 5, len(pool))
            scores = np.array([labels.get(d, 0) for d in pool], float) + noise
            order = np.argsort(-scores, kind="stable")[:25]
            lines += [f"{qid} Q0 {pool[i]} {rank} {25 - rank + 0.5} run{number}\n" for rank, i in enumerate(order, 1)]
        path = folder / f"{number:02d}-krovetz-smart-lmd{1000 + 100 * number}-quality-rerank-with-a-long-name.txt"
        path.write_text("".join(lines))
        runs.append(path)
    return write_explorer(runs, QRELS, folder / "explore.html", corpus=DEMO / "args.me", topics=DEMO / "topics.xml")


@pytest.fixture(scope="session")
def stance_page(tmp_path_factory) -> Path:
    """Five Task 2 2022 runs over the demo passages: four label the stance (better or worse), one says Q0."""
    folder = tmp_path_factory.mktemp("stance")
    truth = [line.split() for line in STANCE_QRELS["stance"].read_text().splitlines() if line.strip()]
    labels = ("FIRST", "SECOND", "NEUTRAL", "NO")
    rng = np.random.default_rng(3)
    runs = []
    for number, skill in enumerate((0.9, 0.7, 0.5, 0.3, None), 1):
        lines, rank = [], {}
        for qid, _, docid, label in truth:
            rank[qid] = rank.get(qid, 0) + 1
            said = "Q0" if skill is None else (label if rng.random() < skill else labels[rng.integers(4)])
            lines.append(f"{qid} {said} {docid} {rank[qid]} {100 - rank[qid] + rng.random() * 0.1:.4f} s{number}\n")
        path = folder / f"stance-{number}.txt"
        path.write_text("".join(lines))
        runs.append(path)
    return write_explorer(runs, STANCE_QRELS, folder / "explore.html", corpus=T2 / "passages.jsonl",
                          topics=T2 / "topics-passages.xml")


@pytest.fixture(scope="session")
def official(tmp_path_factory) -> Path:
    """The 16 official Task 2 2022 runs with their three qrels, over the shared passage sample."""
    from tests.shared import require_shared
    shared = require_shared()
    runs = sorted((shared / "runs" / "task2-2022").glob("*.txt"))
    qrels = {kind: shared / "qrels" / f"task2-2022-{kind}.qrels" for kind in ("relevance", "quality", "stance")}
    return write_explorer(runs, qrels, tmp_path_factory.mktemp("official") / "explore.html",
                          corpus=shared / "corpora" / "task2-2022-passages.sample.jsonl",
                          topics=shared / "topics" / "task2-2022.xml")


@pytest.fixture(scope="session")
def hundred(tmp_path_factory) -> Path:
    """100 runs over the demo's six topics, 20 rows each: ten families of ten near-duplicates
    (a family's runs swap two neighbours of one ranking), run 100 shares no document with run 1's
    top 20, run 2 is named as a spreadsheet formula, run 3 holds a line break, runs 4 and 5 HTML,
    a Markdown cell's end and every LaTeX special."""
    folder = tmp_path_factory.mktemp("hundred")
    ids, judged = demo_argument_ids(), demo_judgments()
    rng = np.random.default_rng(100)
    family_rankings = []
    for _ in range(HUNDRED_FAMILIES):
        rankings = {}
        for qid, labels in judged.items():
            pool = list(labels) + [d for d in rng.choice(ids, 40, replace=False) if d not in labels]
            rankings[qid] = [pool[i] for i in rng.permutation(len(pool))[:20]]
        family_rankings.append(rankings)
    runs, first = [], {}
    for number in range(1, 101):
        rankings = {}
        for qid, ranking in family_rankings[(number - 1) // 10].items():
            ranking = list(ranking)
            swap = int(rng.integers(0, 19))
            ranking[swap], ranking[swap + 1] = ranking[swap + 1], ranking[swap]
            rankings[qid] = ranking
        if number == 1:
            first = rankings
        elif number == 100:
            rankings = {qid: [d for d in ids if d not in set(first[qid])][:20] for qid in judged}
        name = {2: FORMULA_NAME, 3: TWO_LINE_NAME, 4: HTML_NAME, 5: LATEX_NAME}.get(
            number, f"{number:03d}-family{(number - 1) // 10}")
        path = folder / f"{name}.txt"
        path.write_text("".join(f"{qid} Q0 {d} {rank} {21 - rank} r{number}\n"
                                for qid, ranking in rankings.items() for rank, d in enumerate(ranking, 1)))
        runs.append(path)
    return write_explorer(runs, QRELS, folder / "explore.html", corpus=DEMO / "args.me", topics=DEMO / "topics.xml")


@pytest.fixture(scope="session")
def image_page(tmp_path_factory) -> Path:
    """Two image runs over the demo images: the judged images of each stance, in two orders."""
    folder = tmp_path_factory.mktemp("images")
    rows = [line.split() for line in (DEMO / "images" / "qrels.txt").read_text().splitlines() if line.strip()]
    runs = []
    for number, reverse in ((1, False), (2, True)):
        lines = []
        for qid in sorted({r[0] for r in rows}, key=int):
            judged_pro = {r[2] for r in rows if r[0] == qid and r[1] == "PRO" and r[3] == "1"}
            images = sorted({r[2] for r in rows if r[0] == qid},
                            key=lambda i: (i not in judged_pro, i), reverse=reverse)
            for stance, chosen in (("PRO", images[:10]), ("CON", images[10:20])):  # one stance per image, ten each
                lines += [
                    f"{qid} {stance} {image} {rank} {11 - rank} i{number}\n" for rank, image in enumerate(chosen, 1)
                ]
        path = folder / f"images-{number}.txt"
        path.write_text("".join(lines))
        runs.append(path)
    return write_explorer(runs, {"images": DEMO / "images" / "qrels.txt"}, folder / "explore.html",
                          corpus=DEMO / "images" / "images", topics=DEMO / "images" / "topics.xml")


@contextmanager
def opened(browser, path: Path, width: int = 1400, javascript: bool = True):
    """The page at 1,400 px, its first topic drawn (with JavaScript), and the script errors it raises."""
    context = browser.new_context(viewport={"width": width, "height": 900}, java_script_enabled=javascript)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        if javascript:
            page.wait_for_selector("#topic-title")
        yield page, errors
    finally:
        context.close()


def overview_runs(page) -> list[str]:
    return page.eval_on_selector_all("#overview-table tbody tr", "rows => rows.map(r => r.dataset.run)")


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations of WCAG 2.0, 2.1 and 2.2 A and AA."""
    if not AXE.is_file():
        pytest.skip("axe-core not installed (scripts/ensure_env.sh runs npm ci in tests/browser with the test tools)")
    page.add_script_tag(path=str(AXE))
    return page.evaluate("async tags => (await axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                         "resultTypes: ['violations']})).violations"
                         ".filter(v => ['serious', 'critical'].includes(v.impact))"
                         ".map(v => v.id + ' (' + v.impact + '): ' + v.nodes.length + ' e.g. ' + v.nodes[0].html)",
                         WCAG22_AA)
