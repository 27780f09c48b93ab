"""``touche analyze``: the tokens a variant's analyzer produces."""
from __future__ import annotations

from touche.cli.common import add_command, overrides, variant_options
from touche.config import load_variant
from touche.guard import Files
from touche.stemming.analyzers import tokens


def add_parser(sub) -> None:
    p = add_command(sub, "analyze", run,
                    'touche analyze -c configs/task1/examples/2-krovetz-bm25.yaml "Should teachers get tenure?"')
    variant_options(p)
    p.add_argument("text")


def run(args) -> int:
    loaded = load_variant(args.config, overrides(args.set))
    # a relative stoplist resolves against the variant's folder, as in every run
    print(" ".join(f"[{t}]" for t in tokens(loaded.variant.analyzer, args.text, base_dir=loaded.path.parent)))
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config)])
