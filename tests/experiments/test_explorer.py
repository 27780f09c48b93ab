"""The run explorer (one self-contained HTML page) and per-topic results in the Python API.

The page's data is checked against the scorer and the files it was made from; the page itself
is loaded in a real headless Chromium (Debian's, driven by Playwright, which never downloads a
browser): its DOM, a screenshot that is not blank, a keyboard step, nothing requested over the
network, and the overview with JavaScript off.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.shared import DEMO, REPO, cli, demo_run
from touche import api
from touche.errors import ToucheError
from touche.retrieval.evaluation.experiment import experiment
from touche.retrieval.evaluation.measures import evaluate
from touche.retrieval.experiments.explorer.build import write_explorer
from touche.retrieval.experiments.explorer.export import (
    oriented,
)
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runfile import RunRow

SUITE = REPO / "configs" / "task1" / "suite.yaml"
QRELS = {"relevance": DEMO / "qrels-relevance.txt", "quality": DEMO / "qrels-quality.txt"}


def doc_of(topic: dict, docid: str) -> dict:
    """A shown document's record (labels, words, snippet): topics list each document once."""
    return topic["info"][topic["docs"].index(docid)]


def hit_ids(topic: dict, run: str) -> list[str]:
    return [topic["docs"][h[0]] for h in topic["hits"][run]]


def rank_in(data: dict, topic: dict, docid: str, run: str) -> int | None:
    """A shown document's rank in a run (within its first 255), decoded as the page decodes it."""
    import base64
    ranks = base64.b64decode(topic["ranks"])
    value = ranks[topic["docs"].index(docid) * len(data["runs"]) + data["runs"].index(run)]
    return value or None


def topic_agreement(data: dict, topic: dict, first: str, second: str) -> dict[str, float]:
    """Two runs' agreement on a topic per measure, decoded as the page decodes it (nan: undefined)."""
    from touche.retrieval.evaluation.agreement import pair_index
    from touche.retrieval.experiments.explorer.data import decode_agreement
    values = decode_agreement(topic["agreement"], len(data["agreement_measures"]))
    row = values[pair_index(data["runs"].index(first), data["runs"].index(second), len(data["runs"]))]
    return dict(zip(data["agreement_measures"], row.tolist()))


def overview_rows(data: dict) -> list[dict]:
    """The overview of the page's first view: per run and measure the mean, its interval and the
    test against the baseline (``explorer_export.tests``)."""
    from touche.retrieval.experiments.explorer.export import View, tests
    found = tests(data, View.default(data))
    rows = []
    for run in data["runs"]:
        for measure, cell in data["cells"][run].items():
            t = found.get(measure, {}).get(run)
            rows.append({"run": run, "measure": measure, "mean": cell["mean"], "ci_low": cell["ci"][0],
                         "ci_high": cell["ci"][1], "delta": t.delta if t else None, "p": t.p if t else None,
                         "p_corrected": t.p_corrected if t else None})
    return rows


def page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="explorer-data">(.*?)</script>', text, re.S)
    assert found, "the page embeds its data"
    return json.loads(found.group(1))


def runs_of(out: Path) -> list[Path]:
    return sorted(p for p in out.glob("[1-5]-*.txt"))


# --------------------------------------------------------------------------- the page's data
def test_run_all_writes_the_explorer_beside_the_evaluation_table(demo_out):
    page = demo_out / "explore.html"
    assert page.is_file() and (demo_out / "evaluation.md").is_file()
    data = page_data(page)
    assert data["runs"] == [p.stem for p in runs_of(demo_out)]
    assert data["baseline"] == "1-krovetz-smart-lmd2000-quality"  # the primary
    assert [t["id"] for t in data["topics"]] == ["1", "2", "3", "4", "5", "6"]
    text = page.read_text().replace("http://www.w3.org/2000/svg", "")  # a namespace's name, not an address
    assert "http://" not in text and "https://" not in text.replace("https://debate", "")


