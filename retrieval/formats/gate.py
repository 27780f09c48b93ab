"""The input gate: every run, qrels and topics input a command or the Python API reads enters here.

One function per input kind checks the input, makes its topic ids canonical (``01`` is topic 1)
and returns one typed object; no command or API function parses these formats another way.

=======================================  ===============  =====================================
input                                    function         returns
=======================================  ===============  =====================================
run: a file, our frame, PyTerrier's      ``load_run``     ``RunTable`` (valid, or InputError)
qrels: a file, ir_measures' or           ``load_qrels``   ``Qrels`` (files parsed once per
PyTerrier's frame                                         version)
topics: XML, BEIR ``queries.jsonl``,     ``load_topics``  ``list[Topic]``
PyTerrier's queries frame
=======================================  ===============  =====================================

A frame is first turned into the text its file would hold (a run ranked by score as the run-file
writer ranks it, ties by its rank column, else by document id; qrels and topics as written) and then read by the same
parser as a file, so a frame cannot be scored where its file would be refused. A run file is read
by pandas when that is certainly safe (``runtable.fast_table``) and by the line validator
otherwise; the validator's messages are the only ones a user sees.

The two other input kinds have their gates beside the code that knows them: corpus files and
lists (``indexing/corpora.py``: ``check_corpus_files``) and model files (``retrieval/preflight.py``).
"""
from __future__ import annotations

import functools
import io
import math
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeGuard, Union

import numpy as np
import pandas as pd

from touche import sources
from touche.bounds import SCORE_LIMIT, is_number
from touche.errors import InputError
from touche.inputs import printable_label
from touche.retrieval.formats.qrels import READERS, Qrels, QrelsKind, detect_qrels_kind, parse_kind
from touche.retrieval.formats.runfile import (
    COMPARATIVE_STANCES,
    RunFormat,
    RunRow,
    canonical_topic,
    detect_format,
    natural_key,
    problems_and_rows,
)
from touche.retrieval.formats.runtable import RunTable, fast_table
from touche.retrieval.formats.runwriter import WrittenRun, ranked_rows
from touche.retrieval.formats.topics import Topic, read_topics, topics_from_records

__all__ = ["load_run", "read_run", "load_qrels", "load_topics", "RUN_LAYOUTS", "QRELS_LAYOUTS", "run_layout",
           "is_frame"]

PathLike = Union[str, "os.PathLike[str]"]

# (topic, document) column names of a run frame: ours (ir_measures' names) and PyTerrier's
RUN_LAYOUTS = {"touche": ("query_id", "doc_id"), "pyterrier": ("qid", "docno")}
# (topic, document, label) of a qrels frame: ir_measures' and PyTerrier's
QRELS_LAYOUTS = {"ir_measures": ("query_id", "doc_id", "relevance"), "pyterrier": ("qid", "docno", "label")}


def is_frame(value: Any) -> TypeGuard[pd.DataFrame]:
    return isinstance(value, pd.DataFrame)


# --------------------------------------------------------------------------- runs
def load_run(source: PathLike | pd.DataFrame | WrittenRun, fmt: RunFormat | str | None = None, *,
             name: str | None = None) -> RunTable:
    """A run that passes validation, as columns (file order; a frame in the order its file
    would hold); InputError naming the first errors otherwise: an invalid run is never scored.

    ``source``: a run file, a run the writer wrote (``WrittenRun``), or a frame in our layout
    (``query_id, doc_id, score`` and optionally ``stance``) or PyTerrier's (``qid, docno,
    score``; ``query`` is ignored). A frame is ranked by score as its file would be; equal scores
    keep the order of its ``rank`` column (a run file read into a frame keeps its ranks), or else
    go by document id. ``fmt`` is detected unless given (a frame's ``attrs["run_format"]`` counts
    as given)."""
    if is_frame(source):
        raw, fmt, label = _frame_run_text(source, fmt, name)
        return _table(raw, fmt, label, "line of the run file the frame makes")
    if isinstance(source, WrittenRun):  # what the writer wrote, from memory: a stream is never read back
        return _table(source.text, source.fmt, source.label, "line")
    if isinstance(source, RunTable):  # already through the gate
        return source
    path = Path(source)
    if path.is_dir():
        raise InputError("is a folder, not a run file", path=path)
    if not sources.exists(path):  # a file, or a pipe (<(cat run.txt))
        raise InputError("run file not found", path=path)
    with sources.reading():  # a pipe is read once, for the format's detection and the rows alike
        fmt = RunFormat.parse(fmt) if fmt is not None else detect_format(path)
        return _table(sources.read_bytes(path, "run file"), fmt, str(path), "line")


