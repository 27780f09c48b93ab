"""Evaluation: the official leaderboards reproduced, hand-computed edge cases, qrels reading."""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from tests.formats.test_selection import _shifted_run
from tests.shared import DEMO, RELEVANCE, cli, demo_run, has_shared, parse_leaderboard, require_shared, shared_dir
from tests.tables import table_rows
from touche.errors import InputError, ToucheError
from touche.retrieval.evaluation.measures import (
    evaluate,
    image_precision,
    stance_f1,
    touche_ndcg,
    trec_measures,
)
from touche.retrieval.evaluation.report import format_table
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.qrels import (
    QrelsKind,
    detect_qrels_kind,
    read_graded_qrels,
    read_image_qrels,
    read_qrels,
    read_stance_qrels,
)
from touche.retrieval.formats.runfile import RunRow

# --------------------------------------------------------------------- leaderboard values

LB_TASK1_2021 = "clef21_touche21-web_argument-retrieval-for-controversial-questions-results-{}.txt"
LB_TASK2_2022 = "clef22_touche22-web_argument-retrieval-for-comparative-questions-results-{}.txt"

# The image leaderboard names methods, not tags: the run files' names say which is which.
IMAGE_METHODS = {
    "run-aramis-argumentativeness-formula-stance-formula.txt": ("Aramis", "arg:formula, stance:formula"),
    "run-aramis-argumentativeness-formula-stance-neural.txt": ("Aramis", "arg:formula, stance:neural"),
    "run-aramis-argumentativeness-neural-stance-formula.txt": ("Aramis", "arg:neural, stance: formula"),
    "run-aramis-argumentativeness-neural-stance-neural.txt": ("Aramis", "arg:neural, stance: neural"),
    "run-jester-with-emotion-detection.txt": ("Jester", "with emotion detection"),
    "run-jester-without-emotion-detection.txt": ("Jester", "without emotion detection"),
    "run-minsc-baseline.txt": ("Minsc", "Baseline"),
}


@dataclass(frozen=True)
class Expected:
    run: str  # path relative to runs/
    qrels: str  # file in qrels/
    measure: str  # our measure name
    value: str  # as printed on the leaderboard
    source: str


@lru_cache(maxsize=None)
def _leaderboard(name: str) -> tuple[dict[str, str], ...]:
    return tuple(parse_leaderboard(shared_dir() / "leaderboards" / name))


def _team_of(run_file: str) -> str:
    # "Puss-in-Boots-run1.txt" -> "Puss in Boots"
    return run_file.rsplit("-run", 1)[0].replace("-", " ")


def _row_for(board: str, tag: str, run_file: str) -> dict[str, str] | None:
    """The leaderboard row of a run: by tag; else the team's only row (Puss in Boots's run is
    tagged BM25-Baseline but listed as Always-NO-Baseline on the stance leaderboard)."""
    rows = _leaderboard(board)
    by_tag = [r for r in rows if r["Tag"] == tag]
    if by_tag:
        assert len(by_tag) == 1, (board, tag)
        return by_tag[0]
    team = [r for r in rows if r["Team"] == _team_of(run_file)]
    return team[0] if len(team) == 1 else None


