"""PyTerrier's frames in and out: topics and qrels read into them, run files read into results
frames and written from them with what PyTerrier's own I/O drops (the stance column, the order
of tied scores), and the conversions between results frames and the toolkit's rankings."""
from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from pyterrier import io as pt_io

from touche.api.variants import write_frame
from touche.datasets import parse_ref, qrels_paths, topics_path
from touche.errors import InputError
from touche.notes import topic_note, topic_notes
from touche.retrieval.formats.gate import load_qrels, load_run, load_topics
from touche.retrieval.formats.qrels import check_named_kind
from touche.retrieval.formats.runfile import ARGUMENT_STANCES, COMPARATIVE_STANCES, RunFormat, canonical_topic
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.formats.topics import Topic
from touche.retrieval.search import Ranking
from touche.stemming.words import has_query_word

log = logging.getLogger(__name__)
PathLike = str | os.PathLike[str]
TOPIC_COLUMNS = ("title", "description", "narrative", "objects")


# --------------------------------------------------------------------------- topics and qrels
def topics(source: PathLike | pd.DataFrame | Any, *, topics_only: Any = None, topics_except: Any = None
           ) -> pd.DataFrame:
    """A topics file, BEIR queries, ``irds:<id>``, a queries frame or a PyTerrier dataset
    (``pt.get_dataset("irds:…")``) as PyTerrier's queries frame: ``qid``, ``query`` (the title)
    and Touché's ``title``, ``description``, ``narrative``, ``objects`` (comma-joined).
    ``topics_only``/``topics_except``: a selection, as ``--topics-only`` takes it (a topic the
    file lacks is an error; a range takes those it holds)."""
    if hasattr(source, "get_topics") and not isinstance(source, (str, os.PathLike, pd.DataFrame)):
        source = _dataset_topics(source)
    ref = parse_ref(source) if not isinstance(source, pd.DataFrame) else None
    read = load_topics(topics_path(ref) if ref else source)
    selection = _selection(topics_only, topics_except, (t.number for t in read), "the topics given")
    read = [t for t in read if selection is None or selection.keeps(t.number)]
    return pd.DataFrame({"qid": [t.number for t in read], "query": [t.title for t in read],
                         "title": [t.title for t in read], "description": [t.description for t in read],
                         "narrative": [t.narrative for t in read], "objects": [", ".join(t.objects) for t in read]})


def _dataset_topics(dataset: Any) -> pd.DataFrame:
    """A PyTerrier dataset's topics: Touché's fields where ir_datasets keeps them (its queries'
    namedtuples: ``title``, ``description``, ``narrative``; BEIR's ``text``), else its topics
    frame (``qid``, ``query``: already PyTerrier's text, which lowercases and strips)."""
    irds = getattr(dataset, "irds_ref", None)
    if callable(irds):
        records = []
        for query in irds().queries_iter():
            fields = query._asdict()
            text = fields.get("title") or fields.get("text") or ""
            records.append({"qid": query.query_id, "title": text, "description": fields.get("description", ""),
                            "narrative": fields.get("narrative", ""), "objects": fields.get("objects", "")})
        return pd.DataFrame(records)
    return dataset.get_topics()


def qrels(source: PathLike | Mapping[str, PathLike], *, topics_only: Any = None, topics_except: Any = None
          ) -> pd.DataFrame:
    """Qrels as PyTerrier's frame (``qid``, ``docno``, ``label``): a file, ``irds:<id>`` (every qrels
    file of the dataset), or {name: file}. The relevance qrels (else the first) give ``label``;
    each other one a column of its name (``quality``, ``stance``), which ``measure("quality:…")``
    reads; a file under a name that promises another kind of judgement is refused. Topic ids as
    the gate makes them (``01`` is topic 1); ``topics_only``/``topics_except`` as ``topics`` takes
    them."""
    if isinstance(source, Mapping):
        named = {str(n): p for n, p in source.items()}
    elif ref := parse_ref(source):
        named = dict(qrels_paths(ref))
    else:
        named = {"relevance": source}
    if not named:
        raise InputError("no qrels given")
    main = "relevance" if "relevance" in named else next(iter(named))
    frames = {}
    loaded = {name: load_qrels(path) for name, path in named.items()}
    selection = _selection(topics_only, topics_except, set().union(*(q.topics() for q in loaded.values())),
                           "the qrels")
    for name, path in named.items():
        judged = loaded[name] if selection is None else loaded[name].restricted(selection.keeps)
        if isinstance(source, Mapping):  # a name the user gave promises a kind; a lone file's is ours
            check_named_kind(name, judged)
        if judged.kind.value == "image":
            raise InputError("image qrels (three aspects per image) have no PyTerrier layout; score image runs "
                             "with touche evaluate", path=path)
        frames[name] = pd.DataFrame([(q, d, v) for q, docs in judged.judgments.items() for d, v in docs.items()],
                                    columns=["qid", "docno", "label" if name == main else name])
    out = frames[main]
    for name, frame in frames.items():
        if name == main:
            continue
        lost = len(frame.merge(out[["qid", "docno"]], on=["qid", "docno"], how="left", indicator=True)
                   .query("_merge == 'left_only'"))
        if lost:
            log.warning("warning: %d %s judgement(s) are of documents the %s qrels do not judge: left out of the "
                        "frame (PyTerrier's qrels have one row per judged document)", lost, name, main)
        out = out.merge(frame, on=["qid", "docno"], how="left")
    return out.reset_index(drop=True)