def test_overview_means_are_the_scorers_and_intervals_hold_them(demo_out):
    data = page_data(demo_out / "explore.html")
    for run in runs_of(demo_out):
        scores = evaluate(run, QRELS, ["touche.nDCG@5", "trec.Judged@5"])
        for measure, value in scores.items():
            row = next(r for r in overview_rows(data) if r["run"] == run.stem and r["measure"] == measure)
            assert row["mean"] == pytest.approx(value, abs=1e-6)
            assert row["ci_low"] <= row["mean"] + 1e-9 and row["mean"] <= row["ci_high"] + 1e-9
    baseline = [r for r in overview_rows(data) if r["run"] == data["baseline"]]
    assert all(r["p"] is None and r["delta"] is None for r in baseline)
    tested = [r for r in overview_rows(data) if r["run"] != data["baseline"] and r["measure"] == data["main"]]
    assert len(tested) == 4
    # Holm by hand: the i-th smallest p times (m - i), made monotone, capped at 1
    ordered = sorted(tested, key=lambda r: r["p"])
    running = 0.0
    for i, row in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - i) * row["p"]))
        assert row["p_corrected"] == pytest.approx(running, abs=1e-5)


def test_a_topic_holds_each_runs_top_k_with_labels_ranks_and_texts(demo_out):
    data = page_data(demo_out / "explore.html")
    topic = next(t for t in data["topics"] if t["id"] == "1")
    judged = {}
    for line in QRELS["relevance"].read_text().splitlines():
        qid, _, docid, label = line.split()
        if qid == "1":
            judged[docid] = int(label)
    arguments = {a["id"]: a for a in json.loads((DEMO / "args.me" / "args-demo.json").read_text())["arguments"]}
    for run in runs_of(demo_out):
        rows = [r for r in read_run(run) if r.qid == "1"][:10]
        assert hit_ids(topic, run.stem) == [r.docid for r in rows]
        for row in rows:
            doc = doc_of(topic, row.docid)
            assert doc["labels"]["relevance"] == judged.get(row.docid)  # None: unjudged
            assert rank_in(data, topic, row.docid, run.stem) == row.rank
            argument = arguments[row.docid]
            text = argument["conclusion"] + "\n" + "\n\n".join(p["text"] for p in argument["premises"])
            assert doc["words"] == len(text.split())
    assert any(d["labels"]["relevance"] is None for t in data["topics"] for d in t["info"]), \
        "unjudged documents are shown (as unjudged)"
    assert any(d["snippet"].count("<mark class=\"term\">") for d in topic["info"])  # the terms are marked


def test_documents_absent_from_the_corpus_are_shown_as_absent(tmp_path):
    judged = [line.split()[2] for line in QRELS["relevance"].read_text().splitlines() if line.startswith("1 ")][:3]
    run = tmp_path / "run.txt"
    run.write_text("".join(f"1 Q0 {d} {i} {10 - i} t\n" for i, d in enumerate([*judged, "Snot0000-A00000001"], 1)))
    out = write_explorer([run], QRELS, tmp_path / "x.html", corpus=DEMO / "args.me", topics=DEMO / "topics.xml")
    topic = page_data(out)["topics"][0]
    assert doc_of(topic, "Snot0000-A00000001")["absent"] is True
    assert all("absent" not in doc_of(topic, d) and doc_of(topic, d)["words"] > 0 for d in judged)


def _image_run(path: Path) -> Path:
    lines = [f"1 {stance} I{n:016x} {rank} {1.0 / rank} t\n" for stance, base in (("PRO", 0), ("CON", 100))
             for rank, n in enumerate(range(base, base + 10), 1)]
    path.write_text("".join(lines))
    return path


