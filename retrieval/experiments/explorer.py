"""The run explorer: several runs of one task, their judgements and texts, as one HTML file.

``touche explore RUN... --qrels Q [-i CORPUS] [-t TOPICS] -o explore.html`` (and ``run-all``
beside ``evaluation.md`` when qrels are known) writes a page that answers what the mean tables
cannot: which topics a variant lost against the baseline, and which documents did it.

* **Overview** (plain HTML, readable with JavaScript off): runs × measures with their 95 %
  topic-bootstrap intervals, the difference to the baseline, the paired randomization p and that
  p corrected for the runs tested (``retrieval/evaluation/experiment.py``); a chart per run of
  the per-topic differences to the baseline, sorted, each bar a link to its topic; the table of
  every topic's values.
* **Topic view** (rendered from the embedded JSON, one topic at a time, so 1,000 topics stay
  light): the top k of every run side by side, each document with its labels (relevance,
  quality, stance; *unjudged* marked, which Touché's condensed nDCG drops), its rank in the
  other runs, its length and a snippet with the topic's terms marked; what entered and left the
  top 5 against the baseline. Task 2 2022: the predicted stance beside the judged one; sentence
  pairs: both sentences; images: the thumbnails. Keys: → / j next topic, ← / k previous, b the
  next run as baseline.

The file is self-contained: styles, script, data and thumbnails are inline; it requests nothing.
It is written atomically; bad input (runs of two tasks, runs without a common topic, qrels that
do not fit the runs, an output path that is a folder) is a located error before anything is
written. A document absent from the corpus is shown as absent.
"""
from __future__ import annotations

import html
import json
import logging
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from touche.indexing.corpora import open_corpus
from touche.indexing.records import Argument
from touche.retrieval.evaluation.experiment import experiment, score_runs
from touche.retrieval.evaluation.registry import leaderboard_measures, ranking_measure
from touche.retrieval.evaluation.measures import (cached_qrels, canonical_topic, canonical_topics, named_qrels,
                                                  valid_rows)
from touche.retrieval.evaluation.significance import TIE_TOLERANCE
from touche.retrieval.experiments.contact_sheet import _Images, highlight, snippet, thumbnail
from touche.retrieval.formats.qrels import QrelsKind
from touche.retrieval.formats.runfile import RunFormat, RunRow, detect_format, natural_key
from touche.retrieval.formats.topics import Topic, read_topics
from touche.retrieval.tasks.image import topic_terms
from touche.atomic import check_not_an_input, check_writable, write_text
from touche.errors import InputError, ToucheError
from touche.inputs import detect_task, distinct_labels

log = logging.getLogger(__name__)

__all__ = ["write_explorer", "explorer_data", "render_explorer", "CORPUS_FORMAT_OF_TASK"]

DEFAULT_TOP = 10
SNIPPET_CHARS = 320
EXPLORER_FILE = "explore.html"
# Which corpus family a run format reads, when the corpus does not say (a Q0 run: args.me or ClueWeb12).
CORPUS_FORMAT_OF_TASK = {"task1": "argsme", "task1-pairs": "argsme-sentences", "task2": "clueweb12",
                         "task2-stance": "passages", "image": "images"}
_KIND_FITS = {QrelsKind.GRADED: (RunFormat.Q0, RunFormat.PAIRS, RunFormat.STANCE),
              QrelsKind.STANCE: (RunFormat.STANCE,), QrelsKind.IMAGE: (RunFormat.IMAGE,)}


# --------------------------------------------------------------------------- documents
@dataclass(frozen=True)
class Document:
    text: str  # what the snippet is cut from (a pair: both sentences, one per line)
    words: int
    thumbnail: str | None = None  # an image's data: URI


@dataclass
class Documents:
    """The texts of the documents the page shows, read once from the corpus (only those)."""
    found: dict[str, Document] = field(default_factory=dict)
    corpus: str | None = None  # what was read, for the page's header

    def get(self, docid: str) -> Document | None:
        return self.found.get(docid)


def _words(text: str) -> int:
    return len(text.split())