def _expectations() -> list[Expected]:
    if not has_shared():
        return []
    shared = shared_dir()
    out: list[Expected] = []
    for path in sorted((shared / "runs" / "task1-2021").glob("*.txt")):
        tag = _tag(path)
        board = LB_TASK1_2021.format("relevance")
        row = _row_for(board, tag, path.name)
        if row:
            # The 2021 leaderboard ordered topics by score (see test_2021_ordered_by_score_2022_by_rank).
            out.append(Expected(f"task1-2021/{path.name}", "task1-2021-relevance.qrels", "touche2021.nDCG@5",
                                row["Mean nDCG@5"], board))
    for path in sorted((shared / "runs" / "task2-2022").glob("*.txt")):
        tag = _tag(path)
        for aspect in ("relevance", "quality"):
            board = LB_TASK2_2022.format(aspect)
            row = _row_for(board, tag, path.name)
            if row:
                out.append(Expected(f"task2-2022/{path.name}", f"task2-2022-{aspect}.qrels", "touche.nDCG@5",
                                    row["Mean nDCG@5"], board))
        board = LB_TASK2_2022.format("stance")
        row = _row_for(board, tag, path.name)
        if row:
            for column, measure in (("F1_macro_run", "stance.F1_macro"), ("N_run", "stance.N")):
                out.append(Expected(f"task2-2022/{path.name}", "task2-2022-stance.qrels", measure, row[column], board))
    image_board = (shared / "leaderboards" / "image-2022-results.tsv").read_text().splitlines()
    header = image_board[0].split("\t")
    image_rows = [dict(zip(header, line.split("\t"))) for line in image_board[1:] if line.strip()]
    for path in sorted((shared / "runs" / "image-2022").glob("*.txt")):
        team, method = IMAGE_METHODS[path.name]
        (row,) = [r for r in image_rows if r["team"] == team and r["method"] == method]
        for column in ("on_topic_p@10", "argumentative_p@10", "on_stance_p@10"):
            measure = "image." + column.replace("_p@", "_P@")
            out.append(Expected(f"image-2022/{path.name}", "image-2022.qrels", measure, row[column],
                                "image-2022-results.tsv"))
    return out


def _tag(path: Path) -> str:
    return _rows(str(path))[0].tag


@lru_cache(maxsize=None)
def _rows(path: str) -> tuple[RunRow, ...]:
    return tuple(read_run(path))


@lru_cache(maxsize=None)
def _official(run: str, qrels: str) -> dict[str, float]:
    shared = shared_dir()
    graded = ["touche.nDCG@5", "touche2021.nDCG@5", "trec.nDCG@5", "trec.Judged@5"]
    measures = graded if qrels.endswith(("relevance.qrels", "quality.qrels")) else None
    return evaluate(shared / "runs" / run, shared / "qrels" / qrels, measures)


EXPECTED = _expectations()


@pytest.mark.parametrize(
    "expected",
    EXPECTED or [pytest.param(None, marks=pytest.mark.skip(reason=f"real Touché data not found at {shared_dir()}"))],
    ids=[f"{e.run}:{e.qrels.removesuffix('.qrels')}:{e.measure}" for e in EXPECTED] or ["no-shared-data"],
)
def test_official_run_reproduces_leaderboard(expected: Expected) -> None:
    value = _official(expected.run, expected.qrels)[expected.measure]
    if expected.measure == "stance.N":
        assert value == int(expected.value), expected
    else:
        assert f"{value:.3f}" == expected.value, expected


def test_every_official_run_has_leaderboard_values() -> None:
    shared = require_shared()
    runs = {f"{p.parent.name}/{p.name}" for p in (shared / "runs").glob("*/*.txt")}
    covered = {e.run for e in EXPECTED}
    assert runs == covered
    assert len(EXPECTED) == 3 + 16 * 2 + 11 * 2 + 7 * 3


def test_runs_missing_from_the_stance_leaderboard_predict_no_stance() -> None:
    require_shared()
    with_stance = {e.run for e in EXPECTED if e.measure == "stance.N"}
    for run in sorted({e.run for e in EXPECTED if e.run.startswith("task2-2022/")} - with_stance):
        result = _official(run, "task2-2022-stance.qrels")
        assert result["stance.N"] == 0 and math.isnan(result["stance.F1_macro"]), run


def test_leaderboard_parser_reads_header_and_rows() -> None:
    require_shared()
    rows = _leaderboard(LB_TASK2_2022.format("stance"))
    assert rows[0] == {
        "Team": "Grimjack",
        "Tag": "grimjack-all-you-need-is-t0",
        "F1_macro_run": "0.313",
        "N_run": "1208",
        "F1_macro_team": "0.235",
        "N_team": "1386",
    }
    elrond = _row_for(LB_TASK1_2021.format("relevance"), "ElrondKRun", "Elrond-run1.txt")
    assert elrond is not None and elrond["Mean nDCG@5"] == "0.720"


