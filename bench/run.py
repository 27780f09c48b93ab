"""Performance at corpus scale, side by side with raw Anserini and a pure-Python engine.

    python -m bench              # full scale: 387,740 synthetic args.me arguments (≈ 25 min on 2 cores)
    python -m bench --small      # CI-sized: seconds; checks the suite works, not the figures
    python -m bench --docs 50000 --passages 50000

Every step runs as its own process (wall time, CPU time and peak RSS from the kernel, JVM
start-up included for every engine alike), on the same data, in the same run; the table
reports ratios against raw Anserini because a shared machine's absolute times move with its
load. See docs/performance.md for how to read it.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import anserini, explorer, fullsize
from bench.measure import ROOT, Measured, StepFailed, directory_mib, log_interval, python_command, run_measured
from bench.synthetic import (
    ARGSME_SIZE,
    write_corpus,
    write_jsonl_collection,
    write_passages,
    write_topics,
    write_topics_tsv,
)

# The analyzer chains measured: the example variants (BM25, Krovetz + SMART, shingles, fusion);
# the whole-submission row runs the shipped suite (configs/task1/suite.yaml) through run-all.
SUITE = ROOT / "configs" / "task1" / "examples" / "suite.yaml"
PASSAGE_VARIANT = ROOT / "bench" / "configs" / "passages-krovetz.yaml"
FULL_PASSAGES = 200_000  # a quarter of the real collection keeps the full run under half an hour
SMALL_DOCS, SMALL_PASSAGES = 2_000, 1_000
# Chains IndexCollection can build too (no shingles): held to ≥ index_ratio × its docs/s.
COMPARABLE_CHAINS = ("1-bm25", "2-krovetz-bm25")
TARGETS = {"index_ratio": 1.0, "floor_ratio": 0.9, "search_ratio": 1.3, "submission_seconds": 300.0,
           "peak_rss_mib": 4096.0}


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| " + " | ".join(self.header) + " |",
                 "|" + "|".join("---" for _ in self.header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        lines += [""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines).rstrip() + "\n"


@dataclass
class Bench:
    data: Path
    docs: int
    passages: int
    heap: str
    threads: int
    small: bool = False
    skip: tuple[str, ...] = ()
    results: dict = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)

    @property
    def work(self) -> Path:
        return self.data / f"work-{self.docs}"

    def env(self) -> dict[str, str]:
        return {"TOUCHE_JVM_HEAP": self.heap, "PYTHONPATH": str(ROOT)}

    def step(self, name: str, command: list[str]) -> Measured:
        print(f"[bench] {name} …", file=sys.stderr, flush=True)
        measured = run_measured(command, env=self.env())
        self.results.setdefault("steps", {})[name] = {
            "seconds": measured.seconds, "cpu_seconds": measured.cpu_seconds, "peak_rss_mib": measured.peak_rss_mib,
            "result": measured.result}
        return measured

    def emit(self, table: Table) -> None:
        self.tables.append(table)
        print(table.markdown(), flush=True)


# ---------------------------------------------------------------- data
def prepare(bench: Bench) -> dict:
    from touche.indexing.corpora import open_corpus
    argsme_dir = bench.data / f"argsme-synthetic-{bench.docs}"
    corpus = argsme_dir / "args-synthetic.json"
    if not corpus.is_file():
        write_corpus(corpus, bench.docs)
    topics = argsme_dir / "topics.xml"
    if not topics.is_file():
        write_topics(topics)
    passages_dir = bench.data / f"passages-synthetic-{bench.passages}"
    if not passages_dir.is_dir():
        write_passages(passages_dir, bench.passages)
    jsonl = bench.data / f"argsme-synthetic-{bench.docs}-jsonl"
    if not jsonl.is_dir():
        write_jsonl_collection(open_corpus("argsme", argsme_dir), jsonl, files=2 * bench.threads)
    shutil.rmtree(bench.work, ignore_errors=True)  # measure building, never reuse across runs
    bench.work.mkdir(parents=True)
    return {"argsme_dir": argsme_dir, "corpus": corpus, "topics": topics, "passages_dir": passages_dir,
            "jsonl": jsonl}


def suite_variants():
    from touche.config import load_suite, load_variant
    suite_file, suite = load_suite(SUITE)
    return [load_variant(suite_file.parent / v) for v in suite.variants]


def chain_name(variant) -> str:
    a = variant.analyzer
    parts = [a.stemmer if a.stemmer != "none" else "no stemmer", f"stop {a.stoplist}"]
    if a.shingles:
        parts.append(f"shingles {a.shingles.min_size}-{a.shingles.max_size}")
    return ", ".join(parts)


def fmt(x: float | None, digits: int = 0) -> str:
    return "—" if x is None else f"{x:,.{digits}f}"


def ratio(x: float | None, floor: float | None) -> str:
    return "—" if not x or not floor else f"{x / floor:.2f}×"


# ---------------------------------------------------------------- steps
def jvm_startup(bench: Bench) -> None:
    ours = bench.step("jvm start (ours)", python_command("bench.worker", "jvm", "--heap", bench.heap))
    java = bench.step("jvm start (java -version)", anserini.java_command()[:1] + ["-version"])
    bench.results["jvm"] = {"ours_in_process": ours.result["jvm_seconds"], "ours_process": ours.seconds,
                            "java_version_process": java.seconds}


def indexing(bench: Bench, data: dict) -> dict:
    """IndexCollection (Krovetz) vs our path with each of the suite's chains vs bm25s."""
    docs = bench.docs
    floor = bench.step("index anserini", anserini.index_command(data["jsonl"], bench.work / "anserini-argsme",
                                                                  threads=bench.threads))
    floor_dps = docs / floor.seconds
    floor_cpu = floor.cpu_seconds
    table = Table(f"Indexing {docs:,} args.me-shaped arguments ({directory_mib(data['corpus']):,.0f} MiB JSON), "
                  f"{bench.threads} threads",
                  ["engine / analyzer chain", "fields", "seconds", "docs/s", "× IndexCollection", "× Java floor",
                   "CPU s", "CPU × IndexCollection", "index MiB", "peak RSS MiB"])
    table.rows.append(["Anserini IndexCollection, Krovetz (its built-in chain)", "contents + raw",
                       fmt(floor.seconds, 1), fmt(floor_dps), "1.00×", "", fmt(floor_cpu, 1), "1.00×",
                       fmt(directory_mib(bench.work / "anserini-argsme")), fmt(floor.peak_rss_mib)])
    ours = {}
    java_floor = {}
    seen = set()
    for loaded in suite_variants():
        v = loaded.variant
        if v.index_key() in seen:
            continue
        seen.add(v.index_key())
        m = bench.step(f"index ours {loaded.name}", python_command(
            "bench.worker", "index", "--variant", str(loaded.path), "--corpus", str(data["argsme_dir"]),
            "--index-root", str(bench.work / "indexes"), "--heap", bench.heap))
        dps = docs / m.seconds
        ours[loaded.name] = dps / floor_dps
        # The same chain, fields, threads and RAM buffer in Java alone (FloorIndexer): what our
        # path would reach if Python cost nothing.
        f = bench.step(f"index java floor {loaded.name}", anserini.floor_command(
            v, data["argsme_dir"], bench.work / f"floor-{loaded.path.stem}", loaded.path.parent, heap=bench.heap))
        floor_chain_dps = docs / f.seconds
        java_floor[loaded.name] = dps / floor_chain_dps
        fields = " + ".join(v.index.fields) + (" + raw" if v.index.store_raw else "")
        table.rows.append([f"Java floor: {chain_name(v)}", fields, fmt(f.seconds, 1), fmt(floor_chain_dps),
                           ratio(floor_chain_dps, floor_dps), "1.00×", fmt(f.cpu_seconds, 1),
                           ratio(f.cpu_seconds, floor_cpu),
                           fmt(directory_mib(bench.work / f"floor-{loaded.path.stem}")),
                           fmt(f.peak_rss_mib)])
        table.rows.append([f"ours: {chain_name(v)}", fields, fmt(m.seconds, 1), fmt(dps), ratio(dps, floor_dps),
                           ratio(dps, floor_chain_dps), fmt(m.cpu_seconds, 1), ratio(m.cpu_seconds, floor_cpu),
                           fmt(m.result.get("size_mib")), fmt(m.peak_rss_mib)])
    bm = None if "bm25s" in bench.skip else bm25s_row(bench, data, floor_dps, floor_cpu)
    if bm:
        table.rows.append(bm)
    table.notes += [
        "seconds are whole processes (JVM start, imports, parsing, analysis, commit) on the same corpus; "
        "× IndexCollection > 1 is faster (docs/s) or costlier (CPU s)",
        "Java floor: java/src/touche/lucene/FloorIndexer.java, the row's chain, fields, threads and RAM buffer, "
        "reading the same JSON with Jackson: the work without Python",
        f"targets: every chain ≥ {TARGETS['floor_ratio']}× its Java floor; the chains IndexCollection also has "
        f"(plain, Krovetz) ≥ {TARGETS['index_ratio']}× IndexCollection's docs/s"]
    bench.results["indexing"] = {"anserini_docs_per_second": floor_dps, "ours_ratio": ours, "floor_ratio": java_floor}
    bench.emit(table)
    return ours


