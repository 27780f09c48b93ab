"""``touche sweep``: a grid over config keys, resumable; results table, plot, p-values."""
from __future__ import annotations

import math
from pathlib import Path

from touche.cli.common import add_command, whole_number
from touche.guard import Files
from touche.inputs import parse_named_qrels, split_named
from touche.retrieval.experiments.robust import criterion_named
from touche.retrieval.experiments.sweep import (
    RESULTS_FILE,
    is_finished,
    load_sweep,
    read_records,
    run_sweep,
    unfinished,
)
from touche.retrieval.experiments.sweep.axes import describe_overrides, grid_edges


def add_parser(sub) -> None:
    p = add_command(sub, "sweep", run, "touche sweep configs/sweeps/task1-demo.yaml")
    p.add_argument("sweep", help="sweep YAML (base variant, grid, qrels, measure)")
    p.add_argument("-o", "--output", help="output directory (default: the sweep's output:)")
    p.add_argument("-i", "--input", help="corpus file or directory (default: the sweep's corpus:)")
    p.add_argument("-t", "--topics", help="topics XML (default: the sweep's topics:)")
    p.add_argument("--qrels", action="append", metavar="NAME=PATH", help="qrels instead of the sweep's (repeatable)")
    p.add_argument("--index-root")
    p.add_argument("--limit", type=whole_number, help="run at most this many unfinished points now")
    p.add_argument("--dry-run", action="store_true", help="list the points (done/todo) and stop")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run the points as Ray tasks: on a local cluster, or on the one at ADDRESS (auto, HOST:PORT, "
                        "ray://HOST:PORT; output, index root and data on a shared file system)")


def run(args) -> int:
    """Run (or resume) a sweep and print where its reports are."""
    qrels = parse_named_qrels(args.qrels) if args.qrels else None
    corpus = args.input and Path(args.input)
    topics = args.topics and Path(args.topics)
    output = args.output and Path(args.output)
    if args.dry_run:
        sweep = load_sweep(args.sweep, corpus=corpus, topics=topics, qrels=qrels, output=output)
        records = read_records(sweep.output / RESULTS_FILE)
        for dev, i in sweep.jobs():
            point, key = sweep.points[i], dev.keys[i]
            state = "done" if is_finished(sweep, records, key) else "todo"
            where = f"{dev.name}: " if dev.name else ""
            print(f"{point.number:4d} {state} {key} {where}{point.describe()}")
        sets = f" on {len(sweep.sets)} sets" if sweep.several else ""
        print(f"{len(sweep.points)} points{sets}, {len(unfinished(sweep, records))} to run; output {sweep.output}")
        return 0
    outcome = run_sweep(args.sweep, corpus=corpus, topics=topics, qrels=qrels, output=output,
                        index_root=args.index_root and Path(args.index_root), progress=not args.quiet,
                        limit=args.limit, ray=args.ray)
    sweep = outcome.sweep
    runs = len(sweep.jobs())
    unit = f"runs ({len(sweep.points)} points × {len(sweep.sets)} sets)" if sweep.several else "points"
    print(f"{len(outcome.records)} of {runs} {unit} finished ({outcome.computed} run now, "
          f"{outcome.reused} found finished), {outcome.indexes} distinct index(es)")
    analysis = outcome.analysis
    if sweep.several and analysis.pick is not None:
        choice = outcome.choice
        pick = sweep.points[choice.pick]
        scores = "; ".join(f"{dev.name} {choice.means[choice.pick, s]:.4f}" for s, dev in enumerate(sweep.sets))
        print(f"pick by {criterion_named(sweep.spec.criterion).name}: point {pick.number} "
              f"({describe_overrides(pick.overrides)}): {scores}"
              + (" — within the noise of the runner-up (results.md)" if choice.lead_is_noise else ""))
    elif sweep.several and outcome.records:
        print(f"no pick: {analysis.why_no_pick}")
    elif outcome.records:
        best = outcome.best()
        assert best is not None  # there are records
        print(f"best {sweep.spec.measure} = {best.measures.get(sweep.spec.measure, math.nan):.4f}: point {best.point} "
              f"({describe_overrides(best.overrides)})")
    edges = grid_edges(sweep.axes, sweep.points[analysis.pick].coordinates) if analysis.pick is not None else []
    if edges:
        print(f"note: the best point lies on the grid's edge ({', '.join(edges)}): a better one may lie beyond; "
              "extend the grid there")
    for path in (outcome.table_md, outcome.table_csv, outcome.plot):
        if path is not None:
            print(f"wrote {path}")
    missing = runs - len(outcome.records)
    if missing:
        print(f"{missing} {'run' if sweep.several else 'point'}(s) left: rerun the same command to continue")
    return 0


def files(args) -> Files:
    """Inputs and the folders given; run_sweep checks the sweep's own output folder once loaded."""
    return Files.of(reads=[("sweep", args.sweep), ("corpus", args.input), ("topics", args.topics)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    folders=[("output folder", args.output), ("index root", args.index_root)])