def test_2021_ordered_by_score_2022_by_rank() -> None:
    """No single ordering reproduces both years: the evidence for touche vs touche2021."""
    require_shared()
    elrond = _official("task1-2021/ElrondTaskBodyRun.txt", "task1-2021-relevance.qrels")
    # Two score ties at the cut (topics 90 and 93): rank order gives 0.615, the board 0.614.
    assert (f"{elrond['touche.nDCG@5']:.3f}", f"{elrond['touche2021.nDCG@5']:.3f}") == ("0.615", "0.614")
    for run in ("ElrondOpenNlpRun.txt", "ElrondSimpleRun.txt"):
        result = _official(f"task1-2021/{run}", "task1-2021-relevance.qrels")
        assert f"{result['touche.nDCG@5']:.3f}" == f"{result['touche2021.nDCG@5']:.3f}" == "0.674"
    # Olivier Armstrong's 2022 run has ties in its top 5: only its rank column gives the board's values.
    for aspect, board in (("relevance", "0.492"), ("quality", "0.582")):
        result = _official("task2-2022/Olivier-Armstrong-run1.txt", f"task2-2022-{aspect}.qrels")
        assert f"{result['touche.nDCG@5']:.3f}" == board
        assert f"{result['touche2021.nDCG@5']:.3f}" != board


def test_trec_style_differs_from_touche_style_when_the_top_is_unjudged() -> None:
    require_shared()
    # Olivier Armstrong's run has unjudged passages in its top 5 (Judged@5 < 1).
    result = _official("task2-2022/Olivier-Armstrong-run1.txt", "task2-2022-relevance.qrels")
    assert f"{result['touche.nDCG@5']:.3f}" == "0.492"
    assert result["trec.Judged@5"] < 1
    assert result["trec.nDCG@5"] < result["touche.nDCG@5"]


# --------------------------------------------------------------------- hand-computed nDCG


def rows(qid: str, ranked: list[str], start: int = 1, scores: list[float] | None = None) -> list[RunRow]:
    scores = scores if scores is not None else [float(len(ranked) - i) for i in range(len(ranked))]
    return [RunRow(qid, "Q0", d, start + i, s, "t") for i, (d, s) in enumerate(zip(ranked, scores))]


def g(gain: float, i: int) -> float:
    return gain / math.log2(i + 2)


QRELS = {
    "1": {"a": 2, "b": 1, "c": 0, "d": -2, "e": 2},
    "2": {"p": 1, "q": 0},
}
IDCG_1 = g(2, 0) + g(2, 1) + g(1, 2) + g(0, 3) + g(0, 4)


def test_ndcg_of_a_perfect_ranking_is_one() -> None:
    assert touche_ndcg(rows("1", ["a", "e", "b", "c", "d"]), QRELS).mean == pytest.approx(1.0)


def test_unjudged_at_rank_one_is_dropped_and_the_rest_closed_up() -> None:
    result = touche_ndcg(rows("1", ["x", "a", "b"]), QRELS)
    assert result.per_topic == {"1": pytest.approx((g(2, 0) + g(1, 1)) / IDCG_1)}


def test_minus_two_counts_as_zero_gain_but_as_judged() -> None:
    # d (-2) stays in position 0 with gain 0: a is at position 1, not closed up to 0.
    result = touche_ndcg(rows("1", ["d", "a"]), QRELS)
    assert result.mean == pytest.approx(g(2, 1) / IDCG_1)


def test_ideal_dcg_uses_all_qrels_of_the_topic_not_just_retrieved_ones() -> None:
    assert touche_ndcg(rows("2", ["p"]), QRELS).mean == pytest.approx(1.0)
    assert touche_ndcg(rows("1", ["b"]), QRELS).mean == pytest.approx(g(1, 0) / IDCG_1)


def test_topic_with_nothing_judged_in_the_cut_is_left_out_of_the_mean() -> None:
    run = rows("1", ["a"]) + rows("2", ["x1", "x2", "x3", "x4", "x5", "p"]) + rows("99", ["a"])
    result = touche_ndcg(run, QRELS)
    assert set(result.per_topic) == {"1"}
    assert result.mean == pytest.approx(g(2, 0) / IDCG_1)


def test_cut_is_by_the_rank_column_not_by_the_score() -> None:
    # Scores say b > a, the rank column says a first: Touché follows the rank column.
    run = [RunRow("1", "Q0", "a", 1, 1.0, "t"), RunRow("1", "Q0", "b", 2, 5.0, "t")]
    assert touche_ndcg(run, QRELS).mean == pytest.approx((g(2, 0) + g(1, 1)) / IDCG_1)
    assert trec_measures(run, QRELS, ["nDCG@5"])["trec.nDCG@5"] == pytest.approx((g(1, 0) + g(2, 1)) / IDCG_1)


