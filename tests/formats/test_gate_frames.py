"""Frames at the input gate (retrieval/formats/gate.py): a run, qrels or queries frame enters as
the file it makes would. Frames of every score dtype, values at the bounds and generated frames
are refused or read as their files are; a frame's problems are named by row and frame name; its
layout (query_id/doc_id or qid/docno) and format (stance, image or pair ids) follow its columns;
qrels frames read their labels as a file would hold them, and agree with ir_measures' frame of
the same file."""
from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.shared import RELEVANCE
from touche.bounds import SCORE_LIMIT, is_number
from touche.errors import InputError
from touche.retrieval.formats.gate import frame_format, load_qrels, load_run, load_topics, run_layout
from touche.retrieval.formats.runfile import RunFormat

# ------------------------------------------------------------------------ frames of every dtype, values at the bounds
FRAME_DTYPES = ["float64", "float32", "float16", "int64", "uint64", "Int64", "Float64", "category", "bool",
                "boolean", "object", "string", "complex128", "timedelta64[ns]", "datetime64[ns]"]
BOUND_VALUES = [SCORE_LIMIT, -SCORE_LIMIT, 3.4028235e38, 3.5e38, -1e39, 1e300, 0.0, -0.0, 1.5, 2.0 ** 63,
                2.0 ** 64 - 1, float("inf"), float("nan"), 7.0]


def _score_column(dtype: str, values: list[float]):
    """The values in a column of ``dtype`` (None where they cannot be: NaN in an integer column)."""
    try:
        with np.errstate(all="ignore"):
            if dtype == "object":
                return pd.Series(values, dtype=object).map(lambda v: bool(v) if v in (0.0, 1.0) else str(v))
            if dtype == "string":
                return pd.Series([str(v) for v in values], dtype="string")
            if dtype in ("bool", "boolean"):
                return pd.Series([v != 0 for v in values], dtype=dtype)
            if dtype in ("int64", "uint64", "Int64") and not all(np.isfinite(values)):
                return None
            return pd.Series(values).astype(dtype)
    except (ValueError, TypeError, OverflowError):
        return None


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FRAME_DTYPES),
       st.lists(st.sampled_from(BOUND_VALUES) | st.floats(width=64), min_size=1, max_size=5))
def test_a_frame_of_any_score_dtype_is_refused_or_read_as_the_file_of_its_numbers(tmp_path_factory, dtype, values):
    """A frame's scores are taken only when every one is a real number (no bool, no text, no
    time) that is finite and within ±3.4e38 (``touche/bounds.py``); then the frame reads as the
    file holding those numbers does, and that file is accepted too."""
    column = _score_column(dtype, values)
    assume(column is not None)
    frame = pd.DataFrame({"query_id": ["1"] * len(column), "doc_id": [f"d{i}" for i in range(len(column))],
                          "score": column})
    scores = column.tolist()
    acceptable = all(is_number(v) and math.isfinite(float(v)) and abs(float(v)) <= SCORE_LIMIT for v in scores)
    try:
        table = load_run(frame)
    except InputError:
        assert not acceptable, f"refused a frame of {dtype} scores {scores}"
        return
    assert acceptable, f"took a frame of {dtype} scores {scores}"
    path = tmp_path_factory.mktemp("frame") / "run.txt"
    ranked = sorted(zip(frame["doc_id"], map(float, scores)), key=lambda r: (-r[1], r[0]))
    path.write_text("".join(f"1 Q0 {doc} {rank} {score!r} t\n" for rank, (doc, score) in enumerate(ranked, 1)))
    ours = [(r.qid, r.docid, r.rank, r.score) for r in table.records()]
    assert ours == [(r.qid, r.docid, r.rank, r.score) for r in load_run(path).records()]


def test_a_frame_and_the_file_it_writes_are_one_run(tmp_path) -> None:
    from touche import api

    frame = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"],
                          "score": [1.0, 3.0, 2.0, 2.0]})
    written = api.write(frame, tmp_path / "run.txt", "t")

    def ranking(source):
        return [(r.qid, r.column2, r.docid, r.rank, r.score) for r in load_run(source).records()]

    assert ranking(frame) == ranking(written) == [("1", "Q0", "b", 1, 3.0), ("1", "Q0", "a", 2, 1.0),
                                                  ("2", "Q0", "c", 1, 2.0), ("2", "Q0", "d", 2, 2.0)]
    pyterrier = frame.rename(columns={"query_id": "qid", "doc_id": "docno"}).assign(rank=[1, 0, 0, 1])
    assert ranking(pyterrier) == ranking(written)  # PyTerrier's layout, its 0-based ranks ignored


