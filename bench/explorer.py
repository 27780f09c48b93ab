"""The run explorer and ``touche evaluate`` at the sizes users hand them, against the targets of
docs/performance.md (2 cores):

    python -m bench.explorer [--work DIR] [--no-browser]

Each command runs as its own process (``touche explore`` / ``touche evaluate``, imports and
start-up included; wall, CPU and peak RSS from the kernel):

* **16 Task 2 2022 runs × 50 topics**, relevance, quality and stance qrels and the passages'
  texts (target < 10 s): the 16 official runs over ../shared's passage sample when ../shared is
  there, and always 16 synthetic stance runs of 1,000 passages per topic;
* **5 runs × 1,000 topics** of 1,000 arguments each, relevance qrels, texts (target < 15 s);
* **``touche evaluate`` of the same 5 runs** with every default measure (target < 15 s);
* **the same 5 runs without qrels** (the page before judgements exist);
* **a year's submissions as they overlap: 100 runs × 50 topics × 100 rows from 3,000 candidates
  a topic** (thousands of distinct arguments a topic), 200 graded judgements a topic and texts
  (target < 15 s, a page < 20 MB that opens in < 2 s), and the same without qrels;
* **100 runs × 50 topics × 100 rows sharing one pool of 400 a topic** (the setting of the first
  target, < 30 s), with and without qrels;
* **300 runs × 6 topics × 20 rows** (the most the page takes: every pair is compared);
* **1,000 runs**: refused at once, with what to do instead (target: < 5 s, before reading a run).

Every setting reports the median and largest number of distinct documents a topic in its runs'
first 100 rows: the explorer's work grows with it. Each page is then opened in headless Chromium
(when it and Playwright are installed): the time until the first topic is rendered, and a keyboard
step to the next topic.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.measure import ROOT, StepFailed, run_measured
from bench.synthetic import write_corpus, write_passages, write_topics
from touche.paths import shared_touche_dir
from touche.retrieval.formats.runfile import COMPARATIVE_STANCES, RunFormat
from touche.retrieval.formats.runwriter import write_run

TOUCHE = [sys.executable, "-c", "import sys; from touche.cli import main; sys.exit(main())"]  # `touche`, this Python
TARGETS = {"stance": 10.0, "thousand": 15.0, "evaluate": 15.0, "hundred": 30.0, "realistic": 15.0, "refused": 5.0}
PAGE_TARGET_MB = 20.0  # a year's 100 runs
OPEN_TARGET_SECONDS = 2.0


@dataclass
class Setting:
    label: str
    command: list[str]
    page: Path | None = None  # the page it writes
    seconds: float | None = None  # target wall time
    page_mb: float | None = None  # target page size
    opens: float | None = None  # target seconds until the first topic is drawn
    refused: bool = False  # the command is expected to refuse (exit non-zero) at once
    runs: tuple[Path, ...] = ()  # its run files: their distinct documents per topic are reported


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


def synthetic_stance_runs(folder: Path, passages: list[str], n_runs: int = 16, n_topics: int = 50,
                          seed: int = 9) -> tuple[list[Path], dict[str, Path]]:
    """``n_runs`` Task 2 2022 runs of 1,000 passages a topic with stance labels (every fourth run
    says Q0: it predicts none), and relevance, quality and stance qrels judging 60 a topic."""
    rng = np.random.default_rng(seed)
    pools = {t: rng.choice(len(passages), 1500, replace=False) for t in range(1, n_topics + 1)}
    qrels = {name: folder / f"qrels-{name}.txt" for name in ("relevance", "quality", "stance")}
    lines: dict[str, list[str]] = {name: [] for name in qrels}
    for topic, pool in pools.items():
        for doc in pool[:60]:
            lines["relevance"].append(f"{topic} 0 {passages[doc]} {rng.integers(0, 3)}\n")
            lines["quality"].append(f"{topic} 0 {passages[doc]} {rng.integers(0, 3)}\n")
            lines["stance"].append(f"{topic} 0 {passages[doc]} {COMPARATIVE_STANCES[rng.integers(4)]}\n")
    for name, path in qrels.items():
        path.write_text("".join(lines[name]))
    runs = []
    for number in range(1, n_runs + 1):
        out = []
        for topic, pool in pools.items():
            chosen = rng.permutation(pool)[:1000]
            labels = ["Q0"] * 1000 if number % 4 == 0 else [COMPARATIVE_STANCES[i] for i in rng.integers(0, 4, 1000)]
            out += [f"{topic} {label} {passages[d]} {rank} {1000 - rank} stance-{number}\n"
                    for rank, (d, label) in enumerate(zip(chosen, labels), 1)]
        path = folder / f"stance-run-{number:02d}.txt"
        path.write_text("".join(out))
        runs.append(path)
    return runs, qrels


def many_runs(folder: Path, n_runs: int, n_topics: int, n_rows: int, n_docs: int = 20_000,
              seed: int = 3) -> tuple[list[Path], Path]:
    """``n_runs`` runs that share much, as a year's submissions do: per topic one pool of 400
    arguments in a common order, each run that order perturbed by its own amount of noise; graded
    qrels judging 60 of each pool."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ids = [f"S{doc // 8:08x}-A{doc:08x}" for doc in range(n_docs)]
    pools, qrels_lines = {}, []
    for topic in range(1, n_topics + 1):
        pools[topic] = rng.choice(n_docs, size=400, replace=False)
        qrels_lines += [f"{topic} 0 {ids[doc]} {rng.integers(-2, 3)}\n" for doc in pools[topic][:60]]
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(qrels_lines))
    runs = []
    for number in range(1, n_runs + 1):
        rows = {}
        for topic, pool in pools.items():
            order = np.argsort(np.arange(len(pool)) * 0.05 + rng.normal(0, 1 + number % 7, len(pool)))[:n_rows]
            scores = np.sort(rng.random(len(order)))[::-1] * 10
            rows[str(topic)] = [(ids[d], float(s)) for d, s in zip(pool[order], scores)]
        path = folder / f"run-{number:04d}.txt"
        write_run(path, rows, RunFormat.Q0, f"synthetic-{number}")
        runs.append(path)
    return runs, qrels