def _q0_run(path: Path, qid: str = "1") -> Path:
    docs = [line.split()[2] for line in QRELS["relevance"].read_text().splitlines() if line.split()[0] == "1"][:5]
    path.write_text("".join(f"{qid} Q0 {d} {i} {10 - i} t\n" for i, d in enumerate(docs, 1)))
    return path


@pytest.mark.parametrize("case", ["two tasks", "disjoint topics", "qrels of another task", "output is a folder"])
def test_bad_input_is_a_located_error_and_writes_nothing(tmp_path, case):
    q0 = _q0_run(tmp_path / "a.txt")
    out = tmp_path / "x.html"
    runs, qrels = [q0], QRELS
    if case == "two tasks":
        runs = [q0, _image_run(tmp_path / "img.txt")]
        expected, located = "runs of different tasks", runs[1]
    elif case == "disjoint topics":
        runs = [q0, _q0_run(tmp_path / "b.txt", qid="77")]
        expected, located = "no topic in common", runs[1]
    elif case == "qrels of another task":
        qrels = {"image": DEMO / "images" / "qrels.txt"}
        expected, located = "do not judge Q0 runs", qrels["image"]
    else:
        out.mkdir()
        expected, located = "is a directory", out
    with pytest.raises(ToucheError, match=expected) as error:
        write_explorer(runs, qrels, out)
    assert str(error.value).startswith(f"{located}: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {p.name for p in runs} | ({"x.html"} if out.is_dir() else set())
    )


def test_the_command_writes_the_page_and_names_bad_input(tmp_path, demo_out):
    from tests.shared import cli
    runs = [str(p) for p in runs_of(demo_out)]
    code, text = cli("explore", *runs, "--qrels", f"relevance={QRELS['relevance']}", "-i", str(DEMO / "args.me"),
                     "-t", str(DEMO / "topics.xml"), "-o", str(tmp_path / "e.html"), "--baseline", "4-smart-lmd4000")
    assert code == 0, text
    assert page_data(tmp_path / "e.html")["baseline"] == "4-smart-lmd4000"
    code, text = cli("explore", *runs, "-o", str(tmp_path / "f.html"))  # before judgements exist
    assert code == 0 and "no qrels" in text, text
    data = page_data(tmp_path / "f.html")
    assert data["measures"] == [] and data["main"] == "RBO" and len(data["agreement"]) == 10
    code, text = cli("explore", *runs, "--measures", "touche.nDCG@5", "-o", str(tmp_path / "g.html"))
    assert code == 2 and "measures need qrels" in text and not (tmp_path / "g.html").exists()
    code, text = cli("explore", *runs[:2], "--rbo-p", "1", "-o", str(tmp_path / "g.html"))
    assert code == 2 and "persistence" in text and not (tmp_path / "g.html").exists()


# --------------------------------------------------------------------------- per-topic results in Python
def _rows(qid_scores: dict[str, list[str]]) -> list[RunRow]:
    return [RunRow(q, "Q0", d, r, 10.0 - r, "t") for q, docs in qid_scores.items() for r, d in enumerate(docs, 1)]


@pytest.fixture()
def tiny_qrels(tmp_path) -> Path:
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n2 0 d 2\n3 0 e 1\n")
    return path


def test_per_topic_values_are_a_tidy_frame_whose_mean_is_the_mean(tiny_qrels):
    run = api.frame_of_rows(_rows({"1": ["a", "b"], "2": ["c", "x", "d"], "3": ["y", "e"]}))
    frame = api.evaluate(run, tiny_qrels, ["touche.nDCG@5", "P@2"], per_topic=True)
    assert list(frame.columns) == ["run", "query_id", "measure", "value"]
    ndcg = frame[frame.measure == "touche.nDCG@5"].set_index("query_id")["value"]
    # hand-computed: topic 1 ideal order; topic 2 (c=1, d=2 condensed to ranks 1, 2) vs ideal (2, 1);
    # topic 3: e condensed to rank 1, ideal 1
    dcg2 = 1 + 2 / math.log2(3)
    assert ndcg["1"] == pytest.approx(1.0) and ndcg["3"] == pytest.approx(1.0)
    assert ndcg["2"] == pytest.approx(dcg2 / (2 + 1 / math.log2(3)))
    means = api.evaluate(run, tiny_qrels, ["touche.nDCG@5", "P@2"])
    assert frame.groupby("measure")["value"].mean().to_dict() == pytest.approx(
        {"touche.nDCG@5": means["touche.nDCG@5"], "trec.P@2": means["trec.P@2"]})