def test_a_frame_mixing_1_and_01_is_refused_as_its_file_would_be(tmp_path) -> None:
    """api.evaluate once scored it (0.9013 → 0.9255; api.experiment a mean of 1.334) while
    api.write refused the same frame."""
    frame = pd.DataFrame({"query_id": ["1", "01"], "doc_id": ["a", "a"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="given twice for topic 1"):
        load_run(frame)


@st.composite
def run_frames(draw) -> pd.DataFrame:
    """Frames as PyTerrier, the API and users make them: ids of several types, tied scores, ranks
    with ties or gaps, stances of every format; in some, a value no run may hold (an id with
    whitespace or empty, a score missing or beyond a 32-bit float, a stance no format allows)."""
    n = draw(st.integers(1, 14))
    dirty = draw(st.integers(0, 3)) == 0
    qid_kind = draw(st.sampled_from(["text", "int", "float", "mixed"]))
    qid_pool = {"text": ["1", "01", "2", "10", "x1"], "int": [1, 2, 10, 3], "float": [1.0, 2.0, 10.0],
                "mixed": ["1", 2, 3.0, "x"]}[qid_kind] + (["q 9", "", 2.5] if dirty else [])
    doc_pool = [f"d{i}" for i in range(20)] + ["I0123456789abcdef", "s1,s2"] + (["e f", ""] if dirty else [])
    score_pool = [1.0, 2.0, 2.0, 0.5, -3.0, 0.0, -0.0, 3] + ([1e39, math.nan] if dirty else [])
    rows = draw(st.lists(st.tuples(st.sampled_from(qid_pool), st.sampled_from(doc_pool), st.sampled_from(score_pool)),
                         min_size=n, max_size=n, unique_by=None if dirty else (lambda r: (str(r[0]), r[1]))))
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    if qid_kind == "int" and frame["qid"].map(lambda q: isinstance(q, int)).all():
        frame["qid"] = frame["qid"].astype(np.int64)
    if draw(st.booleans()):
        frame = frame.assign(rank=draw(st.lists(st.sampled_from([0, 1, 1, 2, 5, 7.0] + ([math.nan] if dirty else [])),
                                                min_size=n, max_size=n)))
    if draw(st.booleans()):
        labels = draw(st.sampled_from([["FIRST", "SECOND", "NEUTRAL", "NO", "Q0"], ["PRO", "CON"],
                                       ["PRO", "CON", "Q0"]]))
        frame = frame.assign(stance=draw(st.lists(st.sampled_from(labels + ([None, "bad"] if dirty else [])),
                                                  min_size=n, max_size=n)))
    if draw(st.booleans()):
        frame = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
    return frame


@given(run_frames())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_frame_gated_by_columns_makes_the_text_its_rows_make(frame: pd.DataFrame) -> None:
    """The column-wise gate of a frame (pt.Experiment gates one frame per run) gives the bytes
    the row-by-row one gives, or leaves the frame to it (whose errors name the row)."""
    from touche.retrieval.formats.gate import _text_by_columns, frame_rows
    try:
        rows, fmt = frame_rows(frame)
        slow = "".join(f"{r.qid} {r.column2} {r.docid} {r.rank} {r.score!r} {r.tag}\n" for r in rows).encode()
    except InputError:
        slow = fmt = None
    fast = _text_by_columns(frame, None)
    if fast is not None:
        assert (fast[0], fast[1]) == (slow, fmt)


def test_plain_frames_take_the_column_wise_gate() -> None:
    from touche.retrieval.formats.gate import _text_by_columns
    plain = pd.DataFrame({"qid": ["2", "1", "1", "10"], "docno": ["a", "b", "c", "a"], "score": [1.0, 2.0, 2.0, 3.0],
                          "rank": [0, 1, 0, 0], "stance": ["FIRST", "NO", "Q0", "SECOND"]})
    text, fmt = _text_by_columns(plain, None)
    assert fmt is RunFormat.STANCE
    assert text.decode().splitlines() == ["1 Q0 c 1 2.0 run", "1 NO b 2 2.0 run", "2 FIRST a 1 1.0 run",
                                          "10 SECOND a 1 3.0 run"]
    assert _text_by_columns(plain.astype({"qid": "str"}), None) == (text, fmt)  # pandas' own string dtype
    assert _text_by_columns(plain.assign(qid=[2, 1, 1, 10]), None) == (text, fmt)
    assert _text_by_columns(plain.assign(docno=["a", "b", "c d", "a"]), None) is None


def test_qrels_from_a_frame_and_from_their_file_are_one_input(tmp_path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 2\n01 0 b 1\n2 0 c 0\n")
    frame = pd.DataFrame({"qid": ["1", "01", "2"], "docno": ["a", "b", "c"], "label": [2, 1, 0]})
    assert load_qrels(path).judgments == load_qrels(frame).judgments == {"1": {"a": 2, "b": 1}, "2": {"c": 0}}
    ir_measures_layout = frame.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    assert load_qrels(ir_measures_layout).judgments == load_qrels(path).judgments


def test_topics_from_a_queries_frame_follow_the_rules_of_a_topics_file() -> None:
    topics = load_topics(pd.DataFrame({"qid": ["1", "2"], "query": ["Is a PC better?", "Mac or PC?"]}))
    assert [(t.number, t.title) for t in topics] == [("1", "Is a PC better?"), ("2", "Mac or PC?")]
    with pytest.raises(InputError, match="again"):
        load_topics(pd.DataFrame({"qid": ["1", "01"], "query": ["a", "b"]}))


# ------------------------------------------------------------------------------ qrels
QRELS_TOPICS = ["1", "01", "2", "002", "x", "\ufeff1"]
QRELS_DOCS = ["a", "b", "c", "a\x00", "d\u2028", "S1a-A2b__PREMISE__3,S1a-A2b__CONC__1"]
LABELS = ["0", "1", "2", "-2", "4.0", "1.5", "FIRST", "x", "01"]


@st.composite
def raw_qrels(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 10))):
        fields = [draw(st.sampled_from(QRELS_TOPICS)), draw(st.sampled_from(["0", "Q0", "PRO"])),
                  draw(st.sampled_from(QRELS_DOCS)), draw(st.sampled_from(LABELS))]
        lines.append(draw(st.sampled_from([" ", "\t", "  "])).join(fields) + draw(st.sampled_from(["\n", "\r\n"])))
    return "".join(lines)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(raw_qrels())
def test_qrels_from_a_file_and_from_ir_measures_frame_of_it_are_refused_or_read_alike(tmp_path_factory, text: str):
    """The gate's two entries for qrels, a file and a frame, refuse or read alike; what the gate
    reads of graded qrels with integer labels is what ir_measures reads, topic ids made canonical."""
    import ir_measures

    from touche.retrieval.formats.runfile import canonical_topic
    path = tmp_path_factory.mktemp("q") / "q.txt"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        from_file = load_qrels(path).judgments
    except InputError:
        from_file = None
    body = text.removeprefix("\ufeff")  # a mark at the file's start is no part of the first topic id
    rows = [line.split() for line in body.splitlines() if line.split()]
    frame = pd.DataFrame([r for r in rows if len(r) == 4], columns=["query_id", "iteration", "doc_id", "relevance"]) \
        if all(len(r) == 4 for r in rows) else None
    if frame is not None and not frame["iteration"].isin(["PRO", "CON", "ONTOPIC"]).any():
        try:
            from_frame = load_qrels(frame.drop(columns="iteration")).judgments
        except InputError:
            from_frame = None
        assert from_frame == from_file
    if from_file is not None and all(r[3].lstrip("-").isdigit() for r in rows):
        reference: dict = {}
        for q in ir_measures.read_trec_qrels(str(path)):
            # ir_measures keeps a file's byte-order mark in its first topic id; the gate does not
            reference.setdefault(canonical_topic(q.query_id.removeprefix("\ufeff")), {})[q.doc_id] = q.relevance
        assert from_file == reference


# --------------------------------------------------------------------------- API frames
def test_api_frames_mixing_1_and_01_are_refused_as_their_file_is(tmp_path):
    from touche import api
    frame = pd.DataFrame({"query_id": ["1", "1", "01"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    for call in (lambda: api.evaluate(frame, RELEVANCE), lambda: api.experiment([frame], RELEVANCE),
                 lambda: api.write(frame, tmp_path / "r.txt", "t")):
        with pytest.raises(InputError, match="given twice for topic 1"):
            call()


@pytest.mark.parametrize("score, refused", [("3.4028234663852886e38", False), ("-3.4028234663852886e38", False),
                                            ("3.5e38", True), ("1e39", True), ("-1e300", True)])
def test_a_score_beyond_a_32_bit_float_is_refused_in_a_file_and_a_frame(tmp_path, score, refused):
    """Scores ×1e39 all became infinite in trec_eval and tied: trec.nDCG@5 0.453 instead of 0.612."""
    from touche.retrieval.formats.gate import load_run
    run = tmp_path / "run.txt"
    run.write_text(f"1 Q0 d1 1 {score} t\n")
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "score": [float(score)]})
    for source in (run, frame):
        if refused:
            with pytest.raises(InputError, match=r"beyond ±3\.4028234663852886e\+38"):
                load_run(source)
        else:
            assert load_run(source).frame["score"].tolist()[0] == float(score)


# --------------------------------------------------------------------------- frames of odd dtypes
@pytest.mark.parametrize("scores", [np.array([True, False]), pd.array([True, False], dtype="boolean"),
                                    np.array([True, False], dtype=object), np.array(["2", "1"], dtype=object),
                                    pd.array(["2", "1"], dtype="string")])
def test_a_frame_scored_by_bools_or_text_is_refused_as_its_file_is(scores):
    """A numpy bool score column was scored (0.857) where the same file is refused."""
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], "score": scores})
    with pytest.raises(InputError, match="is not a number"):
        load_run(frame)


