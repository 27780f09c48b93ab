"""The ``touche`` command: argument retrieval as run at Touché (``touche COMMAND --help``: options, example).

Exit codes: 0 success; 1 a run file failed validation; 2 bad input or config;
3 environment problem (Java, jar); 130 interrupted. Errors print one clear message naming the
file and the line or record; ``--debug`` adds the traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from pathlib import Path

from touche.errors import ToucheError

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def suite_for(args) -> Path:
    """--suite wins; then the task of a single variant (-c: its own task's demo data and qrels);
    otherwise the default suite of --task (configs/<task>/suite.yaml)."""
    if args.suite:
        return Path(args.suite)
    task = _config_task(getattr(args, "config", None)) or getattr(args, "task", None) or "task1"
    path = CONFIGS / task / "suite.yaml"
    if not path.is_file():
        known = sorted(p.parent.name for p in CONFIGS.glob("*/suite.yaml"))
        raise ToucheError(f"no suite for task '{task}' (tasks with suites: {', '.join(known)})", path=path)
    return path


def _config_task(config: str | None) -> str | None:
    """The task a single variant (-c) declares: its suite supplies the demo data and qrels."""
    if not config:
        return None
    from touche.config import load_variant
    return load_variant(config).variant.task


def _overrides(pairs: list[str], skip_bad_records: bool = False) -> dict[str, str]:
    out = {"corpus.skip_bad_records": "true"} if skip_bad_records else {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ToucheError(f"--set expects KEY=VALUE (e.g. retrieval.similarity.k1=1.2), got '{pair}'")
        key, value = pair.split("=", 1)
        out[key.strip()] = value
    return out


def cmd_analyze(args) -> int:
    from stemming.analyzers import tokens
    from touche.config import load_variant
    loaded = load_variant(args.config, _overrides(args.set))
    print(" ".join(f"[{t}]" for t in tokens(loaded.variant.analyzer, args.text)))
    return 0


def cmd_index(args) -> int:
    from indexing.builder import ensure_index
    from touche.datasets import default_index_root
    from touche.config import load_variant
    loaded = load_variant(args.config, _overrides(args.set, args.skip_bad_records))
    if not args.input:
        raise ToucheError("no corpus: pass -i CORPUS or --dataset ID")
    from touche.datasets import check_corpus_format
    check_corpus_format(Path(args.input), loaded.variant.corpus.format, config=loaded.path)
    info = ensure_index(loaded.variant, args.input, args.index_root or default_index_root(),
                        base_dir=loaded.path.parent, shards=getattr(args, "shards", None),
                        shard=getattr(args, "shard", None))
    stats = info.meta["stats"]
    if getattr(args, "shard", None) is not None:  # one shard of several (docs/performance.md)
        print(f"shard {args.shard} of {args.shards}: {info.path}")
    elif info.meta.get("shards"):
        print(f"shards: {len(info.meta['shards'])} (searched as one)")
    print(f"index: {info.path}")
    print(f"documents: {stats['documents']}")
    for field, s in stats["fields"].items():
        print(f"  {field}: {s['unique_terms']} unique terms, {s['total_terms']} tokens")
    build = info.meta["build"]
    print(f"built in {build['seconds']} s ({build['docs_per_second']} docs/s); skipped records: {build['skipped_records']}")
    return 0


def cmd_run(args) -> int:
    from retrieval.session import Session
    from touche.datasets import default_index_root
    from touche.config import load_variant
    loaded = load_variant(args.config, _overrides(args.set, args.skip_bad_records))
    if not (args.input and args.topics):
        raise ToucheError("no corpus or topics: pass -i CORPUS -t TOPICS or --dataset ID")
    session = Session(Path(args.input), Path(args.topics), Path(args.index_root or default_index_root()))
    try:
        result = session.run(loaded)
        session.write(result, Path(args.output))
    finally:
        session.close()
    print(f"{args.output}: {sum(len(h) for h in result.ranking.values())} hits for {len(result.ranking)} topics "
          f"in {result.seconds:.1f} s")
    if args.qrels:
        from retrieval.evaluation.measures import evaluate_run, format_table
        print(format_table({loaded.name: evaluate_run(args.output, _named_qrels(args.qrels))}))
    return 0


def _named_qrels(items: list[str]) -> dict[str, Path]:
    named = {}
    for item in items:
        name, _, path = item.rpartition("=")
        named[name or Path(path).stem] = Path(path)
    return named


def cmd_run_all(args) -> int:
    from retrieval.suite import run_suite
    return run_suite(suite_path=suite_for(args), input_dir=Path(args.input) if args.input else None,
                     output_dir=Path(args.output), only_config=Path(args.config) if args.config else None,
                     index_root=Path(args.index_root) if args.index_root else None,
                     qrels=_named_qrels(args.qrels) if args.qrels else None,
                     overrides=_overrides(args.set, args.skip_bad_records))


def cmd_evaluate(args) -> int:
    from retrieval.evaluation.measures import evaluate_run, format_table
    runs = [args.run, *(args.also or [])]
    qrels = _named_qrels(args.qrels)
    measures = args.measures.split(",") if args.measures else None
    print(format_table({Path(r).name: evaluate_run(r, qrels, measures, depth=args.depth) for r in runs}))
    return 0


def cmd_datasets(args) -> int:
    from touche.datasets import command
    return command(args)


def cmd_validate(args) -> int:
    from retrieval.formats.runfile import RunFormat, detect_format, validate_run
    status = 0
    for run in args.runs:
        fmt = RunFormat.parse(args.format) if args.format else detect_format(run)
        problems = validate_run(run, fmt)
        for p in problems:  # compiler-style "file:line: severity: message", one per line
            print(f"{run}:{p.line if p.line is not None else ''}: {p.severity.value}: {p.message}")
        errors = sum(p.is_error for p in problems)
        warnings = len(problems) - errors
        verdict = "valid" if not errors else f"{errors} error(s)"
        print(f"{run}: {verdict} as {fmt.name} run" + (f", {warnings} warning(s)" if warnings else ""))
        status = status or (1 if errors else 0)
    return status


def cmd_sweep(args) -> int:
    from retrieval.experiments.sweep import command
    return command(args)


def cmd_compare(args) -> int:
    from retrieval.experiments.report import command
    return command(args)


def cmd_choose(args) -> int:
    from retrieval.experiments.choose import command
    return command(args)


def cmd_contact_sheet(args) -> int:
    from retrieval.experiments.contact_sheet import write_contact_sheet
    from touche.config import load_variant
    spec = load_variant(args.config).variant.image if args.config else None
    path = write_contact_sheet(args.run, args.collection, args.out, topics_path=args.topics, spec=spec,
                               topics=args.topic)
    print(f"wrote {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="touche", description=__doc__.split("\n")[0],
                                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, func, help_text, example):
        p = sub.add_parser(name, help=help_text, description=f"{help_text}\n\nexample:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(func=func)
        return p

    def dataset_option(p):
        p.add_argument("--dataset", metavar="ID", help="ir_datasets id: corpus, topics and qrels from it "
                       "(e.g. argsme/2020-04-01/touche-2021-task-1; list: touche datasets)")

    def variant_options(p, config_required=True):
        p.add_argument("-c", "--config", required=config_required, help="run-variant YAML file")
        p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key (repeatable)")
        p.add_argument("--skip-bad-records", action="store_true",
                       help="skip malformed corpus records (counted and listed) instead of stopping")

    p = add("analyze", cmd_analyze, "show the tokens a variant's analyzer produces",
            'touche analyze -c configs/task1/2-krovetz-bm25.yaml "Should teachers get tenure?"')
    variant_options(p)
    p.add_argument("text")

    p = add("index", cmd_index, "build (or reuse) the index a variant needs",
            "touche index -c configs/task1/1-bm25.yaml -i demo/args.me")
    variant_options(p)
    p.add_argument("-i", "--input", help="corpus file or directory, or irds:<ir_datasets id>")
    dataset_option(p)
    p.add_argument("--index-root", help="where indexes are kept (default: $TOUCHE_INDEX_ROOT or ./indexes)")
    p.add_argument("--shards", type=int, metavar="N",
                   help="build the index as N shards in parallel processes, searched as one (docs/performance.md)")
    p.add_argument("--shard", type=int, metavar="K",
                   help="with --shards N: build only shard K (0-based), e.g. one per machine; a later "
                        "'touche index --shards N' assembles the N shards")

    p = add("run", cmd_run, "run one variant and write its run file",
            "touche run -c configs/task1/1-bm25.yaml -i demo/args.me -t demo/topics.xml -o runs/bm25.txt")
    variant_options(p)
    p.add_argument("-i", "--input", help="corpus file or directory, or irds:<ir_datasets id>")
    p.add_argument("-t", "--topics", help="topics XML file, or irds:<ir_datasets id>")
    p.add_argument("-o", "--output", required=True, help="run file to write")
    dataset_option(p)
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH", help="evaluate against these qrels")
    p.add_argument("--index-root")

    p = add("run-all", cmd_run_all, "run a task's five variants (TIRA entry point), evaluate when qrels are known",
            "touche run-all -i $inputDataset -o $outputDir")
    p.add_argument("-i", "--input", help="TIRA input directory (corpus files + topics.xml), or irds:<ir_datasets id>; "
                                         "default: demo data")
    dataset_option(p)
    p.add_argument("-o", "--output", default="out", help="output directory (run.txt = primary variant)")
    variant_options(p, config_required=False)
    p.add_argument("--task", help="task whose default suite runs (configs/TASK/suite.yaml; default: the "
                                  "dataset's task, else task1)")
    p.add_argument("--suite", help="suite YAML naming the five variants and the primary (overrides --task)")
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH", help="qrels for the evaluation table")
    p.add_argument("--index-root")

    p = add("evaluate", cmd_evaluate, "score a run as Touché does (nDCG@5, unjudged dropped) and trec_eval-style",
            "touche evaluate out/run.txt relevance=demo/qrels-relevance.txt quality=demo/qrels-quality.txt")
    p.add_argument("run", help="run file")
    p.add_argument("qrels", nargs="+", metavar="[NAME=]QRELS", help="qrels files (relevance, quality, stance, image)")
    p.add_argument("--also", action="append", metavar="RUN", help="more runs to compare in the same table")
    p.add_argument("--measures", help="comma-separated, e.g. touche.nDCG@5,trec.P@10 (default: all that apply)")
    p.add_argument("--depth", type=int, default=5, help="cut-off k of the default nDCG@k (default 5)")

    p = add("datasets", cmd_datasets, "list the ir_datasets ids the toolkit reads, and where each file is cached",
            "touche datasets argsme/2020-04-01/touche-2021-task-1")
    p.add_argument("id", nargs="?", help="show this dataset's files: present, or where to place them offline "
                                         "(exit 1 when some are missing)")
    p.add_argument("--fetch", action="store_true", help="fetch every file now (downloads on a machine with internet)")

    p = add("contact-sheet", cmd_contact_sheet, "an HTML page of an image run: per topic and stance the 10 images, "
            "their scores and the text that earned them",
            "touche contact-sheet out/run.txt demo/images out/run.html --topics demo/images/topics.xml")
    p.add_argument("run", help="image run file (topic PRO|CON imageid rank score tag)")
    p.add_argument("collection", help="the image collection (a directory holding images/ or I??/ folders)")
    p.add_argument("out", help="HTML file to write")
    p.add_argument("--topics", help="topics XML (default: <collection>/topics.xml if present)")
    p.add_argument("-c", "--config", help="variant YAML whose image: settings explain the evidence")
    p.add_argument("--topic", action="append", help="show only this topic (repeatable)")

    p = add("validate", cmd_validate, "check run files against a Touché run format, line by line",
            "touche validate runs/bm25.txt --format q0")
    p.add_argument("runs", nargs="+")
    p.add_argument("--format", help="q0 | pairs | stance | image (default: detected)")

    p = add("sweep", cmd_sweep, "run a parameter sweep (grid over config keys), resumable; writes results.csv, "
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

    p = add("compare", cmd_compare, "compare two runs topic by topic: wins/losses, paired t-test, randomization test",
            "touche compare out/1-bm25.txt out/3-krovetz-lmdirichlet.txt demo/qrels-relevance.txt --plot cmp.png")
    p.add_argument("run_a", help="run A (the baseline)")
    p.add_argument("run_b", help="run B (compared with A: differences are B - A)")
    p.add_argument("qrels", help="graded qrels file (relevance or quality)")
    p.add_argument("--measure", default="touche.nDCG@5", help="touche.nDCG@k, touche2021.nDCG@k or trec.<measure>")
    p.add_argument("-o", "--output", help="also write the Markdown report here")
    p.add_argument("--plot", help="write a PNG bar chart of the per-topic differences")
    p.add_argument("--resamples", type=int, default=10000, help="randomization test resamples (default 10000)")
    p.add_argument("--seed", type=int, default=20220401, help="randomization test seed (fixed: same p every time)")

    p = add("choose", cmd_choose, "propose five diverse submissions from a sweep's results and write their YAML files",
            "touche choose out/sweeps/task1-demo --out configs/chosen")
    p.add_argument("results", help="a sweep's output directory (results.jsonl + sweep.json)")
    p.add_argument("--out", required=True, help="directory for the variant files, suite.yaml and choice.md")
    p.add_argument("--measure", help="main measure (default: the sweep's)")
    p.add_argument("--second", help="second measure (default: the main one on the quality qrels)")
    p.add_argument("--no-second", action="store_true", help="no pick by a second measure")
    p.add_argument("--count", type=int, default=5, help="how many to choose (default 5)")
    p.add_argument("--min-diff", type=int, help="swept parameters a pick must differ in from every other (default 2)")
    # Options several commands share get their help text here, once.
    for command_parser in sub.choices.values():
        for action in command_parser._actions:
            if action.help is None and action.dest in SHARED_HELP:
                action.help = SHARED_HELP[action.dest]
    return parser


EXIT_CODES = """exit codes:
  0    success
  1    a run file failed validation (validate), or some dataset files are missing (datasets ID)
  2    bad input or config: the message names the file and the line or record
  3    environment problem (Java, the Lucene jar, a missing tool)
  4    internal error (a bug: the traceback is printed)
  130  interrupted (nothing half-written is left in place)"""

SHARED_HELP = {
    "index_root": "where indexes are kept (default: $TOUCHE_INDEX_ROOT or ./indexes)",
    "text": "text to analyze (quote it)",
    "runs": "run files",
}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from touche.datasets import apply_to_cli
        apply_to_cli(args)  # --dataset and irds:<id> inputs become paths (touche/datasets.py)
        return args.func(args)
    except ToucheError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # output piped into head and the like: not an error
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as exc:  # disk full, permission denied … while reading or writing a file
        if args.debug:
            traceback.print_exc()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: nothing half-written was left in place (runs and indexes are moved in only when "
              "complete); rerun the same command to continue", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: say so, with the traceback to report
        traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc}\nplease report this with the traceback above",
              file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