def bm25s_row(bench: Bench, data: dict, floor_dps: float, floor_cpu: float) -> list[str] | None:
    try:
        import bm25s  # noqa: F401
    except ImportError:
        bench.results["bm25s"] = "not installed (pip install -e .[bench])"
        return ["bm25s (pure Python): not installed — pip install -e '.[bench]'", "", "", "", "", "", "", "", ""]
    m = bench.step("bm25s", python_command(
        "bench.worker", "bm25s", "--corpus", str(data["argsme_dir"]), "--topics", str(data["topics"]),
        "--save", str(bench.work / "bm25s-index"), "--out", str(bench.work / "bm25s-run.txt")))
    r = m.result
    bench.results["bm25s"] = r
    dps = bench.docs / m.seconds
    return [f"bm25s (pure Python), {r['stemmer']} stemmer, English stoplist; whole process incl. 50-topic search",
            "contents", fmt(m.seconds, 1), fmt(dps), ratio(dps, floor_dps), fmt(m.cpu_seconds, 1),
            ratio(m.cpu_seconds, floor_cpu), fmt(r["size_mib"]), fmt(m.peak_rss_mib)]


def run_files(bench: Bench, data: dict) -> None:
    """Our five runs in one session (as run-all does) vs SearchCollection on the same indexes."""
    from touche.retrieval.formats.topics import read_topics
    from touche.retrieval.query import query_text
    variants = suite_variants()
    m = bench.step("runs ours", python_command(
        "bench.worker", "runs", "--corpus", str(data["argsme_dir"]), "--topics", str(data["topics"]),
        "--index-root", str(bench.work / "indexes"), "--out", str(bench.work / "runs-ours"), "--heap", bench.heap,
        *[str(v.path) for v in variants]))
    ours = m.result["runs"]
    topics = read_topics(data["topics"])
    table = Table(f"Run files: {len(topics)} topics × 1,000 hits on the {bench.docs:,}-argument indexes",
                  ["variant", "ours s (in session)", "SearchCollection s (search + write)", "ratio",
                   "SearchCollection process s", "same top 10", "note"])
    ratios = {}
    for n, loaded in enumerate(variants):
        v = loaded.variant
        if bench.small and n >= 2:  # CI mode checks the machinery; three JVM starts fewer
            table.rows.append([loaded.name, fmt(ours[loaded.name]["seconds"], 2), "—", "—", "—", "—",
                               "SearchCollection skipped in --small"])
            continue
        tsv = write_topics_tsv({t.number: query_text(t, v.query) for t in topics},
                               bench.work / "topics" / f"{loaded.name}.tsv")
        options, note = anserini.search_options(v, loaded.path.parent)
        if v.rerank:
            note = "; ".join(filter(None, [note, "SearchCollection does the first stage only"]))
        run = bench.work / "runs-anserini" / f"{loaded.name}.txt"
        run.parent.mkdir(parents=True, exist_ok=True)
        index = Path(ours[loaded.name]["index"])
        a = bench.step(f"search anserini {loaded.name}", anserini.search_command(index, tsv, run, options,
                                                                                   threads=bench.threads))
        internal = log_interval(a.stderr + a.stdout, "Launching Search Threads", "Total run time")
        mine = ours[loaded.name]["seconds"]
        if not v.rerank:  # the target compares like with like: first-stage runs
            ratios[loaded.name] = mine / internal if internal else None
        same = (
            "—"
            if v.rerank or v.analyzer.shingles
            else top_agreement(bench.work / "runs-ours" / f"{loaded.name}.txt", run)
        )
        table.rows.append([loaded.name, fmt(mine, 2), fmt(internal, 2), ratio(mine, internal), fmt(a.seconds, 2),
                           same, note])
    table.notes += [
        "ours = Session.run + validated write, JVM already up (as in run-all); SearchCollection = its own log "
        "from 'Launching Search Threads' to 'Total run time' (the process column adds JVM start and index open)",
        "variant 5 re-uses variants 2 and 4 from the session (fusion) and fetches raw records for re-ranking",
        f"target: ≤ {TARGETS['search_ratio']}× SearchCollection, for the first-stage variants (re-ranked and "
        "fused ones do more than SearchCollection can)"]
    if isinstance(bench.results.get("bm25s"), dict):
        table.notes.append(f"bm25s: {bench.results['bm25s']['search_seconds']:.2f} s to tokenize and search the "
                           f"{len(topics)} topics (k=1,000), in process")
    bench.results["run_files"] = {"ours": ours, "ratio": ratios}
    bench.emit(table)