def realistic_runs(folder: Path, n_topics: int = 50, n_rows: int = 100, pool: int = 3000, judged: int = 200,
                   teams: int = 20, runs_per_team: int = 5, n_docs: int = 20_000,
                   seed: int = 4) -> tuple[list[Path], Path]:
    """A year's submissions as they overlap in fact: per topic ``pool`` candidate arguments in a
    common order of merit; ``teams`` teams blur that order each by its own noise (harder topics:
    more), and each team's ``runs_per_team`` runs blur their team's order a little more; a run is
    its ``n_rows`` best. So runs agree near the top and part ways below it (about 2,000 distinct
    arguments a topic over 100 runs; the 16 official Task 2 2022 runs already hold a median of
    368 in their top 100). Qrels: ``judged`` arguments a topic drawn as a pool is judged, the
    often retrieved more likely (so the top 5 of a run is partly judged, and runs are scored on
    different topics), labels better near the top of the common order."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ids = [f"S{doc // 8:08x}-A{doc:08x}" for doc in range(n_docs)]
    team_noise = rng.uniform(1.5, 6.0, teams)
    run_noise = rng.uniform(0.3, 2.5, (teams, runs_per_team))
    difficulty = rng.uniform(0.6, 1.5, n_topics)
    merit = np.log1p(np.arange(pool))  # the common order: steep at the top, flat below
    tops = np.empty((teams, runs_per_team, n_topics, n_rows), dtype=np.int64)
    qrels_lines = []
    for t in range(n_topics):
        candidates = rng.choice(n_docs, size=pool, replace=False)
        for team in range(teams):
            team_key = merit + rng.normal(0, team_noise[team] * difficulty[t], pool)
            for run in range(runs_per_team):
                key = team_key + rng.normal(0, run_noise[team, run] * difficulty[t], pool)
                tops[team, run, t] = np.argsort(key, kind="stable")[:n_rows]
        places = tops[:, :, t].reshape(-1, n_rows)
        weight = 5.0 * np.bincount(places[:, :10].ravel(), minlength=pool) + np.bincount(places.ravel(), minlength=pool)
        weight += 0.05
        chosen = rng.choice(pool, size=judged, replace=False, p=weight / weight.sum())
        good = np.exp(-chosen / 300.0)  # near the top of the common order: better labels
        for place, g in zip(chosen, good):
            label = rng.choice([-2, 0, 1, 2], p=_label_odds(g))
            qrels_lines.append(f"{t + 1} 0 {ids[candidates[place]]} {label}\n")
        tops[:, :, t] = candidates[tops[:, :, t]]
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(qrels_lines))
    runs = []
    for team in range(teams):
        for run in range(runs_per_team):
            rows = {str(t + 1): [(ids[d], float(n_rows - i)) for i, d in enumerate(tops[team, run, t])]
                    for t in range(n_topics)}
            path = folder / f"team{team + 1:02d}-run{run + 1}.txt"
            write_run(path, rows, RunFormat.Q0, f"team{team + 1:02d}-run{run + 1}")
            runs.append(path)
    return runs, qrels


def _label_odds(goodness: float) -> list[float]:
    """P(−2), P(0), P(1), P(2) of an argument ``goodness`` (1 at the top of the common order, → 0 below)."""
    return [0.05, 0.95 - 0.7 * goodness, 0.45 * goodness, 0.25 * goodness]


def distinct_documents(runs: list[Path], top: int = 100) -> tuple[float, int]:
    """Median and largest number of distinct documents per topic in the runs' first ``top``:
    what the explorer's work grows with."""
    per_topic: dict[str, set[str]] = {}
    for run in runs:
        for line in run.read_text(encoding="utf-8").splitlines():
            qid, _, doc, rank, *_ = line.split()
            if int(rank) <= top:
                per_topic.setdefault(qid, set()).add(doc)
    sizes = sorted(len(docs) for docs in per_topic.values())
    return float(np.median(sizes)), sizes[-1]


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