def test_tied_scores_are_ordered_by_rank() -> None:
    run = rows("1", ["b", "a"], scores=[3.0, 3.0])
    assert touche_ndcg(run, QRELS).mean == pytest.approx((g(1, 0) + g(2, 1)) / IDCG_1)


def test_score_order_takes_the_k_best_scores_with_ties_by_docid() -> None:
    tied = [RunRow("1", "Q0", "e", 1, 2.0, "t"), RunRow("1", "Q0", "b", 2, 2.0, "t")]
    assert touche_ndcg(tied, QRELS, k=1, order="rank").mean == pytest.approx(1.0)  # e (2)
    assert touche_ndcg(tied, QRELS, k=1, order="score").mean == pytest.approx(0.5)  # b (1) before e
    # Scores that contradict the rank column: "score" follows the scores.
    upside_down = [RunRow("1", "Q0", "b", 1, 1.0, "t"), RunRow("1", "Q0", "a", 2, 9.0, "t")]
    assert touche_ndcg(upside_down, QRELS, k=1, order="score").mean == pytest.approx(1.0)
    with pytest.raises(ValueError, match="order must be"):
        touche_ndcg(tied, QRELS, order="file")  # type: ignore[arg-type]


def test_rank_beyond_k_is_cut_before_unjudged_are_dropped() -> None:
    run = rows("1", ["x1", "x2", "x3", "x4", "b", "a"])
    assert touche_ndcg(run, QRELS).mean == pytest.approx(g(1, 0) / IDCG_1)
    assert touche_ndcg(run, QRELS, k=6).mean == pytest.approx((g(1, 0) + g(2, 1)) / (IDCG_1 + g(0, 5)))


def test_ranks_starting_at_zero_score_like_ranks_starting_at_one() -> None:
    ranked = ["x", "b", "c", "d", "x2", "a"]
    one_based = touche_ndcg(rows("1", ranked, start=1), QRELS)
    zero_based = touche_ndcg(rows("1", ranked, start=0), QRELS)
    assert zero_based == one_based
    # ... so the row at rank 5 of a 0-based run is its sixth and is cut.
    assert one_based.mean == pytest.approx(g(1, 0) / IDCG_1)


def test_topic_without_any_positive_judgment_scores_zero() -> None:
    assert touche_ndcg(rows("3", ["n"]), {"3": {"n": 0, "m": -2}}).per_topic == {"3": 0.0}


def test_empty_run_has_an_undefined_mean() -> None:
    result = touche_ndcg([], QRELS)
    assert math.isnan(result.mean) and result.per_topic == {}


# ------------------------------------------------------------------ hand-computed others


def test_stance_macro_f1_by_hand() -> None:
    qrels = {"1": {"p1": "FIRST", "p2": "SECOND", "p3": "NO", "p4": "NO", "p6": "NO"}}
    run = [
        RunRow("1", "FIRST", "p1", 1, 6, "t"),
        RunRow("1", "FIRST", "p2", 2, 5, "t"),
        RunRow("1", "NO", "p3", 3, 4, "t"),
        RunRow("1", "NEUTRAL", "p4", 4, 3, "t"),
        RunRow("1", "SECOND", "p5", 5, 2, "t"),  # unjudged: ignored
        RunRow("1", "Q0", "p6", 6, 1, "t"),  # no stance predicted: ignored
        RunRow("2", "NO", "p3", 1, 1, "t"),  # judged for topic 1 only: ignored
    ]
    result = stance_f1(run, qrels)
    assert result.n == 4
    assert result.per_label == pytest.approx({"FIRST": 2 / 3, "SECOND": 0.0, "NEUTRAL": 0.0, "NO": 2 / 3})
    assert result.f1_macro == pytest.approx((2 / 3 + 2 / 3) / 4)


def test_stance_macro_f1_averages_only_labels_that_occur() -> None:
    result = stance_f1([RunRow("1", "NO", "p", 1, 1, "t")], {"1": {"p": "NO"}})
    assert result.per_label == {"NO": 1.0} and result.f1_macro == 1.0