def top_agreement(ours: Path, theirs: Path, depth: int = 10) -> str:
    """Topics whose top ``depth`` docids agree (same order) between two run files."""
    def tops(path: Path) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for line in path.read_text().splitlines():
            qid, _, docid, rank, *_ = line.split()
            if int(rank) <= depth:
                out.setdefault(qid, []).append(docid)
        return out
    a, b = tops(ours), tops(theirs)
    agree = sum(1 for q in a if a[q] == b.get(q))
    return f"{agree}/{len(a)} topics"


def sweep_point(bench: Bench, data: dict) -> None:
    variant = next(v for v in suite_variants() if v.name.startswith("2-"))
    before = bench.results["run_files"]["ours"][variant.name]["index_created"]
    m = bench.step("sweep point", python_command(
        "bench.worker", "runs", "--corpus", str(data["argsme_dir"]), "--topics", str(data["topics"]),
        "--index-root", str(bench.work / "indexes"), "--out", str(bench.work / "runs-sweep"), "--heap", bench.heap,
        "--set", "retrieval.similarity.k1=1.5", str(variant.path)))
    run = m.result["runs"][variant.name]
    reused = run["index_created"] == before
    bench.results["sweep_point"] = {"seconds": m.seconds, "run_seconds": run["seconds"], "index_reused": reused}
    table = Table("A sweep point (variant 2 with k1 = 1.5) on the existing index",
                  ["process s", "run s", "index rebuilt?", "peak RSS MiB"],
                  [[fmt(m.seconds, 2), fmt(run["seconds"], 2), "no (reused)" if reused else "YES",
                    fmt(m.peak_rss_mib)]])
    bench.emit(table)


