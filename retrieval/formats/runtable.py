"""A run as columns: read at library speed, and turned into rows only where a measure needs them.

Why: the validator (``runfile.problems_and_rows``) looks at every line in Python (about 8 µs a line)
and every ``RunRow`` costs about 1.5 µs to build, so 5 runs of 1,000 topics × 1,000 documents took
40 s to read before any scoring, although Touché's measures look at the first 5 of each topic.

* ``fast_table`` is the input gate's fast path (``formats/gate.py`` is the only caller): it reads
  with pandas' C parser and checks the rules vectorised. It only decides whether the file is
  certainly free of errors (a tab separates as a space does); when it is not sure (a quote, a
  double space, a line pandas cannot split, any rule broken) the validator reads the file, so its
  located messages stay the only ones. It accepts nothing the validator refuses and reads what
  it accepts as the validator does (tests/formats/test_gate.py: a Hypothesis differential test on
  generated and mutated files). Q0 and STANCE runs only: pair and image runs have id rules of their
  own and are small (at most 1,000 pairs or 20 images a topic).
* ``RunTable.select(need, judged)`` builds the rows a set of measures needs (``RowNeed``: each
  measure family declares it, ``registry.MeasureFamily.rows_needed``): the first k by rank, the
  k best by score, the judged ones, or all.
"""
from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from touche.bounds import SCORE_LIMIT
from touche.retrieval.formats.runfile import (
    CONTROL,
    MAX_RANK_DIGITS,
    SCORE,
    RunFormat,
    RunRow,
    canonical_topic,
    natural_key,
)

FAST_FORMATS = (RunFormat.Q0, RunFormat.STANCE)
COLUMNS = ["qid", "column2", "docid", "rank", "score", "tag"]
# Bytes a plain run line holds: printable ASCII but the double quote (a quoted tag may hold
# spaces), the space and the line end. Anything else sends the file to the validator.
_PLAIN = bytes(range(0x20, 0x7F)).replace(b'"', b"") + b"\n"
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class RowNeed:
    """Which rows of a run a measure looks at: those ranked ≤ ``rank_depth`` (rank column), the
    ``score_depth`` best by score per topic (ties at the cut kept), the judged ones, or ``every``."""
    rank_depth: int = 0
    score_depth: int = 0
    judged: bool = False
    every: bool = False

    def __or__(self, other: "RowNeed") -> "RowNeed":
        return RowNeed(max(self.rank_depth, other.rank_depth), max(self.score_depth, other.score_depth),
                       self.judged or other.judged, self.every or other.every)


EVERY_ROW = RowNeed(every=True)