def _qrels_args(qrels: dict[str, Path]) -> list[str]:
    return [f"--qrels={name}={path}" for name, path in qrels.items()]


def settings(work: Path) -> list[Setting]:
    """Every setting, its data written."""
    out = []
    shared = shared_touche_dir()
    official = sorted((shared / "runs" / "task2-2022").glob("*.txt"))
    if len(official) == 16:
        qrels = {n: shared / "qrels" / f"task2-2022-{n}.qrels" for n in ("relevance", "quality", "stance")}
        page = work / "official.html"
        out.append(Setting("16 official Task 2 2022 runs × 50 topics, 3 qrels, texts (../shared)",
                           [*TOUCHE, "explore", *map(str, official), *_qrels_args(qrels), "-t",
                            str(shared / "topics" / "task2-2022.xml"), "-i",
                            str(shared / "corpora" / "task2-2022-passages.sample.jsonl"), "-o", str(page)],
                           page, TARGETS["stance"], runs=tuple(official)))
    stance = work / "stance"
    if not (stance / "passages").is_dir():
        write_passages(stance / "passages", 60_000, files=1)
    passages = [json.loads(line)["id"] for line in
                next((stance / "passages").glob("*.jsonl")).read_text(encoding="utf-8").splitlines()]
    runs, qrels = synthetic_stance_runs(stance, passages)
    topics = write_topics(stance / "topics.xml", n_topics=50)
    page = work / "stance.html"
    out.append(Setting("16 synthetic stance runs × 50 topics × 1,000, 3 qrels, texts",
                       [*TOUCHE, "explore", *map(str, runs), *_qrels_args(qrels), "-t", str(topics), "-i",
                        str(next((stance / "passages").glob("*.jsonl"))), "-o", str(page)], page, TARGETS["stance"],
                       runs=tuple(runs)))
    thousand = work / "thousand"
    thousand.mkdir(parents=True, exist_ok=True)
    corpus = thousand / "corpus" / "args.json"
    if not corpus.is_file():
        write_corpus(corpus, n_docs=20_000, seed=11)
    runs, qrels_file = synthetic_runs(thousand, 1000, 20_000)
    topics = write_topics(thousand / "topics.xml", n_topics=1000)
    common = [*map(str, runs), "-t", str(topics), "-i", str(corpus.parent)]
    page = work / "thousand.html"
    out.append(Setting("5 runs × 1,000 topics × 1,000, relevance qrels, texts",
                       [*TOUCHE, "explore", *common, f"--qrels=relevance={qrels_file}", "-o", str(page)], page,
                       TARGETS["thousand"], runs=tuple(runs)))
    out.append(Setting("touche evaluate, 5 runs × 1,000 topics × 1,000, every default measure",
                       [*TOUCHE, "evaluate", str(runs[0]), str(qrels_file), *[f"--also={r}" for r in runs[1:]]],
                       None, TARGETS["evaluate"], runs=tuple(runs)))
    page = work / "thousand-no-qrels.html"
    out.append(Setting("5 runs × 1,000 topics × 1,000, no qrels (agreement only), texts",
                       [*TOUCHE, "explore", *common, "-o", str(page)], page, runs=tuple(runs)))
    out += year_settings(work, corpus.parent, thousand / "topics.xml")
    return out


