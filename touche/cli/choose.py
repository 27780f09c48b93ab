"""``touche choose``: five diverse, strong submissions from a sweep, as variant files and a suite."""
from __future__ import annotations

from pathlib import Path

from touche.retrieval.experiments.choose import choose, default_second_measure, format_choices, load_results
from touche.cli.common import add_command


def add_parser(sub) -> None:
    p = add_command(sub, "choose", run, "propose five diverse submissions from a sweep's results and write their YAML files",
                    "touche choose out/sweeps/task1-demo --out configs/chosen")
    p.add_argument("results", help="a sweep's output directory (results.jsonl + sweep.json)")
    p.add_argument("--out", required=True, help="directory for the variant files, suite.yaml and choice.md")
    p.add_argument("--measure", help="main measure (default: the sweep's)")
    p.add_argument("--second", help="second measure (default: the main one on the quality qrels)")
    p.add_argument("--no-second", action="store_true", help="no pick by a second measure")
    p.add_argument("--count", type=int, default=5, help="how many to choose (default 5)")
    p.add_argument("--min-diff", type=int, help="swept parameters a pick must differ in from every other (default 2)")


def run(args) -> int:
    second = None if args.no_second else (args.second or "auto")
    choices = choose(args.results, args.out, measure=args.measure, second=second, count=args.count,
                     min_diff=args.min_diff)
    results = load_results(args.results)
    main = args.measure or results.manifest["measure"]
    shown = [m for m in (main, default_second_measure(results, main) if second == "auto" else second) if m]
    print(format_choices(results, choices, shown))
    print(f"wrote {len(choices)} variant(s), suite.yaml and choice.md to {Path(args.out).resolve()}")
    print(f"run them: touche run-all --suite {Path(args.out) / 'suite.yaml'}")
    return 0
