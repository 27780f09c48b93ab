"""``touche index``: build (or reuse) the index a variant needs and print its statistics."""
from __future__ import annotations

from functools import partial
from pathlib import Path

from touche.cli.common import add_command, dataset_option, overrides, variant_options, whole_number
from touche.config import load_variant
from touche.datasets import check_corpus_format
from touche.errors import ToucheError
from touche.guard import Files
from touche.indexing.builder import ensure_index
from touche.indexing.distributed import build_sharded_on_ray
from touche.paths import default_index_root


def add_parser(sub) -> None:
    p = add_command(sub, "index", run,
                    "touche index -c configs/task1/examples/1-bm25.yaml -i demo/args.me")
    variant_options(p)
    p.add_argument("-i", "--input", help="corpus file or directory, or irds:<ir_datasets id>")
    dataset_option(p)
    p.add_argument("--index-root")  # its help: SHARED_HELP in touche/cli/__init__.py
    p.add_argument("--shards", type=whole_number, metavar="N",
                   help="build the index as N shards in parallel processes, searched as one (docs/performance.md)")
    p.add_argument("--shard", type=whole_number, metavar="K",
                   help="with --shards N: build only shard K (0-based), e.g. one per machine; a later "
                        "'touche index --shards N' assembles the N shards")
    p.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                   help="with --shards N: build the shards as Ray tasks, on the cluster at ADDRESS (auto, HOST:PORT, "
                        "ray://HOST:PORT) or, without one, on a local Ray cluster of this machine's cores; the index "
                        "root must be on a file system every node sees (docs/performance.md)")


def run(args) -> int:
    loaded = load_variant(args.config, overrides(args.set, args.skip_bad_records))
    if not args.input:
        raise ToucheError("no corpus: pass -i CORPUS or --dataset ID")
    check_corpus_format(Path(args.input), loaded.variant.corpus.format, config=loaded.path)
    if args.ray and (not args.shards or args.shards < 2 or args.shard is not None):
        raise ToucheError("--ray builds the shards of --shards N (N >= 2) as Ray tasks; it does not go with --shard K "
                          "or without --shards")
    sharded_builder = partial(build_sharded_on_ray,
                              address=None if args.ray == "local" else args.ray) if args.ray else None
    info = ensure_index(loaded.variant, args.input, args.index_root or default_index_root(),
                        base_dir=loaded.path.parent, shards=args.shards, shard=args.shard,
                        sharded_builder=sharded_builder)
    stats = info.meta["stats"]
    if args.shard is not None:  # one shard of several (docs/performance.md)
        print(f"shard {args.shard} of {args.shards}: {info.path}")
    elif info.meta.get("shards"):
        print(f"shards: {len(info.meta['shards'])} (searched as one)")
    print(f"index: {info.path}")
    print(f"documents: {stats['documents']}")
    for field, s in stats["fields"].items():
        print(f"  {field}: {s['unique_terms']} unique terms, {s['total_terms']} tokens")
    build = info.meta["build"]
    print(
        f"built in {build['seconds']} s ({build['docs_per_second']} docs/s); skipped records:"
        f" {build['skipped_records']}"
    )
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config), ("corpus", args.input)],
                    folders=[("index root", args.index_root or default_index_root())])