def year_settings(work: Path, corpus: Path, topics: Path) -> list[Setting]:
    """A year's submissions and beyond: 100 runs × 50 topics, 300 runs, 1,000 runs."""
    out = []
    runs, qrels = realistic_runs(work / "realistic")
    common = [*TOUCHE, "explore", *map(str, runs), "-t", str(topics), "-i", str(corpus)]
    page = work / "realistic.html"
    out.append(Setting("100 runs × 50 topics × 100 from 3,000 a topic, 200 judged a topic, texts", [
        *common, f"--qrels=relevance={qrels}", "-o", str(page)], page, TARGETS["realistic"], PAGE_TARGET_MB,
        OPEN_TARGET_SECONDS, runs=tuple(runs)))
    page = work / "realistic-no-qrels.html"
    out.append(Setting("the same, no qrels", [*common, "-o", str(page)], page, TARGETS["realistic"], PAGE_TARGET_MB,
                       OPEN_TARGET_SECONDS, runs=tuple(runs)))
    runs, qrels = many_runs(work / "hundred", 100, 50, 100)
    common = [*TOUCHE, "explore", *map(str, runs), "-t", str(topics), "-i", str(corpus)]
    page = work / "hundred.html"
    out.append(Setting("100 runs × 50 topics × 100, relevance qrels, texts", [*common, f"--qrels=relevance={qrels}",
                       "-o", str(page)], page, TARGETS["hundred"], PAGE_TARGET_MB, OPEN_TARGET_SECONDS,
                       runs=tuple(runs)))
    page = work / "hundred-no-qrels.html"
    out.append(Setting("100 runs × 50 topics × 100, no qrels, texts", [*common, "-o", str(page)], page,
                       TARGETS["hundred"], PAGE_TARGET_MB, OPEN_TARGET_SECONDS, runs=tuple(runs)))
    runs, qrels = many_runs(work / "three-hundred", 300, 6, 20)
    page = work / "three-hundred.html"
    out.append(Setting("300 runs × 6 topics × 20, relevance qrels", [*TOUCHE, "explore", *map(str, runs),
                       f"--qrels=relevance={qrels}", "-o", str(page)], page, runs=tuple(runs)))
    runs, qrels = many_runs(work / "thousand-runs", 1000, 6, 20)
    out.append(Setting("1,000 runs × 6 topics × 20: refused", [*TOUCHE, "explore", *map(str, runs),
                       f"--qrels=relevance={qrels}", "-o", str(work / "thousand-runs.html")],
                       seconds=TARGETS["refused"], refused=True))
    return out


def _year_only(work: Path) -> list[Setting]:
    corpus = work / "thousand" / "corpus" / "args.json"
    if not corpus.is_file():
        write_corpus(corpus, n_docs=20_000, seed=11)
    topics = write_topics(work / "thousand" / "topics.xml", n_topics=50)
    return year_settings(work, corpus.parent, topics)


def measure_setting(setting: Setting, browser: bool = True) -> str:
    """One setting run as its command, its page opened: a row of the table."""
    distinct = "–" if not setting.runs else "{:,.0f} / {:,}".format(*distinct_documents(list(setting.runs)))
    if setting.refused:
        started = time.perf_counter()
        try:
            run_measured(setting.command, cwd=ROOT)
        except StepFailed as failure:
            seconds = time.perf_counter() - started
            said = next((line for line in str(failure).splitlines() if "runs are" in line), str(failure)[-200:])
            met = seconds < setting.seconds
            return (f"| {setting.label} | {distinct} | {seconds:.1f} | – | – | – | – | < {setting.seconds:.0f} s: "
                    f"{'met' if met else 'NOT met'}: {said.strip()[:160]}… |")
        return f"| {setting.label} | {distinct} | – | – | – | – | – | NOT refused |"
    measured = run_measured(setting.command, cwd=ROOT)
    page_mb = setting.page.stat().st_size / 1e6 if setting.page else None
    opened = open_in_browser(setting.page) if browser and setting.page is not None else None
    shown = "–" if setting.page is None else ("no browser" if opened is None else
                                             f"{opened[0]:.1f} s, {'yes' if opened[1] else 'NO'}")
    verdicts = []
    if setting.seconds is not None:
        verdicts.append(f"< {setting.seconds:.0f} s: {'met' if measured.seconds < setting.seconds else 'NOT met'}")
    if setting.page_mb is not None:
        verdicts.append(f"< {setting.page_mb:.0f} MB: {'met' if page_mb < setting.page_mb else 'NOT met'}")
    if setting.opens is not None and opened is not None:
        verdicts.append(f"opens < {setting.opens:.0f} s: {'met' if opened[0] < setting.opens else 'NOT met'}")
    return (
        f"| {setting.label} | {distinct} | {measured.seconds:.1f} | {measured.cpu_seconds:.1f} |"
        f" {measured.peak_rss_mib:,.0f} | {'–' if page_mb is None else f'{page_mb:.1f}'} | {shown} |"
        f" {'; '.join(verdicts) or '–'} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", help="working folder (default: a temporary one, removed after)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the pages in Chromium")
    parser.add_argument("--only-year", action="store_true",
                        help="only the year's settings: 100, 300 and 1,000 runs (the others take minutes to prepare)")
    args = parser.parse_args(argv)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="touche-bench-explorer-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        # prepared in a child: a command forked from a parent holding the generated data would
        # report the parent's resident set as its own peak
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            prepared = pool.apply(_year_only if args.only_year else settings, (work,))
        print("| setting | distinct documents a topic in the top 100 (median / max) | wall s | CPU s | peak RSS MiB | "
              "page MB | opens: first topic, → next | target |")
        print("|---|---:|---:|---:|---:|---:|---|---|")
        for setting in prepared:
            print(measure_setting(setting, browser=not args.no_browser), flush=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
