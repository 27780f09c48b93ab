"""``touche evaluate``: Touché's nDCG@5 (unjudged dropped) and trec_eval-style measures, of one run
or several, as means (with the topics each is taken over) or per topic (``trec_eval -q``)."""
from __future__ import annotations

import glob
import sys
from pathlib import Path

from touche import sources
from touche.atomic import is_stdout, write_text
from touche.cli.common import add_command, note, selection_of, topic_options, whole_number
from touche.errors import InputError
from touche.guard import Files
from touche.indexing.corpora import held_documents, open_corpus
from touche.inputs import distinct_labels, expand_qrels, parse_named_qrels, split_named
from touche.retrieval.evaluation.registry import split_measures
from touche.retrieval.evaluation.report import score_report
from touche.retrieval.formats.gate import load_run
from touche.retrieval.tasks import corpus_format_of

GLOB = set("*?[")
QRELS_COLUMNS = 4  # qid 0 docid label (a BEIR qrels file has three)


def add_parser(sub) -> None:
    p = add_command(sub, "evaluate", run,
                    "touche evaluate out/*.txt relevance=demo/qrels-relevance.txt quality=demo/qrels-quality.txt "
                    "--per-topic --topics-except 51,55")
    p.add_argument("inputs", nargs="+", metavar="RUN... [NAME=]QRELS...",
                   help="run files (or a quoted glob, 'out/*.txt'), then qrels files (relevance, quality, stance, "
                        "image); a file is a run when its first line has more than four columns")
    p.add_argument("--also", action="append", metavar="RUN", help="one more run (as a RUN before the qrels)")
    p.add_argument("--measures", help="comma-separated, e.g. touche.nDCG@5,nDCG@5,P@10 (default: all that apply). "
                                      "touche.nDCG@k is the Touché 2022 evaluator's (cut by rank, unjudged dropped); "
                                      "touche2021.nDCG@k orders by score as the 2021 leaderboard did; a name "
                                      "without prefix is ir_measures' (unjudged count as 0), as trec.<name>")
    p.add_argument("--depth", type=whole_number, default=5, help="cut-off k of the default nDCG@k (default 5)")
    p.add_argument("--per-topic", action="store_true",
                   help="a row per topic and run, then the means (as trec_eval -q), in the Markdown and LaTeX tables")
    p.add_argument("--csv", metavar="FILE", help="also write every value, per topic and the means (query_id all), as "
                                                 "tidy CSV: run,query_id,measure,value,topics (- : standard output)")
    p.add_argument("--latex", metavar="FILE", help="also write the table as LaTeX (booktabs; readable headers, see "
                                                   "--header; - : standard output)")
    p.add_argument("--json", metavar="FILE", help="also write the whole report (every mean, count and per-topic "
                                                  "value) as JSON, the model touche.api.read_report reads back "
                                                  "(- : standard output)")
    p.add_argument("--header", action="append", metavar="MEASURE=TEXT",
                   help="the LaTeX table's header of a measure (repeatable), e.g. "
                        "'relevance:touche.nDCG@5=nDCG@5 (rel.)'; default: the measure without touche. and with its "
                        "qrels in brackets")
    p.add_argument("--corpus", metavar="PATH", help="the collection the scores are meant for (a sample): a run "
                                                    "holding documents it lacks was retrieved from another one, and "
                                                    "is said to be")
    p.add_argument("--restrict", action="store_true",
                   help="with --corpus: score every run on that collection's documents only (the others dropped, "
                        "the rest ranked again), as an official run is compared with runs on a sample")
    topic_options(p)


