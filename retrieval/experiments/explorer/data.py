"""The explorer page's data: every number the page shows, computed here once, as JSON-ready values.

What grows with the number of runs is stored once per unordered pair of runs (``agreement.
pair_index``), never once per baseline: a page of 100 runs has 4,950 pairs, and every run can be
the baseline.

* **cells**: each run's mean and 95 % topic-bootstrap interval per measure;
* **pairs**: per measure and pair (i < j) the difference j − i on the topics both are scored on,
  the paired test's p (the same either way round), the topics j wins, loses and ties, and the
  floor p cannot go below when the randomization test samples its sign flips (else null); the
  page orients them against the chosen baseline and corrects p over the runs it shows;
* **agreement**: every pair's mean over topics; per topic every pair's values as one compact
  array (``encode_agreement``: 16-bit integers, value × 10,000);
* **similarity**: the runs ordered so that runs whose rankings agree sit together (average-linkage
  clustering of 1 − mean RBO): the heat map's order;
* **stance**: per run whether it predicts stance, its confusion matrix, per topic its stance F1
  and accuracy (``evaluation.pooled``);
* **topics**: each topic's values per run, its shown documents once (labels, snippets), every run's
  first ``top`` of them, and every run's rank of each shown document (``encode_ranks``).

The exports (Markdown, LaTeX, CSV) are made from the page's state by the page and, for the
command line's ``--markdown/--latex/--csv``, from the default state by ``export``.
"""
from __future__ import annotations

import base64
import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from touche.errors import ToucheError
from touche.inputs import printable_label
from touche.retrieval.evaluation import pooled as pooled_measures
from touche.retrieval.evaluation.agreement import AGREEMENT_DEPTH, DEFAULT_PERSISTENCE, Agreement, agreement
from touche.retrieval.evaluation.experiment import score_runs
from touche.retrieval.evaluation.measures import QrelsSource, pooled_parts
from touche.retrieval.evaluation.pooled import accuracy
from touche.retrieval.evaluation.registry import leaderboard_measures, parse_measure, ranking_measure
from touche.retrieval.evaluation.report import headers_for
from touche.retrieval.evaluation.significance import (
    CORRECTIONS,
    DEFAULT_BOOTSTRAP,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    SIGNIFICANCE_TESTS,
    measure_interval,
    p_floor,
    pairwise,
    wins_losses_ties,
)
from touche.retrieval.experiments.contact_sheet import highlight, snippet
from touche.retrieval.formats.gate import load_qrels
from touche.retrieval.formats.qrels import STANCE_LABELS, QrelsKind
from touche.retrieval.formats.runfile import RunFormat, natural_key
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.topics import Topic
from touche.retrieval.tasks.image import topic_terms

SNIPPET_CHARS = 320
NO_QRELS_MAIN = "RBO"  # what orders the topics when nothing is judged: the least agreeing first
ALPHA = 0.05
UNDEFINED = -32768  # an agreement value that is not defined (fewer than two shared documents)
RANK_CAP = 255  # a shown document's rank in another run, up to this (0: not ranked within it)