def test_an_experiment_tests_runs_against_a_baseline_with_corrected_p_values(tiny_qrels):
    best = _rows({"1": ["a", "b"], "2": ["d", "c"], "3": ["e"]})          # 1.0 on every topic
    worse = _rows({"1": ["b", "a"], "2": ["c", "d"], "3": ["e"]})         # below on topics 1 and 2
    same = _rows({"1": ["a", "b"], "2": ["d", "c"], "3": ["e"]})
    table = experiment({"base": best, "worse": worse, "same": same}, tiny_qrels, ["touche.nDCG@5"], resamples=10_000)
    rows = table.set_index("run")
    assert rows.loc["base", "mean"] == 1.0 and pd.isna(rows.loc["base", "p"])
    assert rows.loc["worse", "wins"] == 0 and rows.loc["worse", "losses"] == 2 and rows.loc["worse", "ties"] == 1
    # exact sign-flip test over 3 topics (8 flips; topic 3's difference is 0): the two non-zero
    # differences keep their common sign in 4 of 8 flips, so |mean| is as large as observed → p 0.5
    assert rows.loc["worse", "p"] == pytest.approx(0.5)
    assert rows.loc["same", "p"] == 1.0
    # Holm over the two tests: 0.5 × 2 = 1.0, then max(1.0, 1.0 × 1)
    assert rows.loc["worse", "p_corrected"] == pytest.approx(1.0) and rows.loc["same", "p_corrected"] == 1.0
    assert not rows.loc["worse", "significant"]


def test_holm_correction_by_hand():
    from touche.retrieval.evaluation.significance import corrected
    # sorted 0.01, 0.03, 0.04 → 0.01 × 3 = 0.03, 0.03 × 2 = 0.06, max(0.06, 0.04 × 1) = 0.06; nan is no test
    assert corrected([0.01, 0.04, float("nan"), 0.03]) == pytest.approx([0.03, 0.06, float("nan"), 0.06], nan_ok=True)
    assert corrected([0.01, 0.04], "none") == [0.01, 0.04]
    with pytest.raises(ToucheError, match="unknown correction"):
        corrected([0.1], "sidak-ish")


def test_the_experiment_call_of_the_api(tiny_qrels, tmp_path):
    best = api.frame_of_rows(_rows({"1": ["a", "b"], "2": ["d", "c"], "3": ["e"]}))
    worse = api.frame_of_rows(_rows({"1": ["b", "a"], "2": ["c", "d"], "3": ["e"]}))
    path = tmp_path / "worse.txt"
    api.write(worse, path, "w")
    table = api.experiment({"base": best, "worse": worse}, tiny_qrels, "touche.nDCG@5").set_index("run")
    assert table.loc["worse", "p"] == pytest.approx(0.5) and table.loc["worse", "delta"] < 0
    by_list = api.experiment([best, path], tiny_qrels, "touche.nDCG@5").set_index("run")
    assert list(by_list.index) == ["run1", "worse"]  # a frame without a name, a file by its name
    assert by_list.loc["worse", "mean"] == table.loc["worse", "mean"]


# --------------------------------------------------------------------------- in a real browser
def _open(browser, page_path: Path, javascript: bool = True):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path.as_uri())
    page.wait_for_load_state("load")
    return context, page, requests, errors