def test_image_precision_by_hand() -> None:
    qrels = {
        "1": {
            "i1": {"ONTOPIC": 1, "PRO": 1, "CON": 0},
            "i2": {"ONTOPIC": 1, "PRO": 0, "CON": 1},
            "i3": {"ONTOPIC": 0, "PRO": 0, "CON": 0},
        },
        "2": {"j": {"ONTOPIC": 1, "PRO": 1, "CON": 1}},
    }
    run = [
        RunRow("1", "PRO", "i1", 1, 2, "t"),
        RunRow("1", "PRO", "i2", 2, 1, "t"),
        RunRow("1", "CON", "i3", 1, 2, "t"),
        RunRow("1", "CON", "i4", 2, 1, "t"),  # unjudged counts as 0
    ]
    result = image_precision(run, qrels)
    assert (result.on_topic, result.argumentative, result.on_stance, result.topics) == (2 / 20, 2 / 20, 1 / 20, 1)
    # With the qrels' topics as denominator a missing topic costs 20 slots.
    assert image_precision(run, qrels, topics=qrels).on_topic == 2 / 40
    # Only the first k per stance count, by rank.
    assert image_precision(run, qrels, k=1).on_stance == 1 / 2


# -------------------------------------------------------------------------- convenience


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "run": write(tmp_path / "run.txt", "1 FIRST p1 1 3 t\n1 NO p2 2 2 t\n1 SECOND x 3 1 t\n"),
        "relevance": write(tmp_path / "t-relevance.qrels", "1 0 p1 2\n1 0 p2 -2\n1 0 p3 1\n"),
        "quality": write(tmp_path / "t-quality.qrels", "1 0 p1 0\n1 0 p2 2\n"),
        "stance": write(tmp_path / "t-stance.qrels", "1 0 p1 FIRST\n1 0 p2 SECOND\n"),
    }


def test_evaluate_with_one_qrels_file_gives_touche_and_trec_measures(files: dict[str, Path]) -> None:
    result = evaluate(files["run"], files["relevance"])
    assert list(result) == ["touche.nDCG@5", "trec.nDCG@5", "trec.nDCG@10", "trec.P@10", "trec.AP", "trec.Judged@5"]
    assert result["touche.nDCG@5"] == pytest.approx(g(2, 0) / (g(2, 0) + g(1, 1)))
    assert result["trec.Judged@5"] == pytest.approx(2 / 3)


def test_evaluate_with_several_qrels_prefixes_their_names(files: dict[str, Path]) -> None:
    result = evaluate(files["run"], [files["relevance"], files["quality"], files["stance"]], depth=3)
    assert result["relevance:touche.nDCG@3"] == pytest.approx(g(2, 0) / (g(2, 0) + g(1, 1)))
    assert result["quality:touche.nDCG@3"] == pytest.approx(g(2, 1) / g(2, 0))
    assert result["stance:stance.N"] == 2
    assert result["stance:stance.F1_macro"] == pytest.approx((1.0 + 0.0 + 0.0) / 3)
    named = evaluate(files["run"], {"rel": files["relevance"]}, ["touche.nDCG@1", "trec.P@1"])
    assert named == {"rel:touche.nDCG@1": pytest.approx(1.0), "rel:trec.P@1": pytest.approx(1.0)}


def test_trec_measures_average_over_run_topics_unless_all_topics() -> None:
    run = rows("1", ["a", "e"])
    assert trec_measures(run, QRELS, ["P@2"])["trec.P@2"] == 1.0
    assert trec_measures(run, QRELS, ["P@2"], all_topics=True)["trec.P@2"] == 0.5
    assert math.isnan(trec_measures(rows("7", ["a"]), QRELS, ["P@2"])["trec.P@2"])


def test_evaluate_rejects_measures_that_fit_no_qrels(files: dict[str, Path]) -> None:
    with pytest.raises(ToucheError, match="stance.F1_macro do not apply"):
        evaluate(files["run"], files["relevance"], ["stance.F1_macro"])
    with pytest.raises(ToucheError, match="unknown trec_eval-style measure 'nonsense'"):
        evaluate(files["run"], files["relevance"], ["trec.nonsense"])