def submission(bench: Bench, data: dict) -> None:
    out = bench.work / "submission"
    m = bench.step("submission", python_command("touche", "run-all", "-i", str(data["argsme_dir"]), "-o", str(out),
                                                "--index-root", str(bench.work / "indexes-submission")))
    runs = sorted(p.name for p in out.glob("*.txt"))
    bench.results["submission"] = {"seconds": m.seconds, "cpu_seconds": m.cpu_seconds, "peak_rss_mib": m.peak_rss_mib,
                                   "runs": runs}
    ok = m.seconds < TARGETS["submission_seconds"] and m.peak_rss_mib < TARGETS["peak_rss_mib"]
    table = Table(f"Whole Task 1 submission from scratch: `touche run-all` (five variants, every index built), "
                  f"{bench.docs:,} arguments",
                  ["wall s", "CPU s", "peak RSS MiB", "run files", "targets (< 300 s, < 4,096 MiB)"],
                  [[fmt(m.seconds, 1), fmt(m.cpu_seconds, 1), fmt(m.peak_rss_mib), str(len(runs)),
                    "met" if ok else "NOT met"]],
                  [f"JVM heap: TOUCHE_JVM_HEAP={bench.heap}"])
    bench.emit(table)


def passages(bench: Bench, data: dict) -> None:
    n = bench.passages
    floor = bench.step("index anserini passages", anserini.index_command(
        data["passages_dir"], bench.work / "anserini-passages", threads=bench.threads))
    m = bench.step("index ours passages", python_command(
        "bench.worker", "index", "--variant", str(PASSAGE_VARIANT), "--corpus", str(data["passages_dir"]),
        "--index-root", str(bench.work / "indexes"), "--heap", bench.heap))
    table = Table(
        f"Indexing {n:,} passage-shaped records (Task 2 2022 JSONL, {directory_mib(data['passages_dir']):,.0f} MiB)",
        ["engine", "seconds", "docs/s", "× IndexCollection", "CPU s", "index MiB", "peak RSS MiB"],
    )
    table.rows.append(["Anserini IndexCollection, Krovetz", fmt(floor.seconds, 1), fmt(n / floor.seconds), "1.00×",
                       fmt(floor.cpu_seconds, 1), fmt(directory_mib(bench.work / "anserini-passages")),
                       fmt(floor.peak_rss_mib)])
    table.rows.append(["ours: Krovetz, stop lucene (contents + raw)", fmt(m.seconds, 1), fmt(n / m.seconds),
                       ratio(floor.seconds, m.seconds), fmt(m.cpu_seconds, 1), fmt(m.result.get("size_mib")),
                       fmt(m.peak_rss_mib)])
    bench.results["passages"] = {"anserini_seconds": floor.seconds, "ours_seconds": m.seconds}
    bench.emit(table)