def read_documents(corpus: Path, corpus_format: str, docids: set[str], *, progress: bool = False) -> Documents:
    """The documents of ``docids`` (pairs ``s1,s2`` as their two sentences) from the corpus, by
    one streaming pass that stops once every wanted id is found; images are read from their folders."""
    out = Documents(corpus=str(corpus))
    if corpus_format == "images":
        images = _Images(corpus)
        for docid in tqdm(sorted(docids), desc="images", unit=" image", disable=not progress):
            features = images.get(docid)
            if features is None:
                continue
            texts = features.texts
            text = " · ".join(t for t in (texts.get("page_title", ""), texts.get("alt_text", ""),
                                          texts.get("near_text", "")) if t.strip())
            found = thumbnail(images.files[docid])
            out.found[docid] = Document(text, _words(text), found[0] if found else None)
        return out
    pairs = {d: d.split(",") for d in docids if "," in d} if corpus_format == "argsme-sentences" else {}
    wanted = {s for parts in pairs.values() for s in parts} | (docids - set(pairs))
    field_name = "sentence" if corpus_format == "argsme-sentences" else "contents"
    texts: dict[str, str] = {}
    source = open_corpus(corpus_format, corpus)
    with tqdm(desc=f"reading {Path(corpus).name} for the shown documents", unit=" docs", disable=not progress,
              mininterval=1.0) as bar:
        for docid, values, raw in source.documents([field_name]):
            bar.update(1)
            if docid in wanted:
                texts[docid] = _display_text(corpus_format, values[0], raw)
                if len(texts) == len(wanted):
                    break
    for docid, text in texts.items():
        if docid in docids:
            out.found[docid] = Document(text, _words(text))
    for pair, (first, *rest) in pairs.items():
        parts = [texts.get(s) for s in (first, *rest)]
        if all(p is not None for p in parts):
            joined = "\n".join(parts)  # type: ignore[arg-type]
            out.found[pair] = Document(joined, _words(joined))
    return out


def _display_text(corpus_format: str, contents: str, raw: str) -> str:
    if corpus_format == "argsme":
        argument = Argument.from_json(raw)
        return f"{argument.conclusion}\n{argument.premises_text}"
    return contents


# --------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class LoadedRuns:
    runs: dict[str, list[RunRow]]  # name → rows (topic ids canonical)
    format: RunFormat
    paths: dict[str, Path]