def _selection(topics_only, topics_except, known, what: str) -> TopicSelection | None:
    """The one topic selection, checked against what exists (``TopicSelection.checked_against``)."""
    selection = TopicSelection.of(topics_only, topics_except, names=("topics_only", "topics_except"))
    return selection.checked_against(known, what) if selection is not None else None


# --------------------------------------------------------------------------- run files
def read_run(path: PathLike, fmt: RunFormat | str | None = None) -> pd.DataFrame:
    """A run file (validated; format detected unless given) as a results frame that keeps what
    ``pt.io.read_results`` drops: ``qid``, ``docno``, ``score``, ``rank`` (from 0, in the file's
    rank order, so tied scores keep the order Touché's evaluator reads) and, for a run with a
    stance column (Task 1 2022 pairs, Task 2 2022, images), ``stance``."""
    table = load_run(path, fmt)
    fmt = table.format
    rows = table.head(np.iinfo(np.int64).max)  # every row, each ranked group in rank order
    groups = ["qid", "column2"] if fmt is RunFormat.IMAGE else ["qid"]
    frame = pd.DataFrame({"qid": rows["qid"].to_numpy(), "docno": rows["docid"].to_numpy(),
                          "score": rows["score"].to_numpy(dtype=float),
                          "rank": rows.groupby(groups, sort=False).cumcount().to_numpy(dtype=np.int64)})
    if fmt is not RunFormat.Q0:
        frame["stance"] = rows["column2"].to_numpy()
    frame.attrs["run_format"] = fmt.value
    return frame


def write_run(frame: pd.DataFrame, path: PathLike, *, tag: str = "pyterrier",
              fmt: RunFormat | str | None = None) -> list:
    """A results frame as a valid run file, written atomically (``touche run``'s writer): its
    ``stance`` column becomes the run's stance column (``pt.io.write_results`` writes ``Q0``), equal
    scores keep the order of its ``rank`` column, and the format is detected from the frame unless
    given. Returns the validator's warnings.

    The ranks are written 1, 2, … in the order of the scores (ties in the order of the frame's
    ranks), as every run the writer writes: a run whose ranks had a gap (``Asuna-run1``, topic 8)
    or started at 0 is written without it, so ``write_run(read_run(f))`` is not ``f`` byte for byte,
    though every evaluator (trec_eval, Touché 2021's and 2022's) scores the two alike."""
    return list(write_frame(frame, path, tag, fmt).warnings)


# --------------------------------------------------------------------------- PyTerrier's own results files
STANCE_LABELS = frozenset((*COMPARATIVE_STANCES, *ARGUMENT_STANCES))
_PT_TREC = pt_io.SUPPORTED_RESULTS_FORMATS["trec"]  # PyTerrier's own (reader, writer)


def write_results_trec(res: pd.DataFrame, filename, run_name: str = "pyterrier", append: bool = False) -> None:
    """PyTerrier's TREC results writer (``pt.io.write_results``, ``pt.Experiment``'s ``save_dir``)
    with a frame's ``stance`` in the second column, where Touché's run files hold it and PyTerrier
    writes ``Q0``: a saved run keeps its stance when ``save_mode="reuse"`` reads it back."""
    if "stance" not in res.columns:
        write = _PT_TREC[1]
        assert write is not None  # PyTerrier's trec format writes
        write(res, filename, run_name=run_name, append=append)
        return None
    out = res[["qid", "stance", "docno", "rank", "score"]].copy()
    out["stance"] = out["stance"].map(lambda s: "Q0" if s is None or (isinstance(s, float) and math.isnan(s))
                                      else str(s))
    out.insert(5, "run_name", run_name)
    out.to_csv(filename, sep=" ", mode="a" if append else "w", header=False, index=False)
    return None