def explorer_data(loaded, qrels: Mapping[str, QrelsSource], kinds: Mapping[str, QrelsKind], *,
                  topics: Mapping[str, Topic] | None = None, documents=None, baseline: str | None = None,
                  top: int = 10, measures: Sequence[str] | None = None, test: str = "randomization",
                  correction: str = "holm", rbo_p: float = DEFAULT_PERSISTENCE, title: str = "Run explorer",
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  headers: Mapping[str, str] | Sequence[str] | None = None) -> dict:
    """Everything the page shows (see the module docstring); ``loaded``: ``explorer.LoadedRuns``."""
    if top < 1:
        raise ToucheError(f"--top must be at least 1, got {top}")
    names = list(loaded.runs)
    base = printable_label(baseline) if baseline is not None else names[0]  # as the runs are named
    if base not in loaded.runs:
        raise ToucheError(f"baseline {base!r} is not one of the runs ({', '.join(names)})")
    tables: dict[str, RunTable] = loaded.runs
    effectiveness = _effectiveness(tables, qrels, kinds, measures, test, resamples, seed)
    heads = {name: table.head(max(top, AGREEMENT_DEPTH)) for name, table in tables.items()}
    agreed = agreement({name: _rankings(head) for name, head in heads.items()}, p=rbo_p)
    assert agreed.means is not None  # rankings were given
    stance = _stance(tables, qrels, kinds)
    judgments = {name: load_qrels(path).judgments for name, path in qrels.items()}
    labelled = effectiveness["measures"]
    main = ranking_measure(labelled) if labelled else NO_QRELS_MAIN
    topic_records = _topics(loaded, top, judgments, topics or {}, documents, effectiveness["per_topic"],
                            labelled, agreed, stance)
    return {"title": title, "format": loaded.format.name, "runs": names, "baseline": base, "main": main,
            "measures": labelled, "agreement_measures": agreed.measures, "rbo_p": rbo_p,
            "agreement_depth": AGREEMENT_DEPTH, "qrels": {n: k.value for n, k in kinds.items()},
            "test": test, "correction": correction, "alpha": ALPHA, "resamples": resamples,
            # names from the registries, so that the page's script holds none of its own
            "test_name": SIGNIFICANCE_TESTS[test].title, "correction_names": dict(CORRECTIONS),
            "headers": headers_for(labelled, headers) if labelled else {},
            "judgement_measures": [m for m in labelled if parse_measure(m.rpartition(":")[2]).family
                                   .describes_judgements(parse_measure(m.rpartition(":")[2]))],
            # file names only (a page is shared), shown as names are (an U+202E reversed the text after it)
            "files": {n: printable_label(p.name) for n, p in loaded.paths.items()},
            "corpus": Path(documents.corpus).name if documents is not None and documents.corpus else None,
            "folded": dict(loaded.folded), "top": top, "notes": effectiveness["notes"],
            "cells": effectiveness["cells"], "pairs": effectiveness["pairs"],
            "agreement": [[_number(v) for v in row] for row in agreed.means],
            "similarity": similarity_order(agreed), "stance": stance["runs"],
            "stance_labels": list(STANCE_LABELS) if stance["runs"] else [],
            "topics": topic_records, "thumbnails": _thumbnails(documents, topic_records),
            "created": time.strftime("%Y-%m-%d %H:%M")}


# --------------------------------------------------------------------------- effectiveness
def _effectiveness(tables, qrels, kinds, measures, test, resamples, seed) -> dict:
    """Cells, every pair's test per measure, and the per-topic values."""
    empty: dict[str, Any] = {"measures": [], "notes": [], "cells": {}, "pairs": {}, "per_topic": {}}
    if not qrels:
        return empty
    measures = list(measures) if measures else leaderboard_measures(kinds.values())
    means, per_topic = score_runs(tables, dict(qrels), measures)
    names = list(tables)
    labelled = list(dict.fromkeys(m for name in names for m in means[name]))
    first, second = np.triu_indices(len(names), 1)
    pairs = list(zip(first.tolist(), second.tolist()))
    cells: dict[str, dict] = {name: {} for name in names}
    tested: dict[str, list] = {}
    notes, pooled_notes, counted = [], [], []
    for measure in labelled:
        parsed = parse_measure(measure.rpartition(":")[2])
        has_values = [per_topic[n].get(measure) is not None for n in names]
        if all(has_values):
            for name in names:
                values = list(per_topic[name][measure].values())
                low, high = measure_interval(measure, values)
                cells[name][measure] = _cell(means[name].get(measure), low, high, len(values))
            if parsed.integer or parsed.family.describes_judgements(parsed):
                if parsed.integer:
                    counted.append(measure)
                continue  # a count or how far a top is judged: nothing to test, nothing is "best"
            found = pairwise([per_topic[n][measure] for n in names], pairs, test, resamples=resamples, seed=seed)
            tested[measure] = [[_number(t.delta if t.topics else math.nan), _p_value(t.p), t.wins, t.losses, t.ties,
                                # sampled sign flips: p cannot go below the floor (enumerated: p is exact)
                                _p_value(p_floor(resamples) if SIGNIFICANCE_TESTS[test].resampled
                                         and t.topics > 1 and not t.exact else math.nan)] for t in found]
            continue
        parts = {n: pooled_parts(tables[n], dict(qrels), measure) for n in names}
        if all(p is not None for p in parts.values()):  # stance F1: one value over all judged rows
            for name in names:
                low, high = pooled_measures.interval(parts[name], resamples=DEFAULT_BOOTSTRAP, seed=seed)
                cells[name][measure] = _cell(means[name].get(measure), low, high, len(parts[name].topics))
            rows = []
            for i, j in pairs:
                delta, p = pooled_measures.paired_test(parts[names[j]], parts[names[i]], resamples=resamples, seed=seed)
                wins = wins_losses_ties(parts[names[j]].per_topic(), parts[names[i]].per_topic())
                rows.append([_number(delta), _p_value(p), *wins, None])
            tested[measure] = rows
            pooled_notes.append(measure)
            continue
        for name in names:
            cells[name][measure] = _cell(means[name].get(measure), math.nan, math.nan, 0)
        notes.append(f"{measure}: no Δ or p against the baseline: it is not a mean over topics and has no per-topic "
                     "parts to resample")
    notes += [
        f"{m}: one value over all judged rows, not a mean of topics: Δ is the difference of the two pooled values "
        "(on the topics both are judged on), p the paired randomization test swapping the two runs' predictions "
        "topic by topic, the interval resamples topics; wins and losses compare per-topic values"
        for m in pooled_notes
    ]
    notes += [f"{m}: a count, not an effectiveness measure: not tested against the baseline" for m in counted]
    return {"measures": labelled, "notes": notes, "cells": cells, "pairs": tested, "per_topic": per_topic}