def load_runs(paths: Sequence[str | os.PathLike], names: Sequence[str] | None = None) -> LoadedRuns:
    """Validated runs of one format under distinct names, with at least one topic in common."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ToucheError("give at least one run file")
    labels = list(names) if names else distinct_labels(paths, label=lambda p: p.stem, what="run file")
    formats: dict[Path, RunFormat] = {}
    runs: dict[str, list[RunRow]] = {}
    for label, path in zip(labels, paths):
        if not path.is_file():
            raise InputError("run file not found", path=path)
        fmt = detect_format(path)
        first = next(iter(formats.items()), None)
        if first is not None and fmt is not first[1]:
            raise InputError(f"this run is a {fmt.name} run, {first[0]} a {first[1].name} run: runs of different "
                             "tasks cannot be compared on one page", path=path)
        formats[path] = fmt
        runs[label] = canonical_topics(valid_rows(path, fmt))
    topic_sets = {label: {r.qid for r in rows} for label, rows in runs.items()}
    first_label = labels[0]
    for label in labels[1:]:
        if not topic_sets[label] & topic_sets[first_label]:
            raise InputError(f"this run and {paths[0]} have no topic in common (this one: "
                             f"{_sample(topic_sets[label])}; that one: {_sample(topic_sets[first_label])}): "
                             "are they for the same topics?", path=paths[labels.index(label)])
    return LoadedRuns(runs, formats[paths[0]], dict(zip(labels, paths)))


def _sample(ids: set[str]) -> str:
    shown = sorted(ids, key=natural_key)
    return ", ".join(shown[:5]) + (f", … ({len(shown)})" if len(shown) > 5 else "")


def check_qrels(qrels: Mapping[str, Path], fmt: RunFormat, runs: Mapping[str, list[RunRow]]) -> dict[str, QrelsKind]:
    """Each qrels file of a kind that fits the runs, and judging at least one of their topics."""
    kinds = {}
    topics = {r.qid for rows in runs.values() for r in rows}
    for name, path in qrels.items():
        judged = cached_qrels(path)
        if fmt not in _KIND_FITS[judged.kind]:
            raise InputError(f"these are {judged.kind.value} qrels, which do not judge {fmt.name} runs (qrels of "
                             "another task?)", path=path)
        if not {canonical_topic(q) for q in judged.topics()} & topics:
            raise InputError(f"these qrels judge none of the runs' topics (qrels: {_sample(set(judged.topics()))}; "
                             f"runs: {_sample(topics)}): qrels of another year or task?", path=path)
        kinds[name] = judged.kind
    return kinds


def default_measures(kinds: Mapping[str, QrelsKind]) -> list[str]:
    return leaderboard_measures(kinds.values())


# --------------------------------------------------------------------------- the page's data
def explorer_data(loaded: LoadedRuns, qrels: Mapping[str, Path], *, topics: Mapping[str, Topic] | None = None,
                  documents: Documents | None = None, baseline: str | None = None, top: int = DEFAULT_TOP,
                  measures: Sequence[str] | None = None, title: str = "Run explorer") -> dict:
    """Everything the page shows, as JSON-ready data (see ``render_explorer``)."""
    if top < 1:
        raise ToucheError(f"--top must be at least 1, got {top}")
    names = list(loaded.runs)
    base = baseline if baseline is not None else names[0]
    if base not in loaded.runs:
        raise ToucheError(f"baseline {base!r} is not one of the runs ({', '.join(names)})")
    kinds = check_qrels(qrels, loaded.format, loaded.runs)
    measures = list(measures) if measures else default_measures(kinds)
    scores = score_runs(loaded.runs, dict(qrels), measures)
    table = experiment(loaded.runs, dict(qrels), measures, baseline=base, scores=scores)
    main = ranking_measure(list(table["measure"]))
    labelled_measures = list(table["measure"].unique())  # the measures as labelled per qrels (relevance:touche.nDCG@5 …)
    per_topic = scores[1]
    judgments = {name: {canonical_topic(q): v for q, v in cached_qrels(path).judgments.items()}
                 for name, path in qrels.items()}
    topics = topics or {}
    by_run_topic: dict[str, dict[str, list[RunRow]]] = {}
    for name, rows in loaded.runs.items():
        grouped: dict[str, list[RunRow]] = {}
        for row in rows:
            grouped.setdefault(row.qid, []).append(row)
        by_run_topic[name] = grouped
    topic_ids = sorted({q for grouped in by_run_topic.values() for q in grouped}, key=natural_key)
    topic_records = []
    thumbnails: dict[str, str] = {}
    for qid in topic_ids:
        topic = topics.get(qid)
        terms = topic_terms(topic.title) if topic else frozenset()
        hits: dict[str, list] = {}
        shown: dict[str, dict] = {}
        rank_in: dict[str, dict[str, int]] = {}
        for name in names:
            ranked = by_run_topic[name].get(qid, [])
            rank_in[name] = {}
            for row in sorted(ranked, key=lambda r: r.rank):
                rank_in[name].setdefault(row.docid, row.rank)
            hits[name] = [[r.docid, r.rank, round(r.score, 6), r.column2] for r in _top_rows(ranked, top, loaded.format)]
            for docid, *_ in hits[name]:
                shown.setdefault(docid, {})
        for docid, record in shown.items():
            record["labels"] = {q: _label(judgments[q].get(qid, {}), docid) for q in qrels}
            doc = documents.get(docid) if documents is not None else None
            if documents is None:
                record["absent"] = None  # no corpus given: nothing to say
            elif doc is None:
                record["absent"] = True
            else:
                record["words"] = doc.words
                record["snippet"] = highlight(snippet(doc.text, terms, SNIPPET_CHARS), terms, frozenset(), frozenset())
                if doc.thumbnail:
                    thumbnails[docid] = doc.thumbnail
            record["ranks"] = {name: rank_in[name].get(docid) for name in names}
        values = {name: {m: _number(per_topic[name].get(m, {}).get(qid)) for m in labelled_measures}
                  for name in names}
        entry = {"id": qid, "title": topic.title if topic else "", "description": topic.description if topic else "",
                 "objects": list(topic.objects) if topic else [], "values": values, "hits": hits, "docs": shown,
                 "judged": {q: len(judgments[q].get(qid, {})) for q in qrels}}
        topic_records.append(entry)
    overview = [{k: _json_value(v) for k, v in row.items()} for row in table.to_dict(orient="records")]
    return {"title": title, "format": loaded.format.name, "runs": names, "baseline": base, "main": main,
            "measures": labelled_measures, "qrels": {n: k.value for n, k in kinds.items()},
            "files": {n: str(p) for n, p in loaded.paths.items()}, "corpus": documents.corpus if documents else None,
            "top": top, "overview": overview, "topics": topic_records, "thumbnails": thumbnails,
            "created": time.strftime("%Y-%m-%d %H:%M")}


def _label(judged: Mapping, docid: str):
    value = judged.get(docid)
    if value is None:
        return None
    if isinstance(value, Mapping):  # image qrels: aspect → 0/1
        return {k: int(v) for k, v in value.items()}
    return value if isinstance(value, str) else int(value)


def _number(value) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def _json_value(value):
    if value is None:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if hasattr(value, "item"):  # numpy / pandas scalars
        return _json_value(value.item())
    if value is pd.NA:
        return None
    return value


# --------------------------------------------------------------------------- the page
def _fmt(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _p(value) -> str:
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _signed(value: float) -> str:
    text = f"{value:+.3f}"
    return "±0.000" if text in ("+0.000", "-0.000") else text


def _overview_table(data: dict) -> str:
    """Runs × measures: the mean with its interval, and under it the difference to the baseline."""
    rows = data["overview"]
    head = "".join(f"<th>{html.escape(m)}</th>" for m in data["measures"])
    lines = []
    for number, name in enumerate(data["runs"], 1):
        cells = []
        for m in data["measures"]:
            row = next((r for r in rows if r["run"] == name and r["measure"] == m), None)
            if row is None or row["mean"] is None:
                cells.append('<td class="num">–</td>')
                continue
            ci = (f' <span class="ci">[{_fmt(row["ci_low"])}, {_fmt(row["ci_high"])}]</span>'
                  if row["ci_low"] is not None else "")
            line = f'<b>{_fmt(row["mean"])}</b>{ci}'
            if name == data["baseline"]:
                versus = '<span class="base">baseline</span>'
            elif row["delta"] is None:
                versus = ""
            else:
                mark = '<span class="sig" title="significant after correction">*</span>' if row["significant"] else ""
                css = "up" if row["delta"] > TIE_TOLERANCE else "down" if row["delta"] < -TIE_TOLERANCE else ""
                versus = (f'<span class="{css}">Δ {_signed(row["delta"])}</span>{mark} '
                          f'<span class="n">p {_p(row["p"])}, corr. {_p(row["p_corrected"])}; '
                          f'{row["wins"]}+ {row["losses"]}− of {row["topics"] or 0}</span>')
            cells.append(f'<td class="num">{line}<br>{versus}</td>')
        lines.append(f'<tr><th class="run">[{number}] {html.escape(name)}</th>{"".join(cells)}</tr>')
    return (f'<table class="overview"><thead><tr><th>run</th>{head}</tr></thead>'
            f'<tbody>{"".join(lines)}</tbody></table>')


def _delta_chart(data: dict, name: str) -> str:
    """Bars of run − baseline per topic on the main measure, sorted; each a link to its topic."""
    main, base = data["main"], data["baseline"]
    deltas = []
    for topic in data["topics"]:
        a, b = topic["values"][base].get(main), topic["values"][name].get(main)
        if a is not None and b is not None:
            deltas.append((b - a, topic["id"]))
    deltas.sort(key=lambda d: (d[0], natural_key(d[1])))
    if not deltas:
        return f'<p class="note">{html.escape(name)}: no topic scored on {html.escape(main)} in both runs.</p>'
    width, height, pad = 600.0, 110.0, 3.0
    step = (width - 2 * pad) / len(deltas)
    scale = (height / 2 - pad) / max(1e-9, max(abs(d) for d, _ in deltas))
    bars = []
    for i, (delta, qid) in enumerate(deltas):
        h = abs(delta) * scale
        y = height / 2 - h if delta > 0 else height / 2
        css = "up" if delta > TIE_TOLERANCE else "down" if delta < -TIE_TOLERANCE else "tie"
        bars.append(f'<a href="#t-{html.escape(qid)}"><rect class="{css}" x="{pad + i * step:.2f}" y="{y:.2f}" '
                    f'width="{max(step * 0.8, 0.5):.2f}" height="{max(h, 0.8):.2f}"><title>topic {html.escape(qid)}: '
                    f'{delta:+.3f}</title></rect></a>')
    wins = sum(d > TIE_TOLERANCE for d, _ in deltas)
    losses = sum(d < -TIE_TOLERANCE for d, _ in deltas)
    return (f'<figure class="chart"><figcaption>{html.escape(name)} − {html.escape(base)} on {html.escape(main)}, '
            f'per topic, sorted ({wins} better, {losses} worse, {len(deltas) - wins - losses} tied; click a bar)'
            f'</figcaption><svg viewBox="0 0 {width:.0f} {height:.0f}" width="100%" role="img" '
            f'aria-label="per-topic differences of {html.escape(name)}"><line x1="0" x2="{width:.0f}" '
            f'y1="{height / 2:.1f}" y2="{height / 2:.1f}" class="axis"/>{"".join(bars)}</svg></figure>')


def _topic_table(data: dict) -> str:
    """Every topic's main-measure value per run: the no-JavaScript view of the topics."""
    main = data["main"]
    head = "".join(f"<th>{html.escape(n)}</th>" for n in data["runs"])
    rows = []
    for topic in data["topics"]:
        cells = "".join(f'<td class="num">{_fmt(topic["values"][n].get(main))}</td>' for n in data["runs"])
        rows.append(f'<tr id="row-{html.escape(topic["id"])}"><th><a href="#t-{html.escape(topic["id"])}">'
                    f'{html.escape(topic["id"])}</a></th><td class="title">{html.escape(topic["title"])}</td>{cells}</tr>')
    return (f'<details class="topics-table"><summary>All {len(data["topics"])} topics, {html.escape(main)} per run'
            f'</summary><table><thead><tr><th>topic</th><th>title</th>{head}</tr></thead><tbody>{"".join(rows)}'
            "</tbody></table></details>")