def test_the_page_renders_a_topic_with_every_runs_top_k(browser, demo_out, tmp_path):
    from PIL import Image, ImageStat
    page_path = demo_out / "explore.html"
    data = page_data(page_path)
    context, page, requests, errors = _open(browser, page_path)
    try:
        assert errors == []
        assert page.locator("table.overview tbody tr").count() == 5
        title = page.inner_text("#topic-title")
        shown = page.locator("#topic-view").get_attribute("data-topic")
        topic = next(t for t in data["topics"] if t["id"] == shown)
        assert title.startswith(f"Topic {shown}") and topic["title"] in title
        # the baseline and the compared run side by side; the others on demand
        side_by_side = [data["baseline"], page.locator("#topic-view").get_attribute("data-compared")]
        assert [page.locator(".column").nth(i).get_attribute("data-run") for i in range(2)] == side_by_side
        assert page.locator(".column").count() == 2
        page.check("#f-all")
        assert page.locator(".column").count() == 5
        for run in data["runs"]:
            cards = page.locator(f'.column[data-run="{run}"] .card')
            assert cards.count() == len(topic["hits"][run]) == 10
        unjudged = sum(1 for run in data["runs"] for docid in hit_ids(topic, run)
                       if doc_of(topic, docid)["labels"]["relevance"] is None)
        assert page.locator(".card .lab.unjudged", has_text="relevance: unjudged").count() == unjudged
        first = page.locator(f'.column[data-run="{data["runs"][0]}"] .card').first
        assert first.get_attribute("data-docid") == hit_ids(topic, data["runs"][0])[0]
        shot = tmp_path / "page.png"
        page.screenshot(path=str(shot))
        with Image.open(shot) as image:
            spread = ImageStat.Stat(image.convert("L")).stddev[0]
            colours = len(image.convert("RGB").getcolors(1 << 20) or [])
        assert spread > 10 and colours > 50, "the screenshot is not blank"
        page.keyboard.press("j")
        after = page.locator("#topic-view").get_attribute("data-topic")
        assert after != shown and page.url.endswith(f"#t-{after}")
        assert page.inner_text("#topic-title").startswith(f"Topic {after}")
        page.keyboard.press("k")
        assert page.locator("#topic-view").get_attribute("data-topic") == shown
        assert errors == []
        assert [u for u in requests if not u.startswith(("file://", "data:"))] == [], "the page requested the network"
        assert {u for u in requests if u.startswith("file://")} == {page_path.as_uri()}
    finally:
        context.close()


def test_the_overview_needs_no_javascript(browser, demo_out):
    context, page, requests, errors = _open(browser, demo_out / "explore.html", javascript=False)
    try:
        assert page.locator("table.overview tbody tr").count() == 5
        assert page.locator("figure.chart").count() == 4  # one per run against the baseline
        assert page.locator("#topic-title").count() == 0
        assert "need JavaScript" in page.inner_text("#topic-view")
        assert page.locator(".topics-table tbody tr").count() == 6
    finally:
        context.close()


def test_a_chart_bar_opens_its_topic_with_the_charts_run(browser, demo_out):
    context, page, requests, errors = _open(browser, demo_out / "explore.html")
    try:
        chart = page.locator(".chart-area").nth(2)  # not the first: its run is not the one compared by default
        bar = chart.locator("rect[data-topic]").first
        target = bar.get_attribute("data-topic")
        bar.click()
        view = page.locator("#topic-view")
        assert view.get_attribute("data-topic") == target
        assert view.get_attribute("data-compared") == chart.get_attribute("data-run")
    finally:
        context.close()