@pytest.mark.parametrize("qid, why", [(True, "is a truth value"), (1.5, "is a number that is not whole"),
                                      (float("inf"), "is a number that is not whole")])
def test_a_frame_topic_id_that_is_no_topic_is_refused_by_row(qid, why):
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1", qid], "doc_id": ["a", "b"], "score": [1.0, 0.5]})
    with pytest.raises(InputError, match=rf"row 2: topic id {qid!r} {why}"):
        load_run(frame)


def test_a_rank_column_of_ints_as_objects_orders_ties():
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 1.0],
                          "rank": pd.Series([2, 1], dtype=object)})
    assert load_run(frame).frame["docid"].tolist() == ["b", "a"]


def test_a_signalling_nan_score_is_named_not_a_bare_error():
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [Decimal("sNaN")]})
    with pytest.raises(InputError, match=r"docid a: score Decimal\('sNaN'\) is not finite"):
        load_run(frame)


# --------------------------------------------------------------------------- the gate's frame paths
def test_a_qrels_frame_row_without_a_topic_or_document_is_refused_with_its_row():
    from touche.retrieval.formats.gate import load_qrels
    for qid, doc in ((None, "d2"), ("1", None), (float("nan"), "d2"), ("1", float("nan"))):
        frame = pd.DataFrame({"query_id": ["1", qid], "doc_id": ["d1", doc], "relevance": [1, 2]})
        with pytest.raises(InputError, match="row 2"):
            load_qrels(frame)