def test_format_table_aligns_runs_and_measures() -> None:
    table = format_table({"a.txt": {"touche.nDCG@5": 0.5, "stance.N": 12}, "b.txt": {"touche.nDCG@5": math.nan}})
    assert table.splitlines() == [
        "| run   | touche.nDCG@5 | stance.N |",
        "|-------|--------------:|---------:|",
        "| a.txt |         0.500 |       12 |",
        "| b.txt |             – |        – |",
    ]
    assert format_table({"P@10": 0.25}).splitlines()[-1] == "| run | 0.250 |"


# --------------------------------------------------------------------------------- qrels


def test_every_official_qrels_file_reads_with_its_kind() -> None:
    shared = require_shared()
    kinds = {}
    for path in sorted((shared / "qrels").glob("*.qrels")):
        qrels = read_qrels(path)
        kinds[path.name] = qrels.kind
        assert qrels.judgments, path
    assert kinds["image-2022.qrels"] is QrelsKind.IMAGE
    assert kinds["task2-2022-stance.qrels"] is QrelsKind.STANCE
    graded = {k for n, k in kinds.items() if n not in ("image-2022.qrels", "task2-2022-stance.qrels")}
    assert graded == {QrelsKind.GRADED}
    uncorrected = read_graded_qrels(shared / "qrels" / "task1-2020-relevance-uncorrected.qrels")
    assert {label for docs in uncorrected.values() for label in docs.values()} == {-2, 1, 2, 3, 4, 5}
    image = read_image_qrels(shared / "qrels" / "image-2022.qrels")
    assert image["1"]["Ib7fc7d5f8ee59d62"] == {"ONTOPIC": 1, "PRO": 1, "CON": 0}


def test_qrels_readers_by_hand(tmp_path: Path) -> None:
    graded = write(tmp_path / "g.qrels", "1 0 a -2\n1 0 a -2\n\n2 0 b 4.0\n")
    assert read_graded_qrels(graded) == {"1": {"a": -2}, "2": {"b": 4}}
    pairs = write(tmp_path / "p.qrels", "1 0 S1a-A2b__PREMISE__3,S1a-A2b__CONC__1 2\n")
    assert read_graded_qrels(pairs, pair_ids=True) == {"1": {"S1a-A2b__PREMISE__3,S1a-A2b__CONC__1": 2}}
    stance = write(tmp_path / "s.qrels", "1 0 a NEUTRAL\n")
    assert detect_qrels_kind(stance) is QrelsKind.STANCE and read_stance_qrels(stance) == {"1": {"a": "NEUTRAL"}}