def _cell(mean, low, high, topics) -> dict:
    return {"mean": _number(mean), "ci": [_number(low), _number(high)], "topics": topics}


# --------------------------------------------------------------------------- agreement
def similarity_order(agreed: Agreement) -> list[int]:
    """Run positions ordered so that runs whose rankings agree sit together: average-linkage
    clustering on 1 − mean RBO, leaves in optimal order (scipy); file order for fewer than 3."""
    runs = len(agreed.runs)
    if runs < 3 or agreed.means is None:
        return list(range(runs))
    from scipy.cluster.hierarchy import leaves_list, linkage
    column = agreed.measures.index("RBO") if "RBO" in agreed.measures else 0
    distance = 1 - np.nan_to_num(agreed.means[:, column], nan=0.0)  # condensed, in pair_index order
    return [int(i) for i in leaves_list(linkage(np.clip(distance, 0, None), "average", optimal_ordering=True))]


def encode_agreement(values: np.ndarray) -> str:
    """A topic's pairs × measures values as base64 of little-endian 16-bit integers (value × 10,000,
    ``UNDEFINED`` where undefined): 4,950 pairs of 5 measures are 66 KB a topic, not 1 MB of JSON."""
    scaled = np.where(np.isnan(values), UNDEFINED, np.round(np.nan_to_num(values) * 10_000))
    return base64.b64encode(scaled.astype("<i2").tobytes()).decode("ascii")


def decode_agreement(text: str, measures: int) -> np.ndarray:
    raw = np.frombuffer(base64.b64decode(text), dtype="<i2").reshape(-1, measures).astype(float)
    return np.where(raw == UNDEFINED, np.nan, raw / 10_000)


def encode_ranks(ranks: np.ndarray) -> str:
    """Shown documents × runs ranks (``RANK_CAP`` and beyond as 0: not within it) as base64 bytes."""
    capped = np.where((ranks >= 1) & (ranks <= RANK_CAP), ranks, 0)
    return base64.b64encode(capped.astype(np.uint8).tobytes()).decode("ascii")


# --------------------------------------------------------------------------- stance
def _stance(tables, qrels, kinds) -> dict:
    """Per run: whether it predicts stance, and against stance qrels its confusion matrix and
    per-topic F1 and accuracy."""
    if next(iter(tables.values())).format is not RunFormat.STANCE:
        return {"runs": {}}
    stance_qrels = [name for name, kind in kinds.items() if kind is QrelsKind.STANCE]
    out = {}
    for name, table in tables.items():
        predicts = bool(table.frame["column2"].isin(STANCE_LABELS).any())
        record: dict[str, Any] = {"predicts": predicts, "confusion": None, "per_topic": {}}
        if stance_qrels and predicts:
            parts = pooled_parts(table, qrels, f"{stance_qrels[0]}:stance.F1_macro")
            if parts is not None:
                record["confusion"] = parts.parts.sum(axis=0).astype(int).tolist()
                f1 = parts.value(parts.parts)
                acc = accuracy(parts.parts)
                record["per_topic"] = {t: [_number(f), _number(a)] for t, f, a in zip(parts.topics, f1, acc)
                                       if not math.isnan(a)}
        out[name] = record
    return {"runs": out}


# --------------------------------------------------------------------------- topics
def _rankings(head: pd.DataFrame) -> dict[str, list[str]]:
    """Topic → document ids in rank order (image runs: PRO's, then CON's)."""
    return {qid: group["docid"].tolist() for qid, group in head.groupby("qid", sort=False)}


