"""The run explorer at the sizes users hand it: time to write the page, its size, and whether it opens.

    python -m bench.explorer [--work DIR] [--no-browser]

Three settings, five runs each, from synthetic collections (bench/synthetic.py) and runs that
rank 1,000 of its arguments per topic, with qrels judging a few dozen per topic:

* **50 topics × top 10 with texts** (a Touché year; target: written in < 5 s on 2 cores, < 10 MB);
* **49 topics, BEIR-sized** (webis-touche2020's 49 topics, 382,545 arguments: the corpus is read
  once for the shown texts; reading it is printed apart from writing the page);
* **1,000 topics** (a synthetic run set: target < 50 MB, and the page opens: the topic view is
  rendered lazily, one topic at a time).

Each page is opened in headless Chromium (when it and Playwright are installed): the time until
the first topic is rendered, and a keyboard step to the next topic.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.synthetic import write_corpus, write_topics
from touche.retrieval.experiments.explorer import read_documents, write_explorer
from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.formats.runwriter import write_run

SETTINGS = (("50 topics, top 10, texts", 50, 20_000, "< 5 s, < 10 MB"),
            ("49 topics, BEIR-sized corpus", 49, 382_545, "page opens"),
            ("1,000 topics", 1000, 20_000, "< 50 MB, page opens"))


def synthetic_runs(folder: Path, n_topics: int, n_docs: int, seed: int = 5) -> tuple[list[Path], Path]:
    """Five runs of 1,000 arguments per topic (overlapping: each run re-ranks a shared pool) and
    graded qrels judging 40 of each topic's pool."""
    rng = np.random.default_rng(seed)
    ids = [f"S{doc // 8:08x}-A{doc:08x}" for doc in range(n_docs)]
    qrels_lines, pools = [], {}
    for topic in range(1, n_topics + 1):
        pool = rng.choice(n_docs, size=min(1500, n_docs), replace=False)
        pools[topic] = pool
        for doc in pool[:40]:
            qrels_lines.append(f"{topic} 0 {ids[doc]} {rng.integers(-2, 3)}\n")
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(qrels_lines))
    runs = []
    for number in range(1, 6):
        rows = {}
        for topic, pool in pools.items():
            chosen = rng.permutation(pool)[:1000]
            scores = np.sort(rng.random(len(chosen)))[::-1] * 10
            rows[str(topic)] = [(ids[d], float(s)) for d, s in zip(chosen, scores)]
        path = folder / f"run-{number}.txt"
        write_run(path, rows, RunFormat.Q0, f"synthetic-{number}")
        runs.append(path)
    return runs, qrels


def open_in_browser(page: Path) -> tuple[float, bool] | None:
    """Seconds until the first topic is rendered, and whether → shows the next; None without a browser."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            started = time.perf_counter()
            tab.goto(page.as_uri(), timeout=120_000)
            tab.wait_for_selector("#topic-title", timeout=120_000)
            seconds = time.perf_counter() - started
            first = tab.locator("#topic-view").get_attribute("data-topic")
            tab.keyboard.press("ArrowRight")
            stepped = tab.locator("#topic-view").get_attribute("data-topic") != first
        finally:
            browser.close()
    return seconds, stepped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", help="working folder (default: a temporary one, removed after)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the pages in Chromium")
    args = parser.parse_args(argv)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="touche-bench-explorer-"))
    print("| setting | corpus read for texts | page written | size | opens: first topic, → next | target |")
    print("|---|---:|---:|---:|---|---|")
    try:
        for label, n_topics, n_docs, target in SETTINGS:
            folder = work / f"{n_topics}-{n_docs}"
            folder.mkdir(parents=True, exist_ok=True)
            corpus = folder / "corpus" / "args.json"
            if not corpus.is_file():
                write_corpus(corpus, n_docs=n_docs, seed=11)
            topics = write_topics(folder / "topics.xml", n_topics=n_topics)
            runs, qrels = synthetic_runs(folder, n_topics, n_docs)
            started = time.perf_counter()
            wanted = {line.split()[2] for run in runs for line in run.read_text().splitlines()
                      if int(line.split()[3]) <= 10}
            documents = read_documents(corpus.parent, "argsme", wanted)
            reading = time.perf_counter() - started
            page = folder / "explore.html"
            started = time.perf_counter()
            write_explorer(runs, {"relevance": qrels}, page, topics=topics, documents=documents)
            writing = time.perf_counter() - started
            size = page.stat().st_size / 2**20
            opened = None if args.no_browser else open_in_browser(page)
            shown = "no browser" if opened is None else f"{opened[0]:.1f} s, {'yes' if opened[1] else 'NO'}"
            print(f"| {label} | {reading:.1f} s | {writing:.1f} s | {size:.1f} MiB | {shown} | {target} |",
                  flush=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
