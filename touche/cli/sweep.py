"""``touche sweep``: a grid over config keys, resumable; results table, plot, p-values."""
from __future__ import annotations

import math
from pathlib import Path

from touche.retrieval.experiments.report import describe_overrides
from touche.retrieval.experiments.sweep import RESULTS_FILE, is_finished, load_sweep, read_records, run_sweep, unfinished
from touche.cli.common import add_command
from touche.inputs import parse_named_qrels


def add_parser(sub) -> None:
    p = add_command(sub, "sweep", run, "run a parameter sweep (grid over config keys), resumable; writes results.csv, "
                    "results.md and sweep.png", "touche sweep configs/sweeps/task1-demo.yaml")
    p.add_argument("sweep", help="sweep YAML (base variant, grid, qrels, measure)")
    p.add_argument("-o", "--output", help="output directory (default: the sweep's output:)")
    p.add_argument("-i", "--input", help="corpus file or directory (default: the sweep's corpus:)")
    p.add_argument("-t", "--topics", help="topics XML (default: the sweep's topics:)")
    p.add_argument("--qrels", action="append", metavar="NAME=PATH", help="qrels instead of the sweep's (repeatable)")
    p.add_argument("--index-root")
    p.add_argument("--limit", type=int, help="run at most this many unfinished points now")
    p.add_argument("--dry-run", action="store_true", help="list the points (done/todo) and stop")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args) -> int:
    """Run (or resume) a sweep and print where its reports are."""
    qrels = parse_named_qrels(args.qrels) if args.qrels else None
    corpus = args.input and Path(args.input)
    topics = args.topics and Path(args.topics)
    output = args.output and Path(args.output)
    if args.dry_run:
        sweep = load_sweep(args.sweep, corpus=corpus, topics=topics, qrels=qrels, output=output)
        records = read_records(sweep.output / RESULTS_FILE)
        for point, key in zip(sweep.points, sweep.keys):
            state = "done" if is_finished(sweep, records, key) else "todo"
            print(f"{point.number:4d} {state} {key} {point.describe()}")
        print(f"{len(sweep.points)} points, {len(unfinished(sweep, records))} to run; output {sweep.output}")
        return 0
    outcome = run_sweep(args.sweep, corpus=corpus, topics=topics, qrels=qrels, output=output,
                        index_root=args.index_root and Path(args.index_root), progress=not args.quiet,
                        limit=args.limit)
    sweep = outcome.sweep
    print(f"{len(outcome.records)} of {len(sweep.points)} points finished ({outcome.computed} run now, "
          f"{outcome.reused} found finished), {outcome.indexes} distinct index(es)")
    if outcome.records:
        best = outcome.best()
        print(f"best {sweep.spec.measure} = {best.measures.get(sweep.spec.measure, math.nan):.4f}: point {best.point} "
              f"({describe_overrides(best.overrides)})")
    for path in (outcome.table_md, outcome.table_csv, outcome.plot):
        if path is not None:
            print(f"wrote {path}")
    missing = len(sweep.points) - len(outcome.records)
    if missing:
        print(f"{missing} point(s) left: rerun the same command to continue")
    return 0