def _topics(loaded, top, judgments, topics, documents, per_topic, measures, agreed: Agreement, stance) -> list[dict]:
    names = list(loaded.runs)
    shown = {name: table.head(top) for name, table in loaded.runs.items()}
    hits_by_topic: dict[str, dict[str, list]] = {}
    for name, frame in shown.items():
        for qid, docid, rank, score, column2 in zip(frame["qid"].tolist(), frame["docid"].tolist(),
                                                    frame["rank"].tolist(), frame["score"].tolist(),
                                                    frame["column2"].tolist()):
            hits_by_topic.setdefault(qid, {}).setdefault(name, []).append([docid, rank, round(score, 6), column2])
    order = sorted(hits_by_topic, key=natural_key)
    shown_docs = {qid: _first_seen(hits_by_topic[qid], names) for qid in order}
    rank_matrices = _ranks_of_shown([loaded.runs[name] for name in names], shown_docs)
    records = []
    for qid in order:
        topic = topics.get(qid)
        terms = topic_terms(topic.title) if topic else frozenset()
        docs: dict[str, int] = {}
        info: list[dict] = []
        hits: dict[str, list] = {}
        for name in names:
            for docid, rank, score, column2 in hits_by_topic[qid].get(name, []):
                if docid not in docs:
                    docs[docid] = len(docs)
                    record = {"labels": {q: _label(judgments[q].get(qid, {}), docid) for q in judgments}}
                    _add_text(record, documents, docid, terms)
                    info.append(record)
                hits.setdefault(name, []).append([docs[docid], rank, score, column2])
        rank_matrix = rank_matrices[qid]
        values = agreed.per_topic.get(qid)
        records.append({
            "id": qid, "title": topic.title if topic else "", "description": topic.description if topic else "",
            "objects": list(topic.objects) if topic else [],
            "values": {n: {m: _number(per_topic.get(n, {}).get(m, {}).get(qid)) for m in measures} for n in names},
            "stance": {n: stance["runs"][n]["per_topic"].get(qid) for n in names} if stance["runs"] else {},
            "agreement": encode_agreement(values) if values is not None else None,
            "docs": list(docs), "info": info, "hits": hits, "ranks": encode_ranks(rank_matrix),
            "judged": {q: len(judgments[q].get(qid, {})) for q in judgments}})
    return records


def _first_seen(hits: Mapping[str, list], names: Sequence[str]) -> list[str]:
    """A topic's shown documents in the order the page numbers them: run by run, rank by rank."""
    return list(dict.fromkeys(docid for name in names for docid, *_ in hits.get(name, ())))


def _ranks_of_shown(tables: Sequence[RunTable], shown: Mapping[str, list[str]]) -> dict[str, np.ndarray]:
    """Topic → documents × runs: each run's rank of each shown document, however deep it ranks it
    (0: not ranked); every run looked up once for all topics' documents."""
    qids = [qid for qid, docs in shown.items() for _ in docs]
    docids = [docid for docs in shown.values() for docid in docs]
    matrix = np.zeros((len(docids), len(tables)), np.int64)
    for r, table in enumerate(tables):
        rows = table.rows_of(qids, docids)
        matrix[:, r] = np.where(rows >= 0, table.frame["rank"].to_numpy()[np.maximum(rows, 0)], 0)
    bounds = np.cumsum([0] + [len(docs) for docs in shown.values()])
    return {qid: matrix[start:end] for qid, start, end in zip(shown, bounds[:-1], bounds[1:])}


def _add_text(record: dict, documents, docid: str, terms) -> None:
    doc = documents.get(docid) if documents is not None else None
    if documents is None:
        record["absent"] = None  # no corpus given: nothing to say
    elif doc is None:
        record["absent"] = True
    else:
        record["words"] = doc.words
        record["snippet"] = highlight(snippet(doc.text, terms, SNIPPET_CHARS), terms, frozenset(), frozenset())


def _thumbnails(documents, topic_records) -> dict[str, str]:
    if documents is None:
        return {}
    shown = {docid for t in topic_records for docid in t["docs"]}
    return {d: doc.thumbnail for d in sorted(shown) if (doc := documents.get(d)) is not None and doc.thumbnail}


def _label(judged: Mapping, docid: str):
    value = judged.get(docid)
    if value is None:
        return None
    if isinstance(value, Mapping):  # image qrels: aspect → 0/1
        return {k: int(v) for k, v in value.items()}
    return value if isinstance(value, str) else int(value)


def _number(value) -> float | None:
    if value is None or value is pd.NA:
        return None
    value = float(value)
    return None if math.isnan(value) else round(value, 6)


def _p_value(value) -> float | None:
    """A p-value to six significant digits: six decimals made a t-test's 1e-8 a 0."""
    if value is None or math.isnan(value):
        return None
    return float(f"{float(value):.6g}")