def render_explorer(data: dict) -> str:
    """The page: static overview, chart and topic table; the topic view rendered by the script."""
    charts = '<div class="charts">' + "".join(_delta_chart(data, n) for n in data["runs"] if n != data["baseline"]) + "</div>"
    files = "".join(f"<li><b>{html.escape(n)}</b>: {html.escape(p)}</li>" for n, p in data["files"].items())
    qrels = ", ".join(f"{html.escape(n)} ({k})" for n, k in data["qrels"].items())
    thumbs = "\n".join(f'.t-{docid} {{ background-image: url("{uri}"); }}' for docid, uri in data["thumbnails"].items())
    payload = script_json({k: v for k, v in data.items() if k != "thumbnails"})
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(data["title"])}</title>
<style>{STYLE}
{thumbs}
</style></head>
<body>
<header><h1>{html.escape(data["title"])}</h1>
<p class="meta">{len(data["runs"])} {data["format"]} runs · {len(data["topics"])} topics · qrels: {qrels} ·
baseline <b>{html.escape(data["baseline"])}</b> · corpus: {html.escape(data["corpus"] or "not given (no texts)")} ·
written {data["created"]} by <code>touche explore</code></p>
<details><summary>run files</summary><ul>{files}</ul></details></header>
<section id="overview"><h2>Overview</h2>{_overview_table(data)}
<p class="note">Means as Touché computes them (condensed nDCG: unjudged documents dropped); [95 % CI]: the
percentile interval of the mean when topics are drawn again with replacement; Δ: the mean difference to the
baseline on the topics both runs are scored on; p: paired randomization test, (corr.): Holm-corrected over the
runs tested; <span class="sig">*</span> significant at 0.05 after correction; n: topics averaged.</p>
{charts}{_topic_table(data)}</section>
<section id="topic-view" aria-live="polite"><noscript><p class="note">The topic view (the top {data["top"]} of
every run, side by side, with labels and snippets) needs JavaScript; the overview above does not.</p></noscript></section>
<script type="application/json" id="explorer-data">{payload}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def script_json(value) -> str:
    """JSON safe inside a ``<script>`` element: every ``<`` (so no ``</script>``, and no ``<!--``,
    which would make the parser swallow the following script), ``>`` and ``&`` escaped as JSON
    unicode escapes (the data they encode is unchanged)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write_explorer(run_paths: Sequence[str | os.PathLike], qrels: Mapping[str, str | os.PathLike] | Sequence,
                   out_html: str | os.PathLike, *, corpus: str | os.PathLike | None = None,
                   corpus_format: str | None = None, topics: str | os.PathLike | None = None,
                   baseline: str | None = None, top: int = DEFAULT_TOP, names: Sequence[str] | None = None,
                   measures: Sequence[str] | None = None, documents: Documents | None = None,
                   progress: bool = False) -> Path:
    """Check the inputs, read what the page shows, and write it atomically; returns its path.
    ``documents``: texts already read (``read_documents``) instead of reading ``corpus``."""
    out = Path(out_html)
    check_writable(out, "explorer page")
    named = {str(n) if n else "relevance": Path(p) for n, p in named_qrels(qrels)}
    check_not_an_input(out, [*run_paths, *named.values(), topics], "explorer page")
    loaded = load_runs(run_paths, names)
    if not named:
        raise ToucheError("give at least one qrels file: the explorer shows what the judgements say")
    topic_map = {canonical_topic(t.number): t for t in read_topics(topics)} if topics else {}
    if documents is None and corpus is not None:
        fmt = corpus_format or _guess_corpus_format(Path(corpus), loaded.format)
        wanted = {h.docid for rows in loaded.runs.values() for h in _top_rows(rows, top, loaded.format)}
        documents = read_documents(Path(corpus), fmt, wanted, progress=progress)
    title = f"Run explorer · {len(loaded.runs)} runs"
    data = explorer_data(loaded, named, topics=topic_map, documents=documents, baseline=baseline, top=top,
                         measures=measures, title=title)
    return write_text(out, render_explorer(data))


def _top_rows(rows: list[RunRow], top: int, fmt: RunFormat) -> list[RunRow]:
    """The rows the page shows, in rank order: the first ``top`` (of each stance, for image runs)."""
    image = fmt is RunFormat.IMAGE
    ranked = sorted(rows, key=lambda r: (r.qid, r.column2 if image else "", r.rank, -r.score))
    out, seen = [], {}
    for row in ranked:
        group = (row.qid, row.column2 if image else "")
        seen[group] = seen.get(group, 0) + 1
        if seen[group] <= top:
            out.append(row)
    return out


def _guess_corpus_format(corpus: Path, fmt: RunFormat) -> str:
    """The corpus family of the runs' task: their format says it, except for Q0 runs, where a
    folder of WARC files is ClueWeb12 and anything else args.me (JSON, or BEIR's corpus.jsonl)."""
    by_format = {RunFormat.IMAGE: "images", RunFormat.PAIRS: "argsme-sentences", RunFormat.STANCE: "passages"}
    if fmt in by_format:
        return by_format[fmt]
    if corpus.is_dir():
        return CORPUS_FORMAT_OF_TASK.get(detect_task(corpus), "argsme")
    return "clueweb12" if corpus.name.endswith((".warc.gz", ".warc")) else "argsme"


# --------------------------------------------------------------------------- style and script
STYLE = """
:root { --up: #1a7f37; --down: #c0392b; --muted: #666; --line: #ddd; }
* { box-sizing: border-box; }
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 0; padding: 12px 18px 40px; color: #222;
       background: #f6f6f4; font-size: 14px; }
h1 { font-size: 20px; margin: 4px 0; } h2 { font-size: 17px; margin: 18px 0 8px; } h3 { font-size: 14px; margin: 0 0 6px; }
.meta, .note { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid var(--line); padding: 4px 7px; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.ci, .n { color: var(--muted); font-size: 11px; }
.up { color: var(--up); } .down { color: var(--down); } .base { color: var(--muted); font-style: italic; }
.sig { color: #b8860b; font-weight: bold; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr)); gap: 10px; margin: 10px 0; }
figure.chart { margin: 0; background: #fff; border: 1px solid var(--line); padding: 6px; }
figure.chart figcaption { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
svg rect.up { fill: var(--up); } svg rect.down { fill: var(--down); } svg rect.tie { fill: #aaa; }
svg line.axis { stroke: #444; stroke-width: 0.6; }
.topics-table td.title { max-width: 420px; }
#topic-view { margin-top: 20px; }
nav.topic-nav { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; background: #fff;
                border: 1px solid var(--line); padding: 6px 10px; position: sticky; top: 0; z-index: 2; }
nav.topic-nav button { font-size: 13px; }
.keys { color: var(--muted); font-size: 11px; }
.topic-head h2 { margin-bottom: 2px; }
.columns { display: grid; gap: 10px; align-items: start; margin-top: 10px; }
.column { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px; min-width: 0; }
.column.baseline { border-color: #888; }
.card { border: 1px solid var(--line); border-left: 5px solid #bbb; border-radius: 4px; padding: 5px 7px;
        margin-bottom: 6px; font-size: 12px; overflow-wrap: anywhere; background: #fcfcfb; }
.card.g0 { border-left-color: #e6a39b; } .card.g1 { border-left-color: #9fd1a8; }
.card.g2, .card.g3, .card.g4, .card.g5 { border-left-color: var(--up); }
.card.unjudged { border-left-style: dashed; border-left-color: #999; background: #f7f7f7; }
.card.absent { opacity: 0.7; }
.card .head { font-weight: bold; }
.card .head .score { color: var(--muted); font-weight: normal; }
.lab { display: inline-block; border-radius: 3px; padding: 0 4px; margin: 2px 3px 2px 0; font-size: 11px; background: #eee; }
.lab.g0 { background: #f6d5d1; } .lab.g1 { background: #d9f0dd; } .lab.g2, .lab.g3, .lab.g4, .lab.g5 { background: #a6dcb2; }
.lab.unjudged { background: #fff; border: 1px dashed #999; color: #555; }
.lab.match { background: #a6dcb2; } .lab.mismatch { background: #f6d5d1; }
.stance { display: inline-block; border-radius: 3px; padding: 0 4px; background: #e3e8f4; font-size: 11px; }
.others, .len { color: var(--muted); font-size: 11px; }
.snippet { margin-top: 3px; white-space: pre-line; display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical;
           overflow: hidden; cursor: pointer; }
.snippet.open { -webkit-line-clamp: unset; display: block; }
.moved { display: inline-block; border-radius: 3px; padding: 0 4px; font-size: 11px; margin-left: 4px; }
.moved.in { background: #d9f0dd; color: var(--up); } .moved.out { background: #f6d5d1; color: var(--down); }
mark.term { background: #ffe58a; }
.moves { background: #fff; border: 1px solid var(--line); padding: 6px 10px; margin-top: 8px; font-size: 12px; }
.moves .docid { font-family: monospace; }
.thumb { width: 150px; height: 120px; margin: 4px auto; background-size: contain; background-repeat: no-repeat;
         background-position: center; }
"""

SCRIPT = r"""
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('explorer-data').textContent);
  const view = document.getElementById('topic-view');
  const others = data.runs.filter(r => r !== data.baseline);
  let compared = others.length ? others[0] : data.baseline;
  let sequence = [];
  let position = 0;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'text') node.textContent = value; else if (key === 'html') node.innerHTML = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    return node;
  }
  const fmt = v => (v === null || v === undefined) ? '–' : v.toFixed(3);
  const value = (topic, run) => topic.values[run] ? topic.values[run][data.main] : null;
  const number = run => data.runs.indexOf(run) + 1;

  function order() {  // biggest loss of the compared run first; topics it was not scored on last
    const scored = [], unscored = [];
    data.topics.forEach(t => {
      const a = value(t, data.baseline), b = value(t, compared);
      (a === null || b === null) ? unscored.push([Infinity, t]) : scored.push([b - a, t]);
    });
    scored.sort((x, y) => x[0] - y[0]);
    sequence = scored.concat(unscored).map(p => p[1]);
  }

  function top5(topic, run) {
    return new Set((topic.hits[run] || []).filter(h => h[1] <= 5).map(h => h[0]));
  }

  function labels(topic, docid, predicted) {
    const info = topic.docs[docid] || {};
    const out = [];
    let grade = null, judgedAny = false;
    for (const [name, kind] of Object.entries(data.qrels)) {
      const label = info.labels ? info.labels[name] : null;
      if (label === null || label === undefined) {
        out.push(el('span', {class: 'lab unjudged', text: name + ': unjudged'}));
        continue;
      }
      judgedAny = true;
      if (kind === 'stance') {
        out.push(el('span', {class: 'lab ' + (label === predicted ? 'match' : 'mismatch'),
                             text: name + ': judged ' + label + (predicted && predicted !== 'Q0' ? ', run says ' + predicted : '')}));
      } else if (kind === 'image') {
        const on = Object.entries(label).filter(([, v]) => v).map(([k]) => k);
        out.push(el('span', {class: 'lab ' + (on.includes(predicted) ? 'match' : 'mismatch'),
                             text: name + ': ' + (on.length ? on.join(' ') : 'none')}));
      } else {
        const g = Math.max(0, label);
        if (grade === null) grade = g;
        out.push(el('span', {class: 'lab g' + g, text: name + ' ' + label}));
      }
    }
    return {nodes: out, grade: grade, judged: judgedAny};
  }

  function card(topic, run, hit) {
    const [docid, rank, score, column2] = hit;
    const info = topic.docs[docid] || {};
    const lab = labels(topic, docid, column2);
    const classes = ['card'];
    if (!lab.judged) classes.push('unjudged'); else if (lab.grade !== null) classes.push('g' + lab.grade);
    if (info.absent) classes.push('absent');
    const elsewhere = data.runs.filter(r => r !== run).map(r => '[' + number(r) + '] ' + (info.ranks && info.ranks[r] ? '#' + info.ranks[r] : '–'));
    let moved = null;
    if (rank <= 5 && run !== data.baseline && !top5(topic, data.baseline).has(docid)) moved = el('span', {class: 'moved in', text: 'new in top 5'});
    if (rank <= 5 && run === data.baseline && others.length && !top5(topic, compared).has(docid)) moved = el('span', {class: 'moved out', text: 'not in [' + number(compared) + ']\'s top 5'});
    const head = el('div', {class: 'head'}, [
      el('span', {class: 'rank', text: '#' + rank + ' '}), el('span', {class: 'docid', text: docid}),
      el('span', {class: 'score', text: ' · ' + score}),
      column2 && column2 !== 'Q0' ? el('span', {class: 'stance', text: column2}) : null, moved]);
    const parts = [head];
    if (data.format === 'IMAGE') parts.push(el('div', {class: 'thumb t-' + docid, role: 'img', 'aria-label': docid}));
    parts.push(el('div', {class: 'labels'}, lab.nodes));
    if (elsewhere.length) parts.push(el('div', {class: 'others', text: 'elsewhere: ' + elsewhere.join(' · ')}));
    if (info.absent) parts.push(el('div', {class: 'len', text: 'not in the corpus'}));
    else if (info.words !== undefined) parts.push(el('div', {class: 'len', text: info.words + ' words'}));
    if (info.snippet) {
      const text = el('div', {class: 'snippet', html: info.snippet, title: 'click: whole snippet'});
      text.addEventListener('click', () => text.classList.toggle('open'));
      parts.push(text);
    }
    return el('div', {class: classes.join(' '), 'data-docid': docid, 'data-run': run}, parts);
  }

  function moves(topic) {
    const base = top5(topic, data.baseline), mine = top5(topic, compared);
    const entered = [...mine].filter(d => !base.has(d)), left = [...base].filter(d => !mine.has(d));
    const describe = d => {
      const l = labels(topic, d, null).nodes.map(n => n.textContent).join(', ');
      return el('span', {class: 'docid', text: d + ' (' + l + ') '});
    };
    return el('div', {class: 'moves'}, [
      el('b', {text: 'Top 5 of ' + compared + ' against ' + data.baseline + ': '}),
      el('span', {class: 'up', text: 'entered ' + entered.length + ': '}), ...entered.map(describe),
      el('span', {class: 'down', text: ' left ' + left.length + ': '}), ...left.map(describe)]);
  }

  function render(index, scroll) {
    if (!sequence.length) return;
    position = (index + sequence.length) % sequence.length;
    const topic = sequence[position];
    const select = el('select', {id: 'compared', 'aria-label': 'compared run'},
      others.map(r => el('option', {value: r, selected: r === compared ? 'selected' : null, text: r})));
    select.addEventListener('change', () => { compared = select.value; order(); show(topic.id, false); });
    const nav = el('nav', {class: 'topic-nav'}, [
      el('button', {id: 'prev', type: 'button', text: '‹ previous'}),
      el('span', {id: 'position', text: 'topic ' + (position + 1) + ' of ' + sequence.length + ', ordered by ' +
                  data.main + ' of the compared run − baseline'}),
      el('button', {id: 'next', type: 'button', text: 'next ›'}),
      others.length ? el('label', {}, ['compared: ', select]) : null,
      el('span', {class: 'keys', text: 'keys: → / j next, ← / k previous, c next compared run'})]);
    const rows = data.runs.map(r => el('tr', {}, [el('th', {text: '[' + number(r) + '] ' + r + (r === data.baseline ? ' (baseline)' : '')}),
      ...data.measures.map(m => el('td', {class: 'num', text: fmt(topic.values[r][m])}))]));
    const values = el('table', {class: 'topic-values'}, [
      el('thead', {}, [el('tr', {}, [el('th', {text: 'run'}), ...data.measures.map(m => el('th', {text: m}))])]),
      el('tbody', {}, rows)]);
    const judged = Object.entries(topic.judged).map(([n, c]) => n + ': ' + c + ' judged').join(', ');
    const head = el('div', {class: 'topic-head'}, [
      el('h2', {id: 'topic-title', text: 'Topic ' + topic.id + (topic.title ? ': ' + topic.title : '')}),
      topic.description ? el('p', {class: 'note', text: topic.description}) : null,
      topic.objects.length ? el('p', {class: 'note', text: 'objects: ' + topic.objects.join(' vs ')}) : null,
      el('p', {class: 'note', text: judged})]);
    const columns = el('div', {class: 'columns', style: 'grid-template-columns: repeat(' + data.runs.length + ', minmax(240px, 1fr))'},
      data.runs.map(r => el('div', {class: 'column' + (r === data.baseline ? ' baseline' : ''), 'data-run': r},
        [el('h3', {text: '[' + number(r) + '] ' + r + (r === data.baseline ? ' (baseline)' : '')}),
         ...(topic.hits[r] || []).map(h => card(topic, r, h)),
         (topic.hits[r] || []).length ? null : el('p', {class: 'note', text: 'no results for this topic'})])));
    view.replaceChildren(nav, head, values, others.length ? moves(topic) : null, columns);
    view.dataset.topic = topic.id;
    document.getElementById('prev').addEventListener('click', () => go(-1));
    document.getElementById('next').addEventListener('click', () => go(1));
    if (scroll) view.scrollIntoView({block: 'start'});
  }

  function show(id, scroll) {
    const index = sequence.findIndex(t => t.id === id);
    render(index < 0 ? 0 : index, scroll);
  }
  function go(step) {
    const next = sequence[(position + step + sequence.length) % sequence.length];
    history.replaceState(null, '', '#t-' + next.id);
    show(next.id, true);
  }

  order();
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#t-')) show(decodeURIComponent(location.hash.slice(3)), true);
  });
  document.addEventListener('keydown', event => {
    if (event.target.closest && event.target.closest('input, select, textarea')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowRight' || event.key === 'j') { go(1); event.preventDefault(); }
    else if (event.key === 'ArrowLeft' || event.key === 'k') { go(-1); event.preventDefault(); }
    else if (event.key === 'c' && others.length > 1) {
      compared = others[(others.indexOf(compared) + 1) % others.length]; order(); show(view.dataset.topic, false);
    }
  });
  const start = location.hash.startsWith('#t-') ? decodeURIComponent(location.hash.slice(3)) : null;
  if (start) show(start, true); else render(0, false);
})();
"""
