"""The explorer page's data: every number the page shows, computed here once, as JSON-ready values.

* **cells**: each run's mean and 95 % topic-bootstrap interval per measure (no baseline needed);
* **versus**: for every measure, every run as the baseline and every other run: Δ, wins and
  losses, the chosen paired test's p and p corrected over the runs tested against that baseline
  (``experiment.experiment``), so the page can make any run the baseline without recomputing;
* **agreement**: every pair of runs, per topic and on average (``evaluation.agreement``): what
  the page compares runs by when no qrels exist, and beside the measures when they do;
* **stance**: per run whether it predicts stance at all, its confusion matrix, and per topic its
  stance F1 and accuracy (``evaluation.pooled``);
* **topics**: each topic's values per run, the first ``top`` documents of every run with their
  labels, ranks in the other runs and snippets;
* **exports**: the overview as Markdown and LaTeX for every baseline, and the per-topic values
  as CSV (``explorer_export``): what the page's export buttons hand out.
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from touche.retrieval.evaluation.agreement import AGREEMENT_DEPTH, DEFAULT_PERSISTENCE, agreement, pair_key
from touche.retrieval.evaluation.experiment import experiment, score_runs
from touche.retrieval.evaluation.measures import pooled_parts
from touche.retrieval.formats.gate import load_qrels
from touche.retrieval.evaluation.pooled import accuracy
from touche.retrieval.evaluation.registry import leaderboard_measures, ranking_measure
from touche.retrieval.evaluation.significance import DEFAULT_RESAMPLES, DEFAULT_SEED
from touche.retrieval.experiments.contact_sheet import highlight, snippet
from touche.retrieval.experiments.explorer_export import exports
from touche.retrieval.formats.qrels import STANCE_LABELS, QrelsKind
from touche.retrieval.formats.runfile import RunFormat, natural_key
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.topics import Topic
from touche.retrieval.tasks.image import topic_terms
from touche.errors import ToucheError

SNIPPET_CHARS = 320
NO_QRELS_MAIN = "RBO"  # what orders the topics when nothing is judged: the least agreeing first


def explorer_data(loaded, qrels: Mapping[str, Path], kinds: Mapping[str, QrelsKind], *,
                  topics: Mapping[str, Topic] | None = None, documents=None, baseline: str | None = None,
                  top: int = 10, measures: Sequence[str] | None = None, test: str = "randomization",
                  correction: str = "holm", rbo_p: float = DEFAULT_PERSISTENCE, title: str = "Run explorer",
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """Everything the page shows (see the module docstring); ``loaded``: ``explorer.LoadedRuns``."""
    if top < 1:
        raise ToucheError(f"--top must be at least 1, got {top}")
    names = list(loaded.runs)
    base = baseline if baseline is not None else names[0]
    if base not in loaded.runs:
        raise ToucheError(f"baseline {base!r} is not one of the runs ({', '.join(names)})")
    tables: dict[str, RunTable] = loaded.runs
    effectiveness = _effectiveness(tables, qrels, kinds, measures, base, test, correction, resamples, seed)
    heads = {name: table.head(max(top, AGREEMENT_DEPTH)) for name, table in tables.items()}
    rankings = {name: _rankings(head) for name, head in heads.items()}
    agreed = agreement(rankings, p=rbo_p)
    stance = _stance(tables, qrels, kinds)
    judgments = {name: load_qrels(path).judgments for name, path in qrels.items()}
    labelled = effectiveness["measures"]
    main = ranking_measure(labelled) if labelled else NO_QRELS_MAIN
    topic_records = _topics(loaded, top, judgments, topics or {}, documents, effectiveness["per_topic"],
                            labelled, agreed, stance)
    data = {"title": title, "format": loaded.format.name, "runs": names, "baseline": base, "main": main,
            "measures": labelled, "agreement_measures": agreed.measures, "rbo_p": rbo_p,
            "agreement_depth": AGREEMENT_DEPTH, "qrels": {n: k.value for n, k in kinds.items()},
            "test": test, "correction": correction,
            "files": {n: p.name for n, p in loaded.paths.items()},  # file names only: a page is shared
            "corpus": Path(documents.corpus).name if documents is not None and documents.corpus else None,
            "folded": dict(loaded.folded), "top": top, "overview": effectiveness["overview"],
            "notes": effectiveness["notes"], "cells": effectiveness["cells"], "versus": effectiveness["versus"],
            "agreement": {pair_key(names, a, b): means for (a, b), means in agreed.means.items()},
            "stance": stance["runs"], "stance_labels": list(STANCE_LABELS) if stance["runs"] else [],
            "topics": topic_records, "thumbnails": {}, "created": time.strftime("%Y-%m-%d %H:%M")}
    data["thumbnails"] = _thumbnails(documents, topic_records)
    data["exports"] = exports(data)
    return data


# --------------------------------------------------------------------------- effectiveness
def _effectiveness(tables, qrels, kinds, measures, base, test, correction, resamples, seed) -> dict:
    """Cells, every baseline's tests, the default baseline's table rows and per-topic values."""
    empty = {"measures": [], "overview": [], "notes": [], "cells": {}, "versus": {}, "per_topic": {}}
    if not qrels:
        return empty
    measures = list(measures) if measures else leaderboard_measures(kinds.values())
    scores = score_runs(tables, dict(qrels), measures)
    cache: dict = {}  # shared by the calls: pooled measures' parts and each pair's p
    tables_by_baseline = {}
    for name in [base, *[n for n in tables if n != base]]:
        tables_by_baseline[name] = experiment(tables, dict(qrels), measures, baseline=name, scores=scores,
                                              test=test, correction=correction, resamples=resamples, seed=seed,
                                              cache=cache, intervals=name == base)
    table = tables_by_baseline[base]
    labelled = list(table["measure"].unique())
    cells = {name: {} for name in tables}
    for row in table.to_dict(orient="records"):
        cells[row["run"]][row["measure"]] = {"mean": _number(row["mean"]), "ci": [_number(row["ci_low"]),
                                                                              _number(row["ci_high"])],
                                             "topics": _json(row["topics"])}
    versus: dict[str, dict[str, dict[str, dict]]] = {m: {} for m in labelled}
    for baseline_name, frame in tables_by_baseline.items():
        for row in frame.to_dict(orient="records"):
            if row["run"] == baseline_name or (_number(row["delta"]) is None and _number(row["p"]) is None):
                continue
            versus[row["measure"]].setdefault(baseline_name, {})[row["run"]] = {
                "delta": _number(row["delta"]), "p": _number(row["p"]), "p_corrected": _number(row["p_corrected"]),
                "significant": _json(row["significant"]), "wins": _json(row["wins"]), "losses": _json(row["losses"]),
                "ties": _json(row["ties"]),
                "topics": sum(_json(row[k]) or 0 for k in ("wins", "losses", "ties"))}  # the topics both are scored on
    overview = [{k: _json(v) for k, v in row.items()} for row in table.to_dict(orient="records")]
    return {"measures": labelled, "overview": overview, "notes": list(table.attrs.get("notes", [])),
            "cells": cells, "versus": versus, "per_topic": scores[1]}


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
        record = {"predicts": predicts, "confusion": None, "per_topic": {}}
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


def _topics(loaded, top, judgments, topics, documents, per_topic, measures, agreed, stance) -> list[dict]:
    names = list(loaded.runs)
    shown = {name: table.head(top) for name, table in loaded.runs.items()}
    hits_by_topic: dict[str, dict[str, list]] = {}
    for name, frame in shown.items():
        for qid, docid, rank, score, column2 in zip(frame["qid"].tolist(), frame["docid"].tolist(),
                                                    frame["rank"].tolist(), frame["score"].tolist(),
                                                    frame["column2"].tolist()):
            hits_by_topic.setdefault(qid, {}).setdefault(name, []).append([docid, rank, round(score, 6), column2])
    ranks = _ranks_of_shown(loaded.runs, shown)
    pair_keys = {pair: pair_key(names, *pair) for pair in agreed.per_topic}
    records = []
    for qid in sorted(hits_by_topic, key=natural_key):
        topic = topics.get(qid)
        terms = topic_terms(topic.title) if topic else frozenset()
        hits = {name: hits_by_topic[qid].get(name, []) for name in names}
        docs: dict[str, dict] = {}
        for name in names:
            for docid, *_ in hits[name]:
                if docid in docs:
                    continue
                record = {"labels": {q: _label(judgments[q].get(qid, {}), docid) for q in judgments},
                          "ranks": {n: ranks.get((n, qid, docid)) for n in names}}
                _add_text(record, documents, docid, terms)
                docs[docid] = record
        records.append({
            "id": qid, "title": topic.title if topic else "", "description": topic.description if topic else "",
            "objects": list(topic.objects) if topic else [],
            "values": {n: {m: _number(per_topic.get(n, {}).get(m, {}).get(qid)) for m in measures} for n in names},
            "stance": {n: stance["runs"][n]["per_topic"].get(qid) for n in names} if stance["runs"] else {},
            "agreement": {key: agreed.per_topic[pair][qid] for pair, key in pair_keys.items()
                          if qid in agreed.per_topic[pair]},
            "hits": hits, "docs": docs, "judged": {q: len(judgments[q].get(qid, {})) for q in judgments}})
    return records


def _ranks_of_shown(tables: Mapping[str, RunTable], shown: Mapping[str, pd.DataFrame]) -> dict:
    """(run, topic, docid) → the run's rank of every shown document (however deep it ranks it)."""
    wanted = pd.concat([frame[["qid", "docid"]] for frame in shown.values()]).drop_duplicates()
    pairs = list(zip(wanted["qid"].tolist(), wanted["docid"].tolist()))
    out = {}
    for name, table in tables.items():
        found = table.frame[table.pairs_in(pairs)]
        for qid, docid, rank in zip(found["qid"].tolist(), found["docid"].tolist(), found["rank"].tolist()):
            out.setdefault((name, qid, docid), rank)
    return out


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


def _json(value):
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if isinstance(value, np.generic):
        return _json(value.item())
    return value