@pytest.mark.parametrize(
    "reader, text, message",
    [
        (read_graded_qrels, "1 0 a 1\n1 0 b\n", "line 2: expected 4 columns `qid 0 docid label`, found 3"),
        (read_graded_qrels, "1 0 a 1\n1 0 b 1.5\n", "line 2: relevance label '1.5' is not an integer"),
        (read_graded_qrels, "1 0 a 1\n1 0 a 2\n", "line 2: topic 1, a: label 2 contradicts 1 on line 1"),
        (read_graded_qrels, "", "qrels file has no judgments"),
        (read_stance_qrels, "1 0 a FIRST\n1 0 b PRO\n",
         "line 2: stance label 'PRO' is not one of FIRST|SECOND|NEUTRAL|NO"),
        (read_image_qrels, "1 ONTOPIC I0 1\n1 STANCE I0 1\n",
         "line 2: second column 'STANCE' is not one of ONTOPIC|PRO|CON"),
        (read_image_qrels, "1 PRO I0 1\n1 PRO I0 0\n", "line 2: topic 1, I0 PRO: label 0 contradicts 1 on line 1"),
        (read_image_qrels, "1 PRO I0 2\n", "line 1: image label '2' is not 0 or 1"),
        (detect_qrels_kind, "1 0 a maybe\n", "line 1: cannot tell the qrels format from label 'maybe'"),
        (read_graded_qrels, None, "qrels file not found"),
    ],
)
def test_qrels_errors_name_file_and_line(tmp_path: Path, reader, text: str | None, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.qrels"
    if text is not None:
        path.write_text(text)
    with pytest.raises(InputError) as caught:
        reader(path)
    assert str(caught.value).startswith(f"{path}")
    assert message in str(caught.value)


def test_ir_measures_names_and_swapped_arguments(tmp_path):
    from touche.errors import InputError

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 x 1 3.0 t\n1 Q0 a 2 2.0 t\n1 Q0 c 3 1.0 t\n")  # x is unjudged
    scores = evaluate(run, qrels, ["nDCG@5", "P@10", "touche.nDCG@5"])
    assert set(scores) == {"trec.nDCG@5", "trec.P@10", "touche.nDCG@5"}
    assert scores["touche.nDCG@5"] > scores["trec.nDCG@5"]  # Touché drops the unjudged x; trec_eval counts it 0
    with pytest.raises(InputError, match="looks like a qrels file .* give the run first"):
        evaluate(qrels, run)


# --------------------------------------------------------------------------------- the report, per format
def _cli(*args: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from touche.cli import main
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def two_topics(tmp_path: Path) -> dict[str, Path]:
    """A stance run over two topics: topic 1 labels p1 right and p2 wrong, topic 2 both right."""
    return {
        "run": write(tmp_path / "run.txt", "1 FIRST p1 1 3 t\n1 FIRST p2 2 2 t\n2 SECOND q1 1 2 t\n2 FIRST q2 2 1 t\n"),
        "relevance": write(tmp_path / "t-relevance.qrels", "1 0 p1 2\n1 0 p2 0\n2 0 q1 0\n2 0 q2 1\n"),
        "stance": write(tmp_path / "t-stance.qrels", "1 0 p1 FIRST\n1 0 p2 SECOND\n2 0 q1 SECOND\n2 0 q2 FIRST\n"),
    }


def test_evaluate_writes_every_value_per_topic_as_csv_latex_and_json(two_topics, tmp_path):
    """--csv holds every per-topic value and each mean (query_id all) with its topic count,
    --latex readable headers (one given by --header), --json the report read back as it was."""
    from touche.retrieval.evaluation.report import read_report
    out = {kind: tmp_path / f"scores.{kind}" for kind in ("csv", "tex", "json")}
    code, printed, _ = _cli("evaluate", str(two_topics["run"]), f"relevance={two_topics['relevance']}",
                            f"stance={two_topics['stance']}", "--measures", "touche.nDCG@5,stance.F1_macro,stance.N",
                            "--csv", str(out["csv"]), "--latex", str(out["tex"]), "--json", str(out["json"]),
                            "--header", "relevance:touche.nDCG@5=nDCG@5 (rel.)")
    assert code == 0 and "| run " in printed
    rows = list(csv.reader(io.StringIO(out["csv"].read_text())))
    assert rows[0] == ["run", "query_id", "measure", "value", "topics"]
    values = {(r[1], r[2]): (float(r[3]), r[4]) for r in rows[1:]}
    assert values[("1", "relevance:touche.nDCG@5")] == (1.0, "") and values[("2", "relevance:touche.nDCG@5")][0] == \
        pytest.approx(g(1, 1) / g(1, 0))
    # stance F1 of each topic, macro over the labels it holds: topic 1 FIRST 2/3 (one right of two
    # said), SECOND 0; topic 2 both right
    assert values[("1", "stance:stance.F1_macro")][0] == pytest.approx((2 / 3 + 0) / 2)
    assert values[("2", "stance:stance.F1_macro")][0] == pytest.approx(1.0)
    assert values[("all", "stance:stance.N")] == (4.0, "2") and values[("2", "stance:stance.N")][0] == 2
    latex = out["tex"].read_text()
    assert "run & topics & nDCG@5 (rel.) & stance.F1\\_macro (stance) & stance.N (stance) \\\\" in latex
    assert "\\caption{Means over topics" in latex and "\\toprule" in latex
    report = read_report(out["json"])
    assert [r.name for r in report.runs] == ["run.txt"] and report.runs[0].means["stance:stance.N"] == 4
    assert report.runs[0].per_topic["stance:stance.F1_macro"]["2"] == pytest.approx(1.0)


def test_per_topic_table_shows_stance_f1_of_each_topic(two_topics):
    """--per-topic printed stance F1 as - on every topic: it is pooled, but each topic has its own."""
    code, printed, _ = _cli("evaluate", str(two_topics["run"]), f"stance={two_topics['stance']}", "--per-topic")
    rows = {r["topic"]: r for r in table_rows(printed)}
    assert code == 0 and rows["1"]["stance:stance.F1_macro"] == "0.333" and rows["1"]["stance:stance.N"] == "2"


def test_a_run_named_as_html_is_one_escaped_cell_of_evaluates_table(files, tmp_path):
    """A run file named x|y<img …>.txt split evaluate's row at its | and put the HTML in the table."""
    hostile = tmp_path / "x|y<img src=x onerror=alert(1)>.txt"
    hostile.write_text(files["run"].read_text())
    code, printed, _ = _cli("evaluate", str(hostile), str(files["relevance"]), "--measures", "touche.nDCG@5")
    line = next(line for line in printed.splitlines() if line.startswith("| x"))
    assert code == 0 and "<" not in printed and ">" not in printed
    assert line.startswith("| x\\|y&lt;img src=x onerror=alert(1)&gt;.txt |") and line.count(" | ") == 2


def test_evaluate_exports_to_standard_output_alone(files):
    code, printed, _ = _cli("evaluate", str(files["run"]), str(files["relevance"]), "--measures", "touche.nDCG@5",
                            "--csv", "-")
    assert code == 0 and printed.splitlines()[0] == "run,query_id,measure,value,topics" and "| run" not in printed


def test_a_report_file_that_is_not_one_is_refused_by_name(tmp_path):
    from touche.retrieval.evaluation.report import read_report
    bad = write(tmp_path / "r.json", '{"kind": "touche-report", "version": 1, "measures": [], "runs": [{"nme": 1}]}')
    with pytest.raises(InputError, match=r"r\.json.*runs\.0\.name"):
        read_report(bad)
    with pytest.raises(InputError, match="not a touche report"):
        read_report(write(tmp_path / "other.json", "[1, 2]"))


def test_a_header_for_a_measure_not_scored_is_refused_naming_the_measures(files, tmp_path):
    code, _, err = _cli("evaluate", str(files["run"]), str(files["relevance"]), "--measures", "touche.nDCG@5,trec.P@5",
                        "--latex", str(tmp_path / "t.tex"), "--header", "touche.nDCG@10=nDCG@10")
    assert code == 2 and "--header 'touche.nDCG@10=nDCG@10': expected MEASURE=TEXT" in err
    assert "(t-relevance:touche.nDCG@5, t-relevance:trec.P@5)" in err and not (tmp_path / "t.tex").exists()
@pytest.mark.parametrize("given,said", [(["missing.txt", "qrels.txt"], "run file not found"),
                                        (["run.txt", "missing.txt"], "qrels file not found"),
                                        (["run.txt", "missing.txt", "qrels.txt"], "run file not found"),
                                        (["missing.txt"], "run or qrels file not found")])
def test_a_missing_file_is_named_by_its_place_among_runs_and_qrels(tmp_path, capsys, given, said):
    """Runs come first, then qrels: a missing file before qrels is a run ("qrels file not found", it
    said), one after the runs the qrels."""
    from touche.cli import main
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 1.0 t\n")
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n")
    assert main(["evaluate", *(str(tmp_path / name) for name in given)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'missing.txt'}: {said}" in err and "Traceback" not in err


QUALITY = DEMO / "qrels-quality.txt"


# --------------------------------------------------------------------------- per topic, several runs
def test_evaluate_takes_several_runs_a_glob_and_prints_per_topic_rows(tmp_path):
    a, b = demo_run(tmp_path / "a.txt", tag="a"), _shifted_run(tmp_path / "b.txt", "b")
    code, text = cli("evaluate", str(tmp_path / "*.txt"), f"relevance={RELEVANCE}", f"quality={QUALITY}",
                     "--per-topic", "--measures", "relevance:touche.nDCG@5")
    assert code == 0, text
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| run")]
    assert [r.split("|")[1].strip() for r in rows] == ["a.txt"] * 7 + ["b.txt"] * 7
    assert rows[6].split("|")[2].strip() == "all (6)" and rows[-1].split("|")[2].strip() == "all (6)"
    code, text = cli("evaluate", str(a), str(b), str(RELEVANCE))
    assert code == 0 and "| a.txt " in text and "| b.txt " in text
    code, text = cli("evaluate", str(RELEVANCE))
    assert code == 2 and "no run among the files given" in text
