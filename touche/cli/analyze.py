"""``touche analyze``: the tokens a variant's analyzer produces."""
from __future__ import annotations

from touche.api.variants import analyze
from touche.cli.common import add_command, variant_options
from touche.guard import Files

PARAMETERS = {"set": "overrides"}  # an option whose API parameter has another name


def add_parser(sub) -> None:
    p = add_command(sub, "analyze", run,
                    'touche analyze -c configs/task1/examples/2-krovetz-bm25.yaml "Should teachers get tenure?"')
    variant_options(p)
    p.add_argument("text")


def run(args) -> int:
    found = analyze(args.config, args.text, overrides=args.set, skip_bad_records=args.skip_bad_records)
    print(" ".join(f"[{t}]" for t in found))
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config)])
