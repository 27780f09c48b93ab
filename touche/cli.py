"""The ``touche`` command: index, run, run-all, evaluate, validate, analyze.

Exit codes: 0 success; 1 a run file failed validation; 2 bad input or config;
3 environment problem (Java, jar); 130 interrupted. Errors print one clear message naming the
file and the line or record; ``--debug`` adds the traceback.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import traceback
from pathlib import Path

from touche.errors import ToucheError

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def suite_for(args) -> Path:
    """--suite wins; otherwise the default suite of --task (configs/<task>/suite.yaml)."""
    if args.suite:
        return Path(args.suite)
    path = CONFIGS / args.task / "suite.yaml"
    if not path.is_file():
        known = sorted(p.parent.name for p in CONFIGS.glob("*/suite.yaml"))
        raise ToucheError(f"no suite for task '{args.task}' (tasks with suites: {', '.join(known)})", path=path)
    return path


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
    from retrieval.pipeline import default_index_root
    from touche.config import load_variant
    loaded = load_variant(args.config, _overrides(args.set, args.skip_bad_records))
    info = ensure_index(loaded.variant, args.input, args.index_root or default_index_root(),
                        base_dir=loaded.path.parent)
    stats = info.meta["stats"]
    print(f"index: {info.path}")
    print(f"documents: {stats['documents']}")
    for field, s in stats["fields"].items():
        print(f"  {field}: {s['unique_terms']} unique terms, {s['total_terms']} tokens")
    build = info.meta["build"]
    print(f"built in {build['seconds']} s ({build['docs_per_second']} docs/s); skipped records: {build['skipped_records']}")
    return 0


def cmd_run(args) -> int:
    from retrieval.pipeline import Session, default_index_root
    from touche.config import load_variant
    loaded = load_variant(args.config, _overrides(args.set, args.skip_bad_records))
    session = Session(Path(args.input), Path(args.topics), Path(args.index_root or default_index_root()))
    try:
        result = session.run(loaded)
        session.write(result, Path(args.output))
    finally:
        session.close()
    print(f"{args.output}: {sum(len(h) for h in result.ranking.values())} hits for {len(result.ranking)} topics "
          f"in {result.seconds:.1f} s")
    if args.qrels:
        from retrieval.evaluate import evaluate_run, format_table
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
    from retrieval.evaluate import evaluate_run, format_table
    runs = [args.run, *(args.also or [])]
    qrels = _named_qrels(args.qrels)
    measures = args.measures.split(",") if args.measures else None
    print(format_table({Path(r).name: evaluate_run(r, qrels, measures, depth=args.depth) for r in runs}))
    return 0


def cmd_validate(args) -> int:
    from retrieval.runfile import RunFormat, detect_format, validate_run
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="touche", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, func, help_text, example):
        p = sub.add_parser(name, help=help_text, description=f"{help_text}\n\nexample:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(func=func)
        return p

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
    p.add_argument("-i", "--input", required=True, help="corpus file or directory")
    p.add_argument("--index-root", help="where indexes are kept (default: $TOUCHE_INDEX_ROOT or ./indexes)")

    p = add("run", cmd_run, "run one variant and write its run file",
            "touche run -c configs/task1/1-bm25.yaml -i demo/args.me -t demo/topics.xml -o runs/bm25.txt")
    variant_options(p)
    p.add_argument("-i", "--input", required=True, help="corpus file or directory")
    p.add_argument("-t", "--topics", required=True, help="topics XML file")
    p.add_argument("-o", "--output", required=True, help="run file to write")
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH", help="evaluate against these qrels")
    p.add_argument("--index-root")

    p = add("run-all", cmd_run_all, "run a task's five variants (TIRA entry point), evaluate when qrels are known",
            "touche run-all -i $inputDataset -o $outputDir")
    p.add_argument("-i", "--input", help="TIRA input directory (corpus files + topics.xml); default: demo data")
    p.add_argument("-o", "--output", default="out", help="output directory (run.txt = primary variant)")
    variant_options(p, config_required=False)
    p.add_argument("--task", default="task1", help="task whose default suite runs (configs/TASK/suite.yaml)")
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

    p = add("validate", cmd_validate, "check run files against a Touché run format, line by line",
            "touche validate runs/bm25.txt --format q0")
    p.add_argument("runs", nargs="+")
    p.add_argument("--format", help="q0 | pairs | stance | image (default: detected)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ToucheError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
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