def read_results_trec(filename) -> pd.DataFrame:
    """PyTerrier's TREC results reader, keeping a second column of Touché's stance labels as the
    ``stance`` column (PyTerrier drops that column: it is ``Q0`` in its files)."""
    frame = pd.read_csv(filename, sep=r"\s+", names=["qid", "iter", "docno", "rank", "score", "name"],
                        dtype={"qid": str, "docno": str, "rank": int, "score": float, "iter": str})
    labels = set(frame["iter"].unique())
    if labels - {"Q0"} and labels <= STANCE_LABELS | {"Q0"}:
        return frame.drop(columns="iter").assign(stance=frame["iter"])
    return frame.drop(columns="iter")


def install_results_format() -> None:
    """Make these PyTerrier's ``trec`` results format (once; importing touche.pyterrier does it)."""
    pt_io.SUPPORTED_RESULTS_FORMATS["trec"] = (read_results_trec, write_results_trec)


# --------------------------------------------------------------------------- frames and rankings
_TOPIC_NUMBER = re.compile(r"[0-9]+(\.0+)?")


def numbered_topics(frame: pd.DataFrame) -> tuple[pd.DataFrame, "OwnIds"]:
    """PyTerrier allows any qid (``x1``); Touché numbers its topics. A frame with other ids goes
    through a variant numbered 1, 2, … in order of appearance, and the returned function gives
    its results their own ids back. Numbered frames pass unchanged."""
    if "qid" not in frame.columns:
        return frame, OwnIds({})  # the gate names the missing column
    missing = frame["qid"].isna().to_numpy()
    if missing.any():
        raise InputError("the qid is missing", path="queries frame", where=f"row {int(missing.argmax()) + 1}")
    qids = frame["qid"].astype(str)
    if qids.map(lambda q: bool(_TOPIC_NUMBER.fullmatch(q))).all():
        return frame, OwnIds({})
    numbers = {qid: str(number) for number, qid in enumerate(dict.fromkeys(qids), start=1)}
    return frame.assign(qid=qids.map(numbers)), OwnIds({number: qid for qid, number in numbers.items()})


class OwnIds:
    """A results frame's own qids back (``names``: the topic number the gate saw → the frame's
    qid); ``notes()`` is the context in which a note about a topic names it by the frame's qid
    and is a Python warning too (``touche.notes``)."""

    def __init__(self, names: dict[str, str]):
        self.names = names

    def __call__(self, results: pd.DataFrame) -> pd.DataFrame:
        return results.assign(qid=results["qid"].map(self.names)) if self.names else results

    def notes(self):
        return topic_notes(self.names, warn=True)


def topics_of(frame: pd.DataFrame) -> list[Topic]:
    """The topics of a queries (or results) frame, one per qid, through the input gate; ``query``
    is what is searched (a rewrite upstream wins over the topic's title)."""
    if "qid" not in frame.columns or not ({"query", "title"} & set(frame.columns)):
        raise InputError(f"a queries frame needs the columns qid and query (or title); it has "
                         f"{', '.join(map(str, frame.columns)) or 'none'}")
    columns = [c for c in ("qid", "query", *TOPIC_COLUMNS) if c in frame.columns]
    return load_topics(frame[columns].drop_duplicates("qid"))