def read_run(source: PathLike | pd.DataFrame, fmt: RunFormat | str | None = None) -> list[RunRow]:
    """``load_run``'s rows as ``RunRow`` records, in file order."""
    return load_run(source, fmt).records()


def _table(raw: bytes, fmt: RunFormat, label: str, unit: str) -> RunTable:
    fast = fast_table(raw, fmt)
    if fast is not None:
        return fast
    try:
        lines = enumerate(io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig"), start=1)  # as open() splits
        problems, rows = problems_and_rows(lines, fmt, None)
    except UnicodeDecodeError as error:
        raise InputError(f"run file is not UTF-8 text ({error.reason})", path=label) from None
    errors = [p for p in problems if p.is_error]
    if errors:
        first, more = errors[0], len(errors) - 1
        notes = ([f"and {more} more error(s)"] if more else []) + \
            ([f"touche validate {label} lists every problem"] if unit == "line" else [])
        raise InputError(f"not a valid {fmt.name} run, so not scored: {first.message}"
                         + (f" ({'; '.join(notes)})" if notes else ""),
                         path=label, where=f"{unit} {first.line}" if first.line is not None else None)
    return RunTable.from_rows(rows, fmt)


def run_layout(frame: pd.DataFrame, what: str = "run frame") -> tuple[str, str]:
    """The (topic, document) columns of a run frame: ours or PyTerrier's; a located error else."""
    found = [cols for cols in RUN_LAYOUTS.values() if set(cols) <= set(frame.columns)]
    if len(found) != 1 or "score" not in frame.columns:
        wanted = " or ".join(f"{', '.join(cols)}, score" for cols in RUN_LAYOUTS.values())
        problem = "both layouts" if len(found) > 1 else f"the columns {', '.join(map(str, frame.columns)) or 'none'}"
        raise InputError(f"a {what} needs the columns {wanted}; it has {problem}")
    return found[0]


def topic_id(value: Any) -> str:
    """A frame's topic id as a run file writes it: 1.0 (pandas makes int columns with gaps float)
    is topic 1, not "1.0"; ValueError (why) for a bool or a number that is not whole, which no
    topic is (a run frame once wrote topics "True" and "1.5")."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError("is a truth value, not a topic id")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or not float(value).is_integer():
            raise ValueError("is a number that is not whole, which no topic id is")
        return str(int(value))
    return str(value)


def _topic_of_row(value: Any, number: int, label: str) -> str:
    try:
        return topic_id(value)
    except ValueError as why:
        raise InputError(f"topic id {value!r} {why}", path=label, where=f"row {number}") from None


def frame_format(frame: pd.DataFrame, stances: Sequence[Any]) -> RunFormat:
    """A frame's run format: as ``search()`` recorded it, else guessed from its columns."""
    if "run_format" in frame.attrs:
        return RunFormat.parse(frame.attrs["run_format"])
    labels = {s for s in stances if s is not None}
    topic, doc = run_layout(frame)
    if any("," in str(d) for d in frame[doc]):
        return RunFormat.PAIRS
    if labels & set(COMPARATIVE_STANCES):
        return RunFormat.STANCE
    if labels and labels <= {"PRO", "CON"}:
        return RunFormat.IMAGE
    return RunFormat.Q0


def frame_rows(frame: pd.DataFrame, fmt: RunFormat | str | None = None, *, name: str | None = None,
               tag: str = "run") -> tuple[list[RunRow], RunFormat]:
    """A run frame's rows as its run file would hold them (canonical topic ids, ranked by score,
    ties by the frame's ``rank`` column if it has one, else by document id, cut to the format's
    depth): the run-file writer's ranking."""
    label = f"run frame {name!r}" if name else "run frame"
    topic, doc = run_layout(frame, label)
    ties = "docid"
    if "rank" in frame.columns and len(frame):
        ranks = frame["rank"]
        if ranks.dtype == object and all(is_number(r) for r in ranks):  # ints a list of objects made
            ranks = pd.to_numeric(ranks)
        numeric = pd.api.types.is_numeric_dtype(ranks) and not pd.api.types.is_bool_dtype(ranks)
        if not numeric or ranks.isna().any():
            row = int(np.flatnonzero(ranks.isna().to_numpy())[0]) if numeric else 0
            raise InputError(f"the rank column must hold numbers (got {ranks.dtype} values such as "
                             f"{printable_label(str(ranks.iloc[row]))!r})", path=label, where=f"row {row + 1}")
        frame, ties = frame.iloc[np.argsort(ranks.to_numpy(), kind="stable")], "given"
    stances = frame["stance"].tolist() if "stance" in frame.columns else [None] * len(frame)
    fmt = RunFormat.parse(fmt) if fmt is not None else frame_format(frame, stances)
    grouped: dict[str, list[tuple]] = {}
    for number, (qid, docid, score, stance) in enumerate(zip(frame[topic].tolist(), frame[doc].tolist(),
                                                             frame["score"].tolist(), stances), start=1):
        if _missing(qid) or _missing(docid):
            raise InputError(f"row {number}: the {'topic' if _missing(qid) else 'document'} id is missing", path=label)
        entry = (str(docid), score) if _missing(stance) else (str(docid), score, str(stance))
        grouped.setdefault(canonical_topic(_topic_of_row(qid, number, label)), []).append(entry)
    return ranked_rows(grouped, fmt, tag, where=label, ties=ties), fmt


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _frame_run_text(frame: pd.DataFrame, fmt, name) -> tuple[bytes, RunFormat, str]:
    label = f"run frame {name or frame.attrs.get('name') or ''}".rstrip()
    fast = _text_by_columns(frame, fmt)
    if fast is not None:
        return fast[0], fast[1], label
    rows, fmt = frame_rows(frame, fmt, name=name or frame.attrs.get("name"))
    # repr() is the shortest text that reads back as the same float, as the writer writes it
    text = "".join(f"{r.qid} {r.column2} {r.docid} {r.rank} {r.score!r} {r.tag}\n" for r in rows)
    return text.encode("utf-8"), fmt, label


def _text_by_columns(frame: pd.DataFrame, fmt) -> tuple[bytes, RunFormat] | None:
    """The text ``frame_rows`` makes of a frame (the same bytes), computed column by column where
    every row is plainly fine: ids that are text without whitespace (or whole numbers), finite
    scores within bounds, stances the format allows, no document twice in a topic; None where any
    row needs the row-by-row checks, whose errors name it. Gating a 40,000-row frame row by row
    took 0.3 s of CPU, four times its file (``pt.Experiment`` gates one frame per run)."""
    try:
        topic, doc = run_layout(frame)
    except InputError:
        return None
    if frame.empty:
        return None
    ties = "docid"
    order = np.arange(len(frame))
    if "rank" in frame.columns:
        ranks = frame["rank"]
        if not pd.api.types.is_numeric_dtype(ranks) or pd.api.types.is_bool_dtype(ranks) or ranks.isna().any():
            return None
        order, ties = np.argsort(ranks.to_numpy(), kind="stable"), "given"
    frame = frame.iloc[order]
    qids = _plain_ids(frame[topic], numbers=True)
    docids = _plain_ids(frame[doc], numbers=False)
    scores = frame["score"]
    if qids is None or docids is None or not pd.api.types.is_float_dtype(scores) and not \
            (pd.api.types.is_integer_dtype(scores) and not pd.api.types.is_bool_dtype(scores)):
        return None
    values = scores.to_numpy(dtype=float)
    if not np.isfinite(values).all() or (np.abs(values) > SCORE_LIMIT).any():
        return None
    if "stance" in frame.columns:
        stance_list = frame["stance"].tolist()
        if not all(isinstance(s, str) for s in stance_list):
            return None
    else:
        stance_list = [None] * len(frame)
    fmt = RunFormat.parse(fmt) if fmt is not None else frame_format(frame, stance_list)
    column2 = pd.Series([fmt.default_column2 if s is None else s for s in stance_list], index=frame.index,
                        dtype=object)
    if not column2.isin(fmt.column2_values).all():
        return None
    canonical = qids.map({q: canonical_topic(q) for q in qids.unique()})
    table = pd.DataFrame({"qid": canonical.to_numpy(), "column2": column2.to_numpy(), "docid": docids.to_numpy(),
                          "score": values, "given": np.arange(len(frame))})
    if table.duplicated(["qid", "docid"]).any():
        return None
    keys = ["qid", "column2"] if fmt is RunFormat.IMAGE else ["qid"]
    stance_order = {value: index for index, value in enumerate(fmt.column2_values)}
    groups = table[keys].drop_duplicates()  # in order of first appearance, which breaks ties of the key
    sort_keys = [(natural_key(q), *((stance_order[c],) if fmt is RunFormat.IMAGE else ()), i)
                 for i, (q, c) in enumerate(zip(groups["qid"], groups["column2"] if fmt is RunFormat.IMAGE
                                                else groups["qid"]))]
    position = np.empty(len(groups), dtype=np.int64)
    position[[k[-1] for k in sorted(sort_keys)]] = np.arange(len(groups))
    table = table.merge(groups.assign(group=position), on=keys, how="left")
    tie = ["given"] if ties == "given" else ["docid", "given"]
    table = table.sort_values(["group", "score", *tie], ascending=[True, False, *[True] * len(tie)], kind="stable")
    table["rank"] = table.groupby("group", sort=False).cumcount() + 1
    table = table[table["rank"] <= fmt.max_per_group]
    lines = [f"{q} {c} {d} {r} {v!r} run\n" for q, c, d, r, v in
             zip(table["qid"].tolist(), table["column2"].tolist(), table["docid"].tolist(), table["rank"].tolist(),
                 table["score"].tolist())]
    return "".join(lines).encode("utf-8"), fmt


_WHITESPACE = re.compile(r"\s")


def _plain_ids(column: pd.Series, *, numbers: bool) -> pd.Series | None:
    """A column of ids as text where each is plainly one (text without whitespace; with
    ``numbers``, whole numbers too, as ``topic_id`` writes them); None where one is not."""
    if pd.api.types.is_integer_dtype(column) and not pd.api.types.is_bool_dtype(column) and numbers:
        return column.astype(str)
    if pd.api.types.is_float_dtype(column) and numbers:
        values = column.to_numpy()
        if not np.isfinite(values).all() or not (values == np.round(values)).all():
            return None
        return pd.Series([str(int(v)) for v in values.tolist()], index=column.index, dtype=object)
    if column.dtype != object and not pd.api.types.is_string_dtype(column):
        return None
    text = column.astype(object)
    if not all(isinstance(v, str) for v in text.tolist()):
        return None
    if any(not v or _WHITESPACE.search(v) for v in text.tolist()):
        return None
    return text


# --------------------------------------------------------------------------- qrels
def load_qrels(source: PathLike | pd.DataFrame | Qrels, kind: QrelsKind | str | None = None, *,
               name: str | None = None) -> Qrels:
    """Qrels of any kind (detected unless given), topic ids canonical; a file is parsed once per
    version of it (several runs are scored against one file, a page reads it for several
    purposes). ``source``: a file, a ``Qrels``, or a frame in ir_measures' layout (``query_id,
    doc_id, relevance``) or PyTerrier's (``qid, docno, label``); an image qrels frame adds
    ``aspect`` (ONTOPIC, PRO, CON)."""
    if isinstance(source, Qrels):
        return source
    if is_frame(source):
        lines, label = _frame_qrels_lines(source, name)
        kind = detect_qrels_kind(lines, label=label) if kind is None else parse_kind(kind)
        return Qrels(kind, READERS[kind](lines, label=label), label)
    path = Path(source)
    try:
        stat = path.stat()
    except OSError:
        stat = None
    if stat is None or not path.is_file():
        with sources.reading():  # a pipe is read once, for the kind's detection and the judgements alike
            return _read_qrels(path, kind)  # or its located error (not found, a folder)
    return _cached_qrels(path.resolve(), stat.st_mtime_ns, stat.st_size, None if kind is None else parse_kind(kind))


def _read_qrels(path: Path, kind) -> Qrels:
    if path.is_dir():
        raise InputError("is a folder, not a qrels file", path=path)
    kind = detect_qrels_kind(path) if kind is None else parse_kind(kind)
    return Qrels(kind, READERS[kind](path), str(path))


@functools.lru_cache(maxsize=16)
def _cached_qrels(path: Path, mtime_ns: int, size: int, kind: QrelsKind | None) -> Qrels:
    return _read_qrels(path, kind)


def _frame_qrels_lines(frame: pd.DataFrame, name: str | None) -> tuple[list[tuple[int, str]], str]:
    label = f"qrels frame {name!r}" if name else "qrels frame"
    found = [cols for cols in QRELS_LAYOUTS.values() if set(cols) <= set(frame.columns)]
    if len(found) != 1:
        wanted = " or ".join(", ".join(cols) for cols in QRELS_LAYOUTS.values())
        raise InputError(f"a qrels frame needs the columns {wanted}; it has "
                         f"{', '.join(map(str, frame.columns)) or 'none'}", path=label)
    topic, doc, value = found[0]
    aspects = frame["aspect"].tolist() if "aspect" in frame.columns else ["0"] * len(frame)
    lines = []
    for number, (qid, docid, relevance, aspect) in enumerate(zip(frame[topic].tolist(), frame[doc].tolist(),
                                                                 frame[value].tolist(), aspects), start=1):
        if any(_missing(v) for v in (qid, docid, relevance)):
            raise InputError(f"topic, document and label must each be one word; got {[qid, aspect, docid, relevance]}",
                             path=label, where=f"row {number}")
        fields = [_topic_of_row(qid, number, label), str(aspect), str(docid), _label_text(relevance)]
        if any(not f or len(f.split()) != 1 for f in fields):
            raise InputError(f"topic, document and label must each be one word; got {fields}", path=label,
                             where=f"row {number}")
        lines.append((number, " ".join(fields) + "\n"))
    return lines, label


def _label_text(value: Any) -> str:
    """A frame's label as its file would write it: 2.0 (a float column) is 2; a truth value or a
    number that is not whole as written, for the qrels reader to refuse as it refuses a file's
    (a label 1.5 once raised a bare ValueError about topic ids)."""
    try:
        return topic_id(value)
    except ValueError:
        return str(value)


# --------------------------------------------------------------------------- topics
def load_topics(source: PathLike | pd.DataFrame | Iterable[Topic]) -> list[Topic]:
    """Topics in file order: a Touché topics XML file (or the ``topics.xml`` of a TIRA folder),
    BEIR's ``queries.jsonl``, or a PyTerrier queries frame (``qid``, ``query`` or ``title``, and
    optionally ``description``, ``narrative``, ``objects``), under the same rules (whole,
    distinct topic numbers)."""
    if is_frame(source):
        return topics_from_records(source.to_dict(orient="records"), label="queries frame")
    if isinstance(source, (str, os.PathLike)):
        return read_topics(source)
    topics = list(source)
    if not all(isinstance(t, Topic) for t in topics):
        raise InputError("topics must be a file, a queries frame or Topic records")
    return topics