def sharding(bench: Bench, data: dict) -> None:
    variant = next(v for v in suite_variants() if v.name.startswith("2-"))
    m = bench.step("index ours sharded", python_command(
        "bench.worker", "index", "--variant", str(variant.path), "--corpus", str(data["argsme_dir"]),
        "--index-root", str(bench.work / "indexes-sharded"), "--heap", bench.heap, "--shards", "2",
        "--compare-with", bench.results["run_files"]["ours"][variant.name]["index"], "--topics", str(data["topics"])))
    single = next(s for name, s in bench.results["steps"].items() if name == f"index ours {variant.name}")
    check = m.result["compare"]
    same = check.get("identical")
    table = Table("Sharded building: 2 shards built by 2 processes in parallel, searched as one (MultiReader)",
                  ["index", "wall s", "docs/s", "CPU s", "peak RSS MiB (all processes)",
                   "run identical to single index"],
                  [["single (2 threads)", fmt(single["seconds"], 1), fmt(bench.docs / single["seconds"]),
                    fmt(single["cpu_seconds"], 1), fmt(single["peak_rss_mib"]), "—"],
                   ["2 shards (2 processes)", fmt(m.seconds, 1), fmt(bench.docs / m.seconds), fmt(m.cpu_seconds, 1),
                    fmt(m.peak_rss_mib), "yes" if same else f"NO ({check.get('difference')})"]])
    table.notes.append("wall s of the sharded build includes comparing its run with the single index's")
    bench.results["sharding"] = {"seconds": m.seconds, "identical": same, "difference": check.get("difference")}
    bench.emit(table)


def summary(bench: Bench) -> None:
    r = bench.results
    rows = []
    idx = {k: v for k, v in r.get("indexing", {}).get("ours_ratio", {}).items() if k in COMPARABLE_CHAINS}
    if idx:
        worst = min(idx, key=idx.get)
        rows.append([f"indexing ≥ {TARGETS['index_ratio']}× IndexCollection (the chains it has: "
                     f"{', '.join(sorted(idx))})",
                     f"worst: {worst} {idx[worst]:.2f}×", "met" if idx[worst] >= TARGETS["index_ratio"] else "NOT met"])
    floor = r.get("indexing", {}).get("floor_ratio", {})
    if floor:
        worst = min(floor, key=floor.get)
        rows.append([f"indexing ≥ {TARGETS['floor_ratio']}× its pure-Java floor (every chain)",
                     f"worst: {worst} {floor[worst]:.2f}×",
                     "met" if floor[worst] >= TARGETS["floor_ratio"] else "NOT met"])
    search = {k: v for k, v in r.get("run_files", {}).get("ratio", {}).items() if v}
    if search:
        worst = max(search, key=search.get)
        rows.append([f"run file ≤ {TARGETS['search_ratio']}× SearchCollection", f"worst: {worst} {search[worst]:.2f}×",
                     "met" if search[worst] <= TARGETS["search_ratio"] else "NOT met"])
    if "sweep_point" in r:
        rows.append(["sweep point reuses the index", f"{r['sweep_point']['run_seconds']:.2f} s",
                     "met" if r["sweep_point"]["index_reused"] else "NOT met"])
    if "submission" in r:
        s = r["submission"]
        rows.append(["five-variant submission < 5 min", f"{s['seconds']:.0f} s",
                     "met" if s["seconds"] < TARGETS["submission_seconds"] else "NOT met"])
        rows.append(["peak memory < 4 GiB (submission)", f"{s['peak_rss_mib']:,.0f} MiB",
                     "met" if s["peak_rss_mib"] < TARGETS["peak_rss_mib"] else "NOT met"])
    if "sharding" in r:
        rows.append(["sharded search = single index", "", "met" if r["sharding"]["identical"] else "NOT met"])
    table = Table("Targets", ["target", "measured", "status"], rows)
    if bench.docs < ARGSME_SIZE:
        table.notes.append(
            f"measured on {bench.docs:,} arguments, not the full 387,740: the figures are not the targets' own"
        )
    bench.emit(table)