def answerable(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a queries (or results) frame whose query has a word: a query of ``?`` or
    nothing gets no results and a warning naming it, and the batch goes on (as PyTerrier's own
    retrievers answer the rest)."""
    column = "query" if "query" in frame.columns else "title" if "title" in frame.columns else None
    if column is None or frame.empty:
        return frame
    texts = frame[column].map(lambda q: q if isinstance(q, str) else "")
    usable = texts.map(has_query_word).to_numpy(dtype=bool)
    if usable.all():
        return frame
    with topic_notes(warn=True):
        for qid, text in frame.loc[~usable, ["qid", column]].drop_duplicates("qid").itertuples(index=False):
            topic_note(log, str(qid), f"the query {str(text)[:80]!r} has no word: no results for it")
    return frame[usable]


def candidates_of(results: pd.DataFrame) -> dict[str, list[str]]:
    """Each query's candidate documents of a results frame, in its order (topic ids canonical)."""
    grouped: dict[str, list[str]] = {}
    for qid, docno in zip(results["qid"].astype(str).map(canonical_topic), results["docno"].astype(str)):
        grouped.setdefault(qid, []).append(docno)
    return grouped


def carried(results: pd.DataFrame, given: pd.DataFrame) -> pd.DataFrame:
    """``results`` with the documents' own columns of ``given`` (a text, features) carried over
    to the documents both hold: a stage re-scores, it does not forget what came with a document."""
    if "docno" not in given.columns or "docno" not in results.columns:
        return results
    extra = [c for c in given.columns if c not in results.columns and c not in DOCUMENT_COLUMNS]
    if not extra:
        return results
    pairs = given.assign(qid=given["qid"].astype(str), docno=given["docno"].astype(str))
    return results.assign(qid=results["qid"].astype(str), docno=results["docno"].astype(str)).merge(
        pairs[["qid", "docno", *extra]].drop_duplicates(["qid", "docno"]), on=["qid", "docno"], how="left")


def only_candidates(results: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    """A re-ranker's results kept to the candidates it was given (a stage that searches again,
    RM3 or a fusion, may bring others), with each candidate's own columns (a text a stage before
    loaded, features) carried over."""
    pairs = candidates.assign(qid=candidates["qid"].astype(str), docno=candidates["docno"].astype(str))
    extra = [c for c in pairs.columns if c not in results.columns and c not in ("score", "rank")]
    merged = results.assign(qid=results["qid"].astype(str), docno=results["docno"].astype(str)).merge(
        pairs[["qid", "docno", *extra]].drop_duplicates(["qid", "docno"]), on=["qid", "docno"], how="inner")
    if "rank" in merged.columns:  # ranks again from 0 in each query, as the results were ordered
        merged["rank"] = merged.groupby("qid", sort=False).cumcount().astype(np.int64)
    return merged


DOCUMENT_COLUMNS = ("docno", "score", "rank", "stance")


def queries_part(frame: pd.DataFrame) -> pd.DataFrame:
    """What a results frame carries of its queries (one row per qid): PyTerrier keeps them along.
    A column that differs between a query's rows (a text a loader added, a feature) is the
    documents', not the query's, and stays out (it once gave every result its first one's text)."""
    columns = [c for c in frame.columns if c not in DOCUMENT_COLUMNS]
    if "qid" not in columns or frame.empty:
        return frame[columns].drop_duplicates("qid").reset_index(drop=True) if "qid" in columns else frame[columns]
    groups = frame["qid"].astype(str)
    kept = []
    for column in columns:
        values = frame[column]
        try:
            varies = (values.groupby(groups, sort=False).nunique(dropna=False) > 1).any()
        except TypeError:  # lists, dicts: compared as text
            varies = (values.map(repr).groupby(groups, sort=False).nunique() > 1).any()
        if column == "qid" or not varies:
            kept.append(column)
    return frame[kept].drop_duplicates("qid").reset_index(drop=True)


def as_frame(ranking: Ranking, queries: pd.DataFrame) -> pd.DataFrame:
    """A ranking as a results frame: the queries' columns, docno, score and rank from 0."""
    canonical = {canonical_topic(str(q)): str(q) for q in queries["qid"]}
    rows = [(canonical.get(qid, qid), docno, float(score), rank)
            for qid, hits in ranking.items() for rank, (docno, score) in enumerate(hits)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])
    frame["rank"] = frame["rank"].astype(np.int64)
    return queries_part(queries).astype({"qid": str}).merge(frame, on="qid", how="inner")


def as_ranking(frame: pd.DataFrame) -> Ranking:
    """A results frame as a ranking: per topic (in the frame's order) best score first; a
    transformer between two stages may have re-scored it (pt.apply), so scores decide, and
    equal scores keep their order (the rank column, else the frame's)."""
    if frame.empty:
        return {}
    missing = [c for c in ("qid", "docno", "score") if c not in frame.columns]
    if missing:
        raise InputError(f"a results frame needs the columns qid, docno, score; missing: {', '.join(missing)}")
    qids = frame["qid"].astype(str).map(canonical_topic).to_numpy()
    order_of_topic = {q: i for i, q in enumerate(dict.fromkeys(qids))}
    tie = frame["rank"].to_numpy() if "rank" in frame.columns else np.arange(len(frame))
    scores = frame["score"].to_numpy(dtype=float)
    order = np.lexsort((np.arange(len(frame)), tie, -scores, np.array([order_of_topic[q] for q in qids])))
    ranking: Ranking = {}
    docnos = frame["docno"].astype(str).to_numpy()
    for i in order:
        ranking.setdefault(qids[i], []).append((docnos[i], float(scores[i])))
    return ranking