class RunTable:
    """A validated run's rows as columns (file order; topic ids canonical: ``001`` is ``1``)."""

    def __init__(self, frame: pd.DataFrame, fmt: RunFormat):
        self.frame = frame.reset_index(drop=True)
        self.format = fmt
        self._order: tuple[np.ndarray, np.ndarray] | None = None
        self._coded: dict[str, tuple[np.ndarray, pd.Index]] = {}

    def __len__(self) -> int:
        return len(self.frame)

    @classmethod
    def from_rows(cls, rows: Iterable[RunRow], fmt: RunFormat) -> "RunTable":
        rows = list(rows)
        frame = pd.DataFrame({"qid": [r.qid for r in rows], "column2": [r.column2 for r in rows],
                              "docid": [r.docid for r in rows], "rank": np.array([r.rank for r in rows], np.int64),
                              "score": np.array([r.score for r in rows], float), "tag": [r.tag for r in rows]})
        return cls(canonical_frame(frame), fmt)

    def records(self, mask: np.ndarray | None = None) -> list[RunRow]:
        frame = self.frame if mask is None else self.frame[mask]
        return list(map(RunRow, frame["qid"].tolist(), frame["column2"].tolist(), frame["docid"].tolist(),
                        frame["rank"].tolist(), frame["score"].tolist(), frame["tag"].tolist()))

    def topics(self) -> set[str]:
        return set(self.frame["qid"].unique().tolist())

    def keeping(self, docids: set[str]) -> "RunTable":
        """The run as if retrieved from a collection of ``docids`` only: the other rows dropped,
        the rest in their order, ranked 1, 2, … again (the docs' "restricted" official runs)."""
        mask = self.frame["docid"].isin(docids).to_numpy()
        if mask.all():
            return self
        order, _ = self._ranked()
        kept = self.frame.iloc[order[mask[order]]].copy()
        group = [kept["qid"]] + ([kept["column2"]] if self.format is RunFormat.IMAGE else [])
        kept["rank"] = kept.groupby(group, sort=False).cumcount().to_numpy(np.int64) + 1
        return RunTable(kept, self.format)

    def restricted(self, keeps) -> "RunTable":
        """The rows of the topics ``keeps(topic)`` keeps (a topic selection's), still as columns."""
        kept = [t for t in self.topics() if keeps(t)]
        mask = self.frame["qid"].isin(kept).to_numpy()
        return self if mask.all() else RunTable(self.frame[mask], self.format)

    def mask(self, need: RowNeed, judged: Mapping[str, Mapping[str, object]] | None = None) -> np.ndarray | None:
        """The rows ``need`` asks for (None: all of them)."""
        if need.every:
            return None
        frame = self.frame
        keep = np.zeros(len(frame), bool)
        if need.rank_depth:
            keep |= frame["rank"].to_numpy() <= need.rank_depth
        if need.score_depth:
            keep |= self._best_by_score(need.score_depth)
        if need.judged and judged:
            keep |= self.judged_mask(judged)
        return keep

    def select(self, need: RowNeed, judged: Mapping[str, Mapping[str, object]] | None = None) -> list[RunRow]:
        return self.records(self.mask(need, judged))

    def subset(self, need: RowNeed, judged: Mapping[str, Mapping[str, object]] | None = None) -> "RunTable":
        """The rows ``need`` asks for, still as columns."""
        keep = self.mask(need, judged)
        return self if keep is None else RunTable(self.frame[keep], self.format)

    def judged_mask(self, judged: Mapping[str, Mapping[str, object]]) -> np.ndarray:
        """Rows whose (topic, document) is judged: the table's ids are coded once and the judged
        ones looked up in the codes, two lookups in all (a million rows are not a million strings
        to join, nor fifty topics fifty lookups)."""
        (topic, topics), (doc, docs) = self._codes("qid"), self._codes("docid")
        judged_topics = np.repeat(topics.get_indexer(list(judged)), [len(d) for d in judged.values()])
        judged_docs = docs.get_indexer(list(itertools.chain.from_iterable(judged.values())))
        known = (judged_topics >= 0) & (judged_docs >= 0)  # an id the run lacks matches nothing
        width = len(docs)
        wanted = judged_topics[known].astype(np.int64) * width + judged_docs[known]
        return pd.Series(topic * width + doc).isin(wanted).to_numpy()  # a hash lookup, not a sort

    def rows_of(self, qids: Sequence[str], docids: Sequence[str]) -> np.ndarray:
        """For each (topic, document) given as two aligned sequences, the first row that holds it
        (-1 where none): one lookup in the table's codes for a whole page of documents."""
        (topic, topics), (doc, docs) = self._codes("qid"), self._codes("docid")
        wanted_topic, wanted_doc = topics.get_indexer(qids), docs.get_indexer(docids)
        width = len(docs)
        keys, first_rows = np.unique(topic * width + doc, return_index=True)
        if not len(keys):
            return np.full(len(wanted_topic), -1)
        wanted = wanted_topic.astype(np.int64) * width + wanted_doc
        place = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        found = (wanted_topic >= 0) & (wanted_doc >= 0) & (keys[place] == wanted)
        return np.where(found, first_rows[place], -1)

    def _codes(self, column: str) -> tuple[np.ndarray, pd.Index]:
        if column not in self._coded:
            codes, uniques = pd.factorize(self.frame[column])
            self._coded[column] = (codes.astype(np.int64), pd.Index(uniques))
        return self._coded[column]

    def _best_by_score(self, k: int) -> np.ndarray:
        """Each ranked group's rows scored at least as high as its k-th best, ties at the cut kept
        as trec_eval ties them: as 32-bit floats (its scores are C floats, so 27.806717871351506
        and 27.806717649073345 tie and are ordered by document id; a cut at the 64-bit value
        dropped the second, and trec.nDCG@5 asked alone differed from the same measure asked with
        AP). A valid run's scores do not increase down its ranking, so its k-th by rank is its
        k-th best (image runs rank per topic and stance: their measures read every row)."""
        order, group_start = self._ranked()
        scores = self.frame["score"].to_numpy()[order].astype(np.float32)
        starts = np.flatnonzero(np.arange(len(order)) == group_start)
        sizes = np.diff(np.r_[starts, len(order)])
        cut_place = starts + np.minimum(k, sizes) - 1  # the k-th row of each group (or its last)
        threshold = np.repeat(scores[cut_place], sizes)
        keep = np.zeros(len(order), bool)
        keep[order] = scores >= threshold
        return keep

    def head(self, top: int) -> pd.DataFrame:
        """The first ``top`` rows of each ranked group (a topic; a topic and stance for images) in
        rank order, ties by score: what a page shows."""
        order, group_start = self._ranked()
        position = np.arange(len(order)) - group_start  # the row's place in its group
        return self.frame.iloc[order[position < top]]

    def tied_topics(self, k: int) -> list[str]:
        """The topics whose first ``k`` rows by rank, and the row after the cut, hold two equal scores
        (as trec_eval reads them: 32-bit floats), in topic order: where evaluators that order by rank
        and by score read different top ``k`` (images: per topic and stance)."""
        order, group_start = self._ranked()
        inside = order[(np.arange(len(order)) - group_start) <= k]
        if not len(inside):
            return []
        head = self.frame.iloc[inside]
        keys = [head["qid"], head["score"].to_numpy().astype(np.float32)] + \
            ([head["column2"]] if self.format is RunFormat.IMAGE else [])
        tied = pd.DataFrame(dict(enumerate(keys))).duplicated().to_numpy()
        return sorted(set(head["qid"].to_numpy()[tied].tolist()), key=natural_key)

    def _ranked(self) -> tuple[np.ndarray, np.ndarray]:
        """Row order by group, rank, score descending (integer codes: sorting ids as strings is
        slow), and for each place in that order the first place of its group; computed once."""
        if self._order is None:
            frame = self.frame
            codes = [self._codes("qid")[0]]
            if self.format is RunFormat.IMAGE:  # stances in the format's order (PRO, CON), whatever the file's
                codes.append(frame["column2"].map({s: i for i, s in enumerate(self.format.column2_values)})
                             .to_numpy(dtype=np.int64))
            order = _sorted_order(codes, frame["rank"].to_numpy(), frame["score"].to_numpy())
            group = codes[0][order] if len(codes) == 1 else codes[0][order] * (codes[1].max() + 1) + codes[1][order]
            starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
            self._order = (order, np.repeat(starts, np.diff(np.r_[starts, len(order)])))
        return self._order