def test_run_all_reads_the_pages_documents_from_the_index_not_the_corpus(demo_out, index_root, tmp_path,
                                                                          monkeypatch):
    """ir_datasets' get_many, from the primary's index: the explorer once streamed the corpus
    to show a few of its documents (at full size, 387,740 arguments for a few hundred)."""
    from touche.indexing.corpora import ArgsMeSource
    from touche.retrieval.suite import run_suite

    def no_streaming(self, *args, **kwargs):
        raise AssertionError("the corpus was read again")
    monkeypatch.setattr(ArgsMeSource, "documents", no_streaming)
    run_suite(SUITE, None, tmp_path / "again", index_root=index_root, progress=False)
    again, first = page_data(tmp_path / "again" / "explore.html"), page_data(demo_out / "explore.html")
    assert [t["docs"] for t in again["topics"]] == [t["docs"] for t in first["topics"]]


# --------------------------------------------------------------------------- correct and shareable
def test_a_byte_copy_of_a_run_is_shown_once_and_not_tested_again(demo_out, tmp_path):
    runs = [str(p) for p in runs_of(demo_out)] + [str(demo_out / "run.txt")]
    page = write_explorer(runs, QRELS, tmp_path / "x.html")
    data = page_data(page)
    assert data["runs"] == [p.stem for p in runs_of(demo_out)]  # run.txt, the primary's copy, folded
    assert data["folded"] == {"run": "1-krovetz-smart-lmd2000-quality"}
    tested = [r for r in overview_rows(data) if r["p"] is not None and r["measure"] == data["main"]]
    assert len(tested) == 4  # Holm over the four other variants, not five
    assert "run is a byte copy of 1-krovetz-smart-lmd2000-quality" in page.read_text()


def test_qrels_that_judge_none_of_a_runs_documents_are_an_error_naming_both(tmp_path):
    run = _q0_run(tmp_path / "a.txt")
    other = tmp_path / "q.txt"  # the same topics, documents of another collection
    other.write_text("".join(f"{q} 0 clueweb12-0000wb-00-{i:05d} 1\n" for q in ("1", "2") for i in range(3)))
    with pytest.raises(ToucheError, match="judge none of the documents of run a") as error:
        write_explorer([run], {"relevance": other}, tmp_path / "x.html")
    assert str(error.value).startswith(f"{other}: ")


def test_the_page_names_files_not_the_paths_of_the_machine_that_wrote_it(demo_out, tmp_path):
    runs = [str(p) for p in runs_of(demo_out)]
    page = write_explorer(runs, QRELS, tmp_path / "x.html", corpus=DEMO / "args.me", topics=DEMO / "topics.xml")
    data, text = page_data(page), page.read_text()
    assert data["files"]["4-smart-lmd4000"] == "4-smart-lmd4000.txt" and data["corpus"] == "args.me"
    assert str(demo_out) not in text and str(DEMO) not in text


# --------------------------------------------------------------------------- exports: names, headers, Δ, p, n
def _judged_runs(folder: Path, names: list[str]) -> list[Path]:
    """Runs over the demo's judged documents: the first by the relevance qrels' order, each next
    one that ranking rotated by one more place per topic."""
    by_topic: dict[str, list[str]] = {}
    for line in (DEMO / "qrels-relevance.txt").read_text().splitlines():
        qid, _, docid, _ = line.split()
        by_topic.setdefault(qid, []).append(docid)
    paths = []
    for shift, name in enumerate(names):
        path = folder / f"{name}.txt"
        path.write_text("".join(f"{qid} Q0 {d} {rank} {100 - rank} t\n" for qid, docs in by_topic.items()
                                for rank, d in enumerate((docs[shift:] + docs[:shift])[:20], 1)))
        paths.append(path)
    return paths


def test_explore_markdown_escapes_html_in_a_run_name(tmp_path):
    """explore --markdown escaped | but wrote "><svg onload=…> into the table as it was."""
    runs = _judged_runs(tmp_path, ["base", '"><svg onload=alert(1)>'])
    out = tmp_path / "overview.md"
    write_explorer(runs, QRELS, tmp_path / "p.html", exports={"markdown": out})
    text = out.read_text()
    assert "<svg" not in text and "| &quot;" not in text
    assert '| "&gt;&lt;svg onload=alert(1)&gt; | ' in text


