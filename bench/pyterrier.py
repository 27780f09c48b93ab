"""What the PyTerrier transformer costs over ``touche run``: the same variant on the same topics,
in one process, its index built once beforehand (target: at most 1.1× the run).

    python -m bench.pyterrier [--variant task1/1-krovetz-smart-lmd2000-quality] [--repeats 3]
    python -m bench.pyterrier --stance   # pt.Experiment's stance F1 against touche evaluate's
    python -m bench.pyterrier --experiment [--repeats 3]   # pt.Experiment against api.experiment

Data: ../shared's args.me sample and its completion file with the 50 Touché 2021 Task 1 topics
(retrieval only: nothing is scored here). Each repeat times ``Session.run`` (what ``touche run``
does before writing the file: queries, search, re-ranking, rows) and ``Variant.transform`` of
the topics frame (the same, plus the frames between the stages), alternating, each on a fresh
session so neither reuses the other's results; the searchers of a fresh session open the index
again, as a new ``touche run`` process does.

``--experiment``: the 16 official Task 2 2022 runs of ../shared with relevance, quality, stance
F1 and N (the leaderboard's measures), scored by ``pt.Experiment`` on ``tpt.read_run`` frames and
by ``api.experiment`` on the files and on the same frames (target: pt.Experiment within 2× of
``api.experiment``); wall and CPU seconds (CPU time is what another process's load leaves alone),
median of the repeats. Each repeat scores the runs afresh (the gated qrels are forgotten).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from touche import api, jvm
from touche.paths import shared_touche_dir


def corpus_folder(shared: Path, scratch: Path) -> Path:
    folder = scratch / "args.me"
    folder.mkdir()
    for name in ("argsme-2020-04-01.sample.json", "argsme-2020-04-01.dev-completion.json"):
        (folder / name).symlink_to(shared / "corpora" / name)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pyterrier", description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="task1/1-krovetz-smart-lmd2000-quality")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stance", action="store_true",
                        help="instead: the five Task 2 2022 stance variants on ../shared's passage sample, stance "
                             "macro-F1 in pt.Experiment against touche evaluate on their run files")
    parser.add_argument("--experiment", action="store_true",
                        help="instead: pt.Experiment against api.experiment on the 16 official Task 2 2022 runs")
    args = parser.parse_args(argv)
    shared = shared_touche_dir()
    if not (shared / "corpora").is_dir():
        print(f"../shared not found at {shared}: nothing to measure", file=sys.stderr)
        return 1
    import touche.pyterrier as tpt
    from touche.retrieval.session import Session
    jvm.start()
    if args.stance:
        return stance(shared, tpt)
    if args.experiment:
        return experiment(shared, tpt, args.repeats)
    with tempfile.TemporaryDirectory(prefix="bench-pyterrier-") as scratch:
        corpus = corpus_folder(shared, Path(scratch))
        root = Path(scratch) / "indexes"
        topics_file = shared / "topics" / "task1-2021.xml"
        loaded = api.variant(args.variant)
        topics = tpt.topics(topics_file)
        warm = Session(corpus, topics_file, root, progress=False)
        warm.run(loaded)  # builds the index (and loads the models) once, for both
        warm.close()
        runs, transforms = [], []
        for _ in range(args.repeats):
            session = Session(corpus, topics_file, root, progress=False)
            started = time.perf_counter()
            result = session.run(loaded)
            runs.append(time.perf_counter() - started)
            session.close()
            variant = tpt.Variant(loaded, corpus=corpus, index_root=root)
            started = time.perf_counter()
            frame = variant.transform(topics)
            transforms.append(time.perf_counter() - started)
            variant.close()
            assert len(frame) == sum(len(rows) for rows in result.rows.values())
        run, transform = statistics.median(runs), statistics.median(transforms)
        print(f"{args.variant} on the {len(topics)} Touché 2021 Task 1 topics ({len(frame):,} rows), "
              f"median of {args.repeats}:")
        print(f"  touche run (Session.run)       {run:6.2f} s   ({', '.join(f'{t:.2f}' for t in runs)})")
        print(f"  Variant.transform (PyTerrier)  {transform:6.2f} s   ({', '.join(f'{t:.2f}' for t in transforms)})")
        print(f"  ratio {transform / run:.2f}× (target ≤ 1.10×)")
    return 0


def stance(shared: Path, tpt) -> int:
    import pyterrier as pt

    from touche.paths import CONFIGS
    corpus = shared / "corpora" / "task2-2022-passages.sample.jsonl"
    topics = shared / "topics" / "task2-2022.xml"
    qrels = {"relevance": shared / "qrels" / "task2-2022-relevance.qrels",
             "stance": shared / "qrels" / "task2-2022-stance.qrels"}
    names = sorted(p.stem for p in (CONFIGS / "task2-stance").glob("[1-5]-*.yaml"))
    with tempfile.TemporaryDirectory(prefix="bench-pyterrier-") as scratch:
        root = Path(scratch) / "indexes"
        variants = [tpt.Variant(f"task2-stance/{n}", corpus=corpus, index_root=root) for n in names]
        result = pt.Experiment(variants, tpt.topics(topics), tpt.qrels(qrels), names=names,
                               eval_metrics=[tpt.measure("stance:stance.F1_macro")])
        worst = 0.0
        for name, value in zip(result["name"], result["stance:stance.F1_macro"]):
            run = Path(scratch) / f"{name}.txt"
            api.write(api.search(f"task2-stance/{name}", topics, corpus, index_root=root), run, "t")
            expected = api.evaluate(run, qrels, ["stance:stance.F1_macro"])["stance:stance.F1_macro"]
            worst = max(worst, abs(value - expected))
            print(f"  {name:22} pt.Experiment {value:.6f}   touche evaluate {expected:.6f}")
        print(f"largest difference {worst:.2e}")
    return 0 if worst < 1e-12 else 1


def experiment(shared: Path, tpt, repeats: int) -> int:
    import warnings

    import pyterrier as pt

    from touche.pyterrier import scoring
    measures = ["touche.nDCG@5", "quality:touche.nDCG@5", "stance.F1_macro", "stance.N"]
    files = sorted((shared / "runs" / "task2-2022").glob("*.txt"))
    qrels_files = {n: shared / "qrels" / f"task2-2022-{n}.qrels" for n in ("relevance", "quality", "stance")}
    frames = [tpt.read_run(f) for f in files]
    judged, topics = tpt.qrels(qrels_files), tpt.topics(shared / "topics" / "task2-2022.xml")
    names = [f.name for f in files]

    def pyterrier():
        scoring._gated.qrels.clear()
        return pt.Experiment(frames, topics, judged, names=names, eval_metrics=tpt.measures(*measures))

    contenders = {"pt.Experiment (frames)": pyterrier,
                  "api.experiment (files)": lambda: api.experiment(dict(zip(names, files)), qrels_files, measures),
                  "api.experiment (frames)": lambda: api.experiment(dict(zip(names, frames)), qrels_files, measures)}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tied-scores notes of the official runs
        pyterrier()  # warm: imports (scipy.stats) and the JIT of nothing: the first call's one-off costs
        for _ in range(repeats):
            for name, call in contenders.items():
                wall, cpu = time.perf_counter(), time.process_time()
                result = call()
                times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
                if name.startswith("pt."):
                    scored = result.set_index("name")
    expected = api.experiment(dict(zip(names, files)), qrels_files, measures, baseline=None)

    def column(label: str) -> str:  # api.experiment names each qrels file; relevance and stance go unnamed here
        qrels_name, _, bare = label.partition(":")
        return bare if qrels_name in ("relevance", "stance") else label
    worst = max(abs(scored.loc[r.run, column(r.measure)] - r.mean) for r in expected.itertuples())
    print(f"{len(files)} official Task 2 2022 runs × {len(measures)} measures ({', '.join(measures)}), "
          f"median of {repeats}:")
    medians = {}
    for name, found in times.items():
        medians[name] = (statistics.median(t[0] for t in found), statistics.median(t[1] for t in found))
        print(f"  {name:26} {medians[name][0]:6.2f} s wall  {medians[name][1]:6.2f} s CPU   "
              f"({', '.join(f'{w:.2f}' for w, _ in found)})")
    for against in ("api.experiment (files)", "api.experiment (frames)"):
        wall = medians["pt.Experiment (frames)"][0] / medians[against][0]
        cpu = medians["pt.Experiment (frames)"][1] / medians[against][1]
        print(f"  pt.Experiment / {against}: {wall:.2f}× wall, {cpu:.2f}× CPU (target ≤ 2×)")
    print(f"  largest difference of a mean from api.experiment's: {worst:.1e}")
    return 0 if worst < 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