def canonical_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Topic ids as numbers where they are (``runfile.canonical_topic``), once per distinct id."""
    qids = frame["qid"].astype(str)
    renamed = {q: c for q in qids.unique().tolist() if (c := canonical_topic(q)) != q}
    return frame.assign(qid=qids.replace(to_replace=renamed)) if renamed else frame.assign(qid=qids)


# Scores pandas' float parser reads that the validator refuses: booleans in any case (True → 1.0;
# measured over 150,000 generated strings of digits, signs, dots, exponents and letters, the only
# other difference is inf/infinity, which the finiteness check refuses). A file holding these
# letters anywhere reads its scores as text and checks them against the validator's grammar.
_BOOLEAN_WORDS = (b"true", b"false")
# An empty field (two spaces, a space at a line's start or end): the validator splits on runs of
# whitespace and sees a line of other columns; pandas would read an empty id.
_EMPTY_FIELD = (b"  ", b"\n ", b" \n", b" \r")


def fast_table(raw: bytes, fmt: RunFormat) -> "RunTable | None":
    """The run in ``raw`` as columns when pandas can read it and every rule holds; None to ask
    the validator (which is then the only one to speak). A table returned here is what the
    validator reads, row for row (tests/formats/test_gate.py holds it to that with generated files)."""
    if fmt not in FAST_FORMATS:
        return None
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    # The validator splits a line at any whitespace, so a tab-separated run (as many official runs
    # are) splits as its twin with spaces; quotes still send a file to the validator below.
    raw = raw.replace(b"\t", b" ")
    odd = raw.translate(None, _PLAIN)
    if odd and not _only_plain_text(raw, odd):
        return None
    if raw.startswith(b" ") or any(pattern in raw for pattern in _EMPTY_FIELD):
        return None
    lowered = raw.lower()
    textual_scores = any(word in lowered for word in _BOOLEAN_WORDS)
    try:
        frame = pd.read_csv(io.BytesIO(raw), sep=" ", header=None, names=COLUMNS, engine="c", quoting=3,
                            dtype={"qid": str, "column2": str, "docid": str, "rank": str,
                                   "score": str if textual_scores else np.float64, "tag": str},
                            na_filter=False, skip_blank_lines=True, encoding="utf-8")
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
        return None
    if not isinstance(frame.index, pd.RangeIndex):  # one field more on every line: pandas made it the index
        return None
    if textual_scores:
        scores = frame["score"].tolist()
        if not all(map(SCORE.fullmatch, scores)):
            return None
        frame["score"] = np.array(scores, dtype=object).astype(np.float64)  # float() each: as the validator
    # topic ids made canonical first: merging 001 and 1 can only add to what the checks find,
    # never hide a problem, so a file accepted here is accepted by the validator too
    checked = _checked(canonical_frame(frame), fmt)
    if checked is None:
        return None
    frame, coded = checked
    table = RunTable(frame, fmt)
    table._coded.update(coded)  # the ids coded once, for the checks
    return table


def _only_plain_text(raw: bytes, odd: bytes) -> bool:
    """Bytes beyond printable ASCII that still split as the validator splits: CR before LF, and
    UTF-8 text without control characters or whitespace other than the space."""
    if set(odd) <= {0x0D}:
        return raw.count(b"\r") == raw.count(b"\r\n")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    text = text.replace("\r\n", "\n")
    return not (CONTROL.search(text) or re.search(r'[^\S \n]|"', text))


def _checked(frame: pd.DataFrame, fmt: RunFormat) -> tuple[pd.DataFrame, dict] | None:
    """The frame with typed ranks, and its ids' codes, when it breaks no rule; None otherwise."""
    # a line of five fields leaves its tag empty (with fewer, the rank or score fails to parse)
    if frame.empty or (frame["tag"] == "").any():
        return None
    rank_text = frame["rank"].to_numpy(dtype=object)
    # unsigned decimal digits (a sign sends the file to the validator), within int64
    if not all(t.isascii() and t.isdecimal() for t in rank_text) or max(map(len, rank_text)) > MAX_RANK_DIGITS:
        return None
    try:
        ranks = frame["rank"].astype(np.int64).to_numpy()
    except (ValueError, OverflowError):  # digits of another script: the validator reads them
        return None
    scores = frame["score"].to_numpy()
    if (ranks < 0).any() or not np.isfinite(scores).all() or (np.abs(scores) > SCORE_LIMIT).any():
        return None
    if not frame["column2"].isin(fmt.column2_values).all() or frame["tag"].nunique() != 1:
        return None
    topic_codes, topic_ids = pd.factorize(frame["qid"])  # integer codes: sorting ids as strings is slow
    topic = topic_codes.astype(np.int64)
    if np.bincount(topic).max() > fmt.max_per_group:
        return None
    doc_codes, doc_ids = pd.factorize(frame["docid"])
    doc = doc_codes.astype(np.int64)
    if pd.Series(topic * (doc.max() + 1) + doc).duplicated().any():
        return None
    order = _sorted_order([topic], ranks)
    same_topic = topic[order][1:] == topic[order][:-1]
    if (same_topic & (ranks[order][1:] == ranks[order][:-1])).any():
        return None  # a rank used twice in a topic
    if (same_topic & (scores[order][1:] > scores[order][:-1])).any():
        return None  # scores must not increase down a topic's ranking
    return frame.assign(rank=ranks), {"qid": (topic, pd.Index(topic_ids)), "docid": (doc, pd.Index(doc_ids))}


def _sorted_order(groups: Sequence[np.ndarray], ranks: np.ndarray, scores: np.ndarray | None = None) -> np.ndarray:
    """Row order by group, rank and score descending; a file written in that order (as runs are:
    topic by topic, rank by rank) is checked in one pass instead of sorted."""
    if len(groups) == 1 and len(ranks):
        group = groups[0]
        step = np.diff(group)
        if (step >= 0).all() and (np.diff(ranks)[step == 0] > 0).all():
            return np.arange(len(ranks))  # grouped, ranks rising: already the order (ties need none)
    keys = ([-scores] if scores is not None else []) + [ranks] + list(reversed(groups))
    return np.lexsort(keys)