def test_the_latex_export_has_readable_headers_and_the_delta_p_and_n_its_caption_promises(tmp_path):
    runs = _judged_runs(tmp_path, ["base", "other"])
    out = tmp_path / "overview.tex"
    write_explorer(runs, QRELS, tmp_path / "p.html", exports={"latex": out}, measures=["touche.nDCG@5"],
                   headers=["relevance:touche.nDCG@5=nDCG@5 (rel.)"])
    latex = out.read_text()
    header = next(line for line in latex.splitlines() if line.strip().startswith("Run &"))
    assert header.strip() == r"Run & topics & nDCG@5 (rel.) & nDCG@5 (quality) \\"
    other = next(line for line in latex.splitlines() if line.strip().startswith("other &"))
    cells = other.strip().removesuffix(r" \\").split(" & ")
    assert cells[1] == "6", cells
    # the mean, then Δ, p and n against the baseline in brackets (and a dagger where significant)
    mean, delta, dagger = r"(\\textbf\{)?\d\.\d{3}\}?", r"([+-]\d\.\d{3}|\$\\pm\$0\.000)", r"(\$\^\{\\dagger\}\$)?"
    assert re.fullmatch(rf"{mean} \({delta}, p [^,]+, n 6\){dagger}", cells[2]), cells[2]
    assert "in brackets $\\Delta$, p and n" in latex and "paired randomization test" in latex


def test_a_significance_tests_name_in_the_caption_comes_from_its_registry(tmp_path, monkeypatch):
    """The name a caption gives a test is its registry entry's (it was also listed in export.py's
    TEST_NAMES and in the page's script, so a renamed or added test said the old name or none)."""
    from touche.retrieval.evaluation import significance
    original = significance.SIGNIFICANCE_TESTS["t"]
    monkeypatch.setitem(significance.SIGNIFICANCE_TESTS, "t", significance.SignificanceTest("Student's t", original.p))
    runs = _judged_runs(tmp_path, ["base", "other"])
    path = write_explorer(runs, QRELS, tmp_path / "p.html", test="t", exports={"markdown": tmp_path / "t.md"})
    assert "(α = 0.05, Student's t, Holm correction" in (tmp_path / "t.md").read_text()
    page = path.read_text()
    assert '"test_name":"Student\'s t"' in page and '"correction_names":{"holm":"Holm"' in page
    assert '<span id="note-test">Student&#39;s t</span>' in page and "paired t-test" not in page  # its script: none


