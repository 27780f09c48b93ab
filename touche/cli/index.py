"""``touche index``: build (or reuse) the index a variant needs and print its statistics."""
from __future__ import annotations

from touche.api.variants import index
from touche.cli.common import add_command, dataset_option, variant_options, whole_number
from touche.guard import Files
from touche.paths import default_index_root

PARAMETERS = {"config": "of", "input": "corpus", "set": "overrides"}


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
    info = index(args.config, args.input, overrides=args.set, skip_bad_records=args.skip_bad_records,
                 dataset=args.dataset, index_root=args.index_root, shards=args.shards, shard=args.shard, ray=args.ray,
                 progress=True)
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