def test_a_run_frame_without_scores_is_a_located_error():
    from touche.retrieval.formats.gate import load_run
    with pytest.raises(InputError, match="needs the columns .*score"):
        load_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"]}))


# --------------------------------------------------------------------------- run frames
def test_a_run_frame_without_scores_is_told_the_columns_it_has():
    """A frame of one layout but no score column is told which columns it has; only a frame of
    both layouts is told it has both."""
    with pytest.raises(InputError, match=r"; it has the columns query_id, doc_id$"):
        run_layout(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}))
    with pytest.raises(InputError, match=r"; it has both layouts$"):
        run_layout(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "qid": ["1"], "docno": ["a"], "score": [1.0]}))


@pytest.mark.parametrize("ranks", [["x", "y"], [1, "2nd"], pd.Series(["1", "2"], dtype=object)])
def test_a_rank_column_holding_words_is_refused_as_no_numbers(ranks):
    """Only numbers rank: words in a rank column (as text, or among numbers in a column of
    objects) are a located error, never read as numbers or a bare pandas error."""
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0], "rank": ranks})
    with pytest.raises(InputError, match=r"the rank column must hold numbers \(got \w+ values such as") as raised:
        load_run(frame)
    assert raised.value.where == "row 1"


def test_a_qrels_frames_errors_carry_its_name():
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": ["maybe"]})
    with pytest.raises(InputError) as raised:
        load_qrels(frame, name="mine")
    assert raised.value.path == "qrels frame 'mine'" and raised.value.where == "row 1"
    with pytest.raises(InputError) as raised:
        load_qrels(frame)
    assert raised.value.path == "qrels frame"