# --------------------------------------------------------------------------- <!-- in the data
def test_markup_in_the_data_cannot_end_or_swallow_the_pages_script(tmp_path, browser):
    from touche.retrieval.experiments.explorer.build import write_explorer
    evil = "<!--<script>x</script><img src=x onerror=alert(1)>&"
    topics = tmp_path / "topics.xml"
    topics.write_text(
        DEMO.joinpath("topics.xml")
        .read_text()
        .replace("<title>", f"<title>{evil.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')} ", 1)
    )
    runs = [_q0_run(tmp_path / "a.txt"), _q0_run(tmp_path / "b.txt")]
    runs[1].write_text(runs[1].read_text().replace(" t\n", " u\n"))  # another run, not a byte copy
    page = write_explorer(runs, QRELS, tmp_path / "x.html", topics=topics, names=['<!--a"', "b</script>"])
    text = page.read_text()
    payload = text.split('id="explorer-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in payload and ">" not in payload  # nothing the HTML parser could read as markup
    data = page_data(page)
    assert data["runs"] == ['<!--a"', "b</script>"] and data["topics"][0]["title"].startswith(evil)
    assert '<span class="name">[1] &lt;!--a&#34;</span>' in text  # the engine escapes it
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        view = context.new_page()
        errors = []
        view.on("pageerror", lambda e: errors.append(str(e)))
        view.goto(page.as_uri())
        assert errors == [] and view.evaluate("document.querySelectorAll('img[src=x]').length") == 0
        assert view.inner_text("#topic-title").startswith("Topic 1")  # the application script ran
        assert view.inner_text("table.overview th.run >> nth=0") == '[1] <!--a" (baseline)'  # shown as text
    finally:
        context.close()


def test_the_explorer_ranks_by_an_effectiveness_measure_not_by_judged(tmp_path):
    from touche.retrieval.experiments.explorer.build import write_explorer
    runs = [_q0_run(tmp_path / "a.txt"), _q0_run(tmp_path / "b.txt")]
    page = write_explorer(runs, {"relevance": QRELS["relevance"]}, tmp_path / "x.html",
                          measures=["trec.Judged@5", "trec.nDCG@5"])
    assert page_data(page)["main"] == "relevance:trec.nDCG@5"




RELEVANCE = DEMO / "qrels-relevance.txt"


# --------------------------------------------------------------------------- invisible characters
def test_a_right_to_left_override_in_a_run_name_is_shown_not_obeyed(tmp_path):
    from touche.retrieval.experiments.explorer.build import write_explorer
    evil = demo_run(tmp_path / "evil\u202etxt.exe.txt", tag="e")
    plain = demo_run(tmp_path / "plain.txt", tag="p")
    exports = {kind: tmp_path / f"x.{kind}" for kind in ("markdown", "latex", "csv")}
    write_explorer([plain, evil], {"relevance": RELEVANCE}, tmp_path / "page.html", exports=exports)
    for path in [*exports.values(), tmp_path / "page.html"]:
        text = path.read_text(encoding="utf-8")
        assert "\u202e" not in text and "evil[U+202E]txt.exe" in text, path.name
    code, text = cli("evaluate", str(evil), str(RELEVANCE))
    assert code == 0 and "\u202e" not in text and "[U+202E]" in text


def test_a_baseline_named_with_an_invisible_character_is_still_its_run(tmp_path):
    from touche.retrieval.experiments.explorer.build import write_explorer
    runs = [demo_run(tmp_path / "a.txt", tag="a"), demo_run(tmp_path / "b.txt", tag="b")]
    write_explorer(runs, {"relevance": RELEVANCE}, tmp_path / "p.html", names=["v\u200b1", "v2"], baseline="v\u200b1")
    assert '"baseline":"v[U+200B]1"' in (tmp_path / "p.html").read_text(encoding="utf-8").replace(": ", ":")


def _twenty_topic_runs(tmp_path):
    """Two runs over 20 topics, one ranking the relevant document first on every topic."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{t}a 2\n{t} 0 d{t}b 0\n" for t in range(1, 21)))
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("".join(f"{t} Q0 d{t}a 1 2 g\n{t} Q0 d{t}b 2 1 g\n" for t in range(1, 21)))
    bad.write_text("".join(f"{t} Q0 d{t}b 1 2 b\n{t} Q0 d{t}a 2 1 b\n" for t in range(1, 21)))
    return qrels, [bad, good]


def test_the_command_takes_resamples(tmp_path):
    from tests.shared import cli
    qrels, runs = _twenty_topic_runs(tmp_path)
    code, text = cli("explore", *map(str, runs), "--qrels", f"relevance={qrels}", "--resamples", "499",
                     "-o", str(tmp_path / "p.html"))
    assert code == 0, text
    assert oriented(page_data(tmp_path / "p.html"), "relevance:touche.nDCG@5", "good", "bad").floor == \
        pytest.approx(2 / 500)
    code, text = cli("explore", *map(str, runs), "--qrels", f"relevance={qrels}", "--resamples", "0", "-o",
                     str(tmp_path / "q.html"))
    assert code != 0 and "at least one resample" in text and not (tmp_path / "q.html").exists()