def runs_and_qrels(args) -> tuple[list[str], list[str]]:
    """The positional files told apart: a NAME=PATH or an irds: id is qrels; a file whose first
    line has more than four columns a run (a damaged run is still read as one, and its reader says
    what is wrong), anything else qrels; a pattern that names no file is expanded."""
    if getattr(args, "_split", None) is not None:
        return args._split
    kinds: list[tuple[str, str | None]] = []  # (item, "run" | "qrels" | None: no such file)
    for item in args.inputs:
        name, path = split_named(item)
        if name or path.startswith("irds:"):
            kinds.append((item, "qrels"))
            continue
        matches = sorted(glob.glob(path)) if GLOB & set(path) and not Path(path).exists() else [path]
        if not matches:
            raise InputError(f"no file matches {path!r}")
        for match in matches:
            kind = None if not (sources.exists(match) or Path(match).is_dir()) else \
                "run" if _columns(match) > QRELS_COLUMNS else "qrels"
            kinds.append((match, kind))
    for place, (item, kind) in enumerate(kinds):
        if kind is None:  # runs come first: a missing file before qrels was meant as a run, after runs as qrels
            later, earlier = {k for _, k in kinds[place + 1:]}, {k for _, k in kinds[:place]}
            what = "run file" if "qrels" in later else "qrels file" if "run" in earlier else "run or qrels file"
            raise InputError(f"{what} not found (the runs come first, then the qrels)", path=item)
    runs = [item for item, kind in kinds if kind == "run"] + (args.also or [])
    qrels = [item for item, kind in kinds if kind == "qrels"]
    qrels = expand_qrels(qrels)  # irds:<id> → the dataset's qrels files
    if not runs:
        raise InputError("no run among the files given (a run's lines have six columns: qid Q0 docid rank score "
                         "tag; a file with four or fewer is read as qrels); give the runs first, then the qrels")
    if not qrels:
        raise InputError("no qrels among the files given (their lines have four columns: qid 0 docid label); give "
                         "them after the runs")
    args._split = (runs, qrels)
    return args._split


def _columns(path: str) -> int:
    """The fields of a file's first non-blank line (0 for a folder or an unreadable file: then the
    qrels reader says what is wrong with it)."""
    try:
        with sources.open_text(path, errors="replace") as handle:  # a pipe: read once, kept for its reader
            for line in handle:
                if line.strip():
                    return len(line.split())
    except OSError:
        return 0
    return 0


def run(args) -> int:
    runs, qrels_items = runs_and_qrels(args)
    qrels = parse_named_qrels(qrels_items)
    measures = split_measures(args.measures) if args.measures else None
    selection = selection_of(args)
    labels = distinct_labels(runs, what="run file")  # c1/run.txt and st2/run.txt stay two rows
    if args.restrict and not args.corpus:
        raise InputError("--restrict needs --corpus (the collection the runs are restricted to)")
    tables = [load_run(r) for r in runs]
    if args.corpus:
        tables = _on_corpus(Path(args.corpus), labels, tables, args.restrict)
    shown = [label + (" (restricted)" if args.restrict else "") for label in labels]
    report = score_report(dict(zip(shown, tables)), qrels, measures, depth=args.depth, selection=selection,
                          headers=args.header, names=dict(zip(shown, map(str, runs))))
    exports = {fmt: path for fmt in ("csv", "latex", "json") if (path := getattr(args, fmt))}
    if not any(is_stdout(path) for path in exports.values()):
        print(report.markdown(per_topic=args.per_topic))
    for fmt, path in exports.items():
        write_text(path, report.render(fmt, per_topic=args.per_topic))
        note(args, f"wrote {path} ({fmt})", about=path)
    if selection is not None:
        print(f"note: scored on {selection.describe()}", file=sys.stderr)
    for result in report.runs:
        label = result.name
        if any(name.endswith("stance.N") and value == 0 for name, value in result.means.items()):
            print(f"note: {label} labels no stance on any judged row (each says Q0 or misses the judgements), so "
                  "its stance measures are – and 0. PyTerrier's pt.io.write_results writes Q0 where a frame's "
                  "stance was: write such a file with touche.pyterrier.write_run.", file=sys.stderr)
    return 0


def _on_corpus(corpus: Path, labels: list[str], tables: list, restrict: bool) -> list:
    """Each run checked against the collection (and restricted to it): a score on a sample beside
    one on the full corpus compares two collections, not two systems."""
    family = corpus_format_of(tables[0].format, corpus)
    held = held_documents(open_corpus(family, corpus), set().union(*(set(t.frame["docid"]) for t in tables)))
    out = []
    for label, table in zip(labels, tables):
        docs = set(table.frame["docid"])
        outside = docs - held
        if outside and not restrict:
            print(f"caution: {label} holds {len(outside):,} of its {len(docs):,} documents that {corpus} lacks: it "
                  "was retrieved from another collection, and its scores are not comparable with runs on this one "
                  "(--restrict scores every run on its documents only)", file=sys.stderr)
        out.append(table.keeping(held) if restrict else table)
    return out


def files(args) -> Files:
    runs, qrels = runs_and_qrels(args)
    return Files.of(reads=[("run", r) for r in runs] + [("qrels", split_named(q)[1]) for q in qrels]
                    + [("corpus", args.corpus)],
                    writes=[("CSV report", args.csv), ("LaTeX report", args.latex), ("JSON report", args.json)])