def machine() -> str:
    load = os.getloadavg()
    return (f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--small", action="store_true",
                        help=f"CI-sized: {SMALL_DOCS:,} arguments, {SMALL_PASSAGES:,} passages")
    parser.add_argument("--docs", type=int, help=f"args.me-shaped arguments (default {ARGSME_SIZE:,})")
    parser.add_argument("--passages", type=int, help=f"passages (default {FULL_PASSAGES:,})")
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data", help="corpora, indexes and results")
    parser.add_argument("--heap", default=os.environ.get("TOUCHE_JVM_HEAP", "3g"), help="JVM heap of our processes")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fullsize", action="store_true",
                        help="also the full-size Task 2 2022, pair and image submissions (bench/fullsize.py, about "
                             "35 minutes more)")
    parser.add_argument("--skip", action="append", default=[],
                        choices=["passages", "submission", "sharding", "bm25s", "explorer"], help="leave a section out")
    args = parser.parse_args(argv)
    docs = args.docs or (SMALL_DOCS if args.small else ARGSME_SIZE)
    n_passages = args.passages or (SMALL_PASSAGES if args.small else FULL_PASSAGES)
    bench = Bench(args.data, docs, n_passages, args.heap, args.threads, small=args.small, skip=tuple(args.skip))
    started = time.perf_counter()
    print(f"## Benchmark: {docs:,} arguments, {n_passages:,} passages\n\n{machine()}\n", flush=True)
    try:
        data = prepare(bench)
        jvm_startup(bench)
        j = bench.results["jvm"]
        print(f"JVM start: {j['ours_in_process']:.2f} s in process (jnius + Lucene classes); "
              f"`java -version` {j['java_version_process']:.2f} s; a bench worker process "
              f"(Python imports + JVM) {j['ours_process']:.2f} s\n", flush=True)
        indexing(bench, data)
        run_files(bench, data)
        sweep_point(bench, data)
        if "sharding" not in args.skip:
            sharding(bench, data)
        if "passages" not in args.skip:
            passages(bench, data)
        if "submission" not in args.skip:
            submission(bench, data)
        summary(bench)
        if "explorer" not in args.skip and not args.small:  # bench/explorer.py: the run explorer's page sizes
            print("### The run explorer (python -m bench.explorer)\n", flush=True)
            explorer.main(["--work", str(args.data / "explorer")])
        if args.fullsize:
            fullsize.main(["--data", str(args.data)])
        if not args.small:  # the full-size rows, measured now or by an earlier --fullsize (they take 25 minutes)
            print(fullsize.summary(args.data), flush=True)
    except StepFailed as exc:
        print(f"benchmark step failed: {exc}", file=sys.stderr)
        return 1
    finally:
        bench.results["total_seconds"] = time.perf_counter() - started
        bench.data.mkdir(parents=True, exist_ok=True)
        (bench.data / f"results-{docs}.json").write_text(json.dumps(bench.results, indent=2, default=str))
        (bench.data / f"results-{docs}.md").write_text("\n".join(t.markdown() for t in bench.tables))
    print(f"total {time.perf_counter() - started:.0f} s; results in {bench.data}/results-{docs}.md", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
