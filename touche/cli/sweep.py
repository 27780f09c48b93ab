"""``touche sweep``: a grid over config keys, resumable; results table, plot, p-values."""
from __future__ import annotations

from touche.api.experiments import sweep
from touche.cli.common import add_command, whole_number
from touche.guard import Files
from touche.inputs import split_named
from touche.retrieval.experiments.sweep import SweepPlan

PARAMETERS = {"input": "corpus", "quiet": "progress"}


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
    done = sweep(args.sweep, output=args.output, corpus=args.input, topics=args.topics, qrels=args.qrels,
                 index_root=args.index_root, limit=args.limit, dry_run=args.dry_run, progress=not args.quiet,
                 ray=args.ray)
    print("\n".join(done.lines() if isinstance(done, SweepPlan) else done.summary()))
    return 0


def files(args) -> Files:
    """Inputs and the folders given; run_sweep checks the sweep's own output folder once loaded."""
    return Files.of(reads=[("sweep", args.sweep), ("corpus", args.input), ("topics", args.topics)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    folders=[("output folder", args.output), ("index root", args.index_root)])