def test_a_qrels_frames_labels_read_as_its_file_would_hold_them():
    """A float column's 2.0 is label 2; 1.5 is refused as a file's label 1.5 is (an InputError on
    its row, not a ValueError about topic ids); a truth value is no label."""
    frame = pd.DataFrame({"qid": [1, 2], "docno": ["a", "b"], "label": [2.0, np.float32(-2.0)]})
    assert load_qrels(frame).judgments == {"1": {"a": 2}, "2": {"b": -2}}
    with pytest.raises(InputError, match=r"relevance label '1\.5' is not an integer") as raised:
        load_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, 1.5]}))
    assert raised.value.where == "row 2"
    with pytest.raises(InputError, match="relevance label '1.5' is not an integer"):
        load_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1.5]}), kind="graded")
    with pytest.raises(InputError, match="cannot tell the qrels format from label 'True'"):
        load_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [True]}))


@pytest.mark.parametrize("docno", ["a b", "", "a\tb"])
def test_a_qrels_frame_field_that_is_not_one_word_is_refused(docno):
    frame = pd.DataFrame({"qid": ["1"], "docno": [docno], "label": [1]})
    with pytest.raises(InputError, match="topic, document and label must each be one word") as raised:
        load_qrels(frame)
    assert raised.value.where == "row 1"


@pytest.mark.parametrize("stances, docnos, expected", [
    (["FIRST", "NO"], ["clueweb12-0000wb-00-00000___1", "clueweb12-0000wb-00-00001___1"], RunFormat.STANCE),
    (["PRO", "CON"], ["I0123456789abcdef", "Ifedcba9876543210"], RunFormat.IMAGE),
    ([None, None], ["a", "b"], RunFormat.Q0),
    (["PRO", "CON"], ["s1,s2", "s3,s4"], RunFormat.PAIRS),
])
def test_a_frames_format_follows_its_stance_and_ids(stances, docnos, expected):
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": docnos, "score": [2.0, 1.0]})
    if stances[0] is not None:
        frame["stance"] = stances
    assert frame_format(frame, stances) is expected
    frame.attrs["run_format"] = "q0"  # as search() records it: that wins
    assert frame_format(frame, stances) is RunFormat.Q0


def test_a_frame_with_both_layouts_is_refused_saying_so():
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="it has both layouts"):
        load_run(frame)


def test_a_qrels_frame_row_missing_an_id_is_refused_even_when_the_rest_is_one_word():
    frame = pd.DataFrame({"qid": [None, "1"], "docno": ["a", "b"], "label": [1, 2]})
    with pytest.raises(InputError) as raised:
        load_qrels(frame)
    assert raised.value.where == "row 1"


def test_a_run_frames_problems_are_named_by_row_and_frame_name():
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", None], "score": [2.0, 1.0]})
    with pytest.raises(InputError) as raised:
        load_run(frame, name="mine")
    assert str(raised.value).startswith("run frame 'mine': row 2: the document id is missing")
    with pytest.raises(InputError) as raised:
        load_run(frame.assign(qid=[None, "1"], docno=["a", "b"]))
    assert str(raised.value).startswith("run frame: row 1: the topic id is missing")


def test_a_rank_column_of_bools_or_with_a_gap_is_refused_at_its_row():
    frame = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(InputError, match="the rank column must hold numbers"):
        load_run(frame.assign(rank=[True, False, True]))
    with pytest.raises(InputError) as raised:
        load_run(frame.assign(rank=[0.0, 1.0, float("nan")]))
    assert raised.value.where == "row 3"
    assert load_run(frame.assign(rank=[2, 1, 0])).records()[0].docid == "a"  # scores decide, ranks break ties


def test_a_qrels_frame_of_other_columns_names_both_layouts():
    with pytest.raises(InputError, match="a qrels frame needs the columns query_id, doc_id, relevance or "
                                         "qid, docno, label"):
        load_qrels(pd.DataFrame({"topic": ["1"], "doc": ["a"], "grade": [1]}))
