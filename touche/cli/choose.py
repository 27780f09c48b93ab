"""``touche choose``: five diverse, strong submissions from a sweep, as variant files and a suite."""
from __future__ import annotations

from pathlib import Path

from touche.api.experiments import choose
from touche.cli.common import add_command, decimal_number, whole_number
from touche.guard import Files

PARAMETERS = {"no_second": "second", "no_reference": "reference"}


def add_parser(sub) -> None:
    p = add_command(sub, "choose", run,
                    "touche choose out/sweeps/task1-demo --out configs/chosen")
    p.add_argument("results", help="a sweep's output directory (results.jsonl + sweep.json)")
    p.add_argument("--out", required=True, help="directory for the variant files, suite.yaml and choice.md")
    p.add_argument("--measure", help="main measure (default: the sweep's)")
    p.add_argument("--second", default="auto", help="second measure (default: the main one on the quality qrels)")
    p.add_argument("--no-second", action="store_true", help="no pick by a second measure")
    p.add_argument("--count", type=whole_number, default=5, help="how many to choose (default 5)")
    p.add_argument("--min-diff", type=whole_number,
                   help="swept parameters a pick must differ in from every other (default 2)")
    p.add_argument("--distinct", metavar="KEY", help="a swept key every pick must differ in (e.g. rerank: five "
                                                     "strategies, not five settings of one)")
    p.add_argument("--max-loss", type=decimal_number, metavar="D",
                   help="let a pick made for diversity be significantly worse than pick 1 when it loses at most D "
                        "(the measure's units; default: a point significantly worse than pick 1 is never picked for "
                        "diversity)")
    p.add_argument("--no-reference", action="store_true",
                   help="do not run the shipped suite's primary variant on the sweep's data to compare (default: "
                        "run it, with progress, and warn when the best point scores below it; a dense primary "
                        "takes minutes)")
    p.add_argument("--index-root", help="where indexes are kept (for the reference run)")
    p.add_argument("--partial", action="store_true",
                   help="choose among the finished points of an unfinished sweep (default: refuse it)")


def run(args) -> int:
    choices = choose(args.results, args.out, measure=args.measure, second=None if args.no_second else args.second,
                     count=args.count, min_diff=args.min_diff, distinct=args.distinct, max_loss=args.max_loss,
                     reference=not args.no_reference, index_root=args.index_root, partial=args.partial, progress=True)
    print((Path(args.out) / "choice.md").read_text(encoding="utf-8"))
    print(f"wrote {len(choices)} variant(s), suite.yaml and choice.md to {Path(args.out).resolve()}")
    print(f"run them: touche run-all --suite {Path(args.out) / 'suite.yaml'}")
    return 0


def files(args) -> Files:
    """The sweep's record and manifest; choose() checks the files it writes once it knows them."""
    results = Path(args.results)
    return Files.of(reads=[("sweep results", results / "results.jsonl"), ("sweep manifest", results / "sweep.json")],
                    folders=[("output folder", args.out)])
