"""Reports: per-topic scores, two-run comparisons with significance tests, plots."""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from scipy import stats

from tests.shared import RELEVANCE, cli, judged_documents, one_topic_run, parse_leaderboard, require_shared
from tests.tables import table_rows
from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import (
    Scored,
    evaluate,
)
from touche.retrieval.evaluation.report import format_per_topic
from touche.retrieval.evaluation.significance import paired_randomization_test, per_topic_scores
from touche.retrieval.experiments.comparison import compare_runs, compare_scores, format_comparison, plot_comparison
from touche.retrieval.experiments.sweep.axes import Axis
from touche.retrieval.experiments.sweep.figure import PlotPoint, plot_sweep, sweep_figure, sweep_layout


def brute_force_sign_flip_p(a: list[float], b: list[float]) -> float:
    """Exact two-sided p by enumerating every sign assignment of the differences."""
    diffs = np.asarray(a) - np.asarray(b)
    observed = abs(diffs.mean())
    hits = sum(abs((diffs * signs).mean()) >= observed - 1e-12
               for signs in itertools.product((1, -1), repeat=len(diffs)))
    return hits / 2 ** len(diffs)


# --------------------------------------------------------------------- significance
def test_randomization_test_by_hand() -> None:
    # differences .1 .4 0 .3, mean .2: only "all +" and "all -" reach |mean| >= .2, each twice
    # (the zero difference flips freely): 4 of 16 sign assignments.
    assert paired_randomization_test([.5, .7, .2, .9], [.4, .3, .2, .6]) == pytest.approx(0.25)


def test_randomization_test_is_exact_for_few_topics() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.random(10).tolist(), rng.random(10).tolist()
    assert paired_randomization_test(a, b) == pytest.approx(brute_force_sign_flip_p(a, b))


def test_sampled_randomization_test_is_reproducible_and_close_to_exact() -> None:
    rng = np.random.default_rng(3)
    a = rng.random(15).tolist()
    b = (np.asarray(a) - 0.1 + rng.normal(0, 0.15, 15)).tolist()
    # 2^15 = 32768 flips > 10000 resamples: sampled, with the fixed seed
    first, second = paired_randomization_test(a, b), paired_randomization_test(a, b)
    assert first == second
    assert first == pytest.approx(brute_force_sign_flip_p(a, b), abs=0.02)


def test_identical_scores_have_p_one_and_no_t() -> None:
    cmp = compare_scores({"1": .5, "2": .7}, {"1": .5, "2": .7 + 1e-13})
    assert cmp.ties == 2 and cmp.wins == cmp.losses == 0
    assert cmp.randomization_p == 1.0
    assert math.isnan(cmp.t_statistic) and math.isnan(cmp.t_p)


def test_comparison_counts_pairs_only_common_topics_and_matches_scipy() -> None:
    a = {"1": .2, "2": .5, "3": .9, "4": .4, "10": .3}
    b = {"1": .6, "2": .5, "3": .7, "4": .9, "5": 1.0}
    cmp = compare_scores(a, b, name_a="base", name_b="new")
    assert [r.topic for r in cmp.rows] == ["1", "2", "3", "4"]  # natural order, common topics
    assert (cmp.wins, cmp.losses, cmp.ties) == (2, 1, 1)
    assert cmp.only_a == ("10",) and cmp.only_b == ("5",)
    expected = stats.ttest_rel([.6, .5, .7, .9], [.2, .5, .9, .4])
    assert cmp.t_statistic == pytest.approx(expected.statistic) and cmp.t_statistic > 0  # B better → t > 0
    assert cmp.t_p == pytest.approx(expected.pvalue)
    assert cmp.mean_b - cmp.mean_a == pytest.approx(0.175)
    assert cmp.official_means == pytest.approx((np.mean(list(a.values())), np.mean(list(b.values()))))
    text = format_comparison(cmp)
    assert "B wins **2**, loses **1**, ties **1** of 4 topics" in text
    assert "scored for A only: 10" in text and "scored for B only: 5" in text
    table = text.split("| topic |")[1].splitlines()[2:]
    assert [line.split("|")[1].strip() for line in table] == ["4", "1", "2", "3"]  # biggest gain first
    assert "exact, all 16 sign flips" in text


# --------------------------------------------------------------------- per-topic scores from files
RUN_A = """1 Q0 d1 1 9 a
1 Q0 dx 2 8 a
1 Q0 d2 3 7 a
2 Q0 e1 1 9 a
2 Q0 e2 2 8 a
3 Q0 zz 1 9 a
"""
RUN_B = """1 Q0 d2 1 9 b
1 Q0 d1 2 8 b
2 Q0 e2 1 9 b
2 Q0 e1 2 8 b
3 Q0 f1 1 9 b
"""
QRELS = """1 0 d1 2
1 0 d2 1
2 0 e1 1
2 0 e2 2
3 0 f1 1
"""


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("a.txt", RUN_A), ("b.txt", RUN_B), ("qrels.txt", QRELS)):
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


def test_per_topic_touche_ndcg_drops_topics_without_judged_documents(files: dict[str, Path]) -> None:
    a = per_topic_scores(files["a.txt"], files["qrels.txt"])
    assert set(a) == {"1", "2"}  # topic 3's only document is unjudged: Touché leaves it out
    assert a["1"] == pytest.approx(1.0)  # dx unjudged: dropped and closed up → ideal order
    ideal = 2 + 1 / math.log2(3)
    assert a["2"] == pytest.approx((1 + 2 / math.log2(3)) / ideal)
    mean = evaluate(files["a.txt"], files["qrels.txt"], ["touche.nDCG@5"])["touche.nDCG@5"]
    assert np.mean(list(a.values())) == pytest.approx(mean)


def test_per_topic_trec_measure_averages_to_evaluate(files: dict[str, Path]) -> None:
    b = per_topic_scores(files["b.txt"], files["qrels.txt"], "trec.P@2")
    assert b == pytest.approx({"1": 1.0, "2": 1.0, "3": 0.5})
    mean = evaluate(files["b.txt"], files["qrels.txt"], ["trec.P@2"])["trec.P@2"]
    assert np.mean(list(b.values())) == pytest.approx(mean)


def test_compare_runs_from_files(files: dict[str, Path], tmp_path: Path) -> None:
    cmp = compare_runs(files["a.txt"], files["b.txt"], files["qrels.txt"])
    assert cmp.name_a == "a.txt" and [r.topic for r in cmp.rows] == ["1", "2"]
    assert cmp.only_b == ("3",) and (cmp.wins, cmp.losses) == (1, 1)  # b fixes topic 2, spoils topic 1
    assert cmp.mean_b - cmp.mean_a == pytest.approx(0) and cmp.randomization_p == 1.0
    png = plot_comparison(cmp, tmp_path / "cmp.png")
    with Image.open(png) as image:
        assert image.format == "PNG" and image.width > 300


def test_per_topic_errors_name_the_problem(files: dict[str, Path], tmp_path: Path) -> None:
    stance = tmp_path / "stance.qrels"
    stance.write_text("1 0 d1 FIRST\n")
    with pytest.raises(
        ToucheError, match="per-topic scores of touche.nDCG@5 need graded qrels; this file holds stance"
    ):
        per_topic_scores(files["a.txt"], stance)
    with pytest.raises(ToucheError, match="no per-topic values for measure 'stance.F1_macro'"):
        per_topic_scores(files["a.txt"], files["qrels.txt"], "stance.F1_macro")
    with pytest.raises(ToucheError, match="unknown trec_eval-style measure"):
        per_topic_scores(files["a.txt"], files["qrels.txt"], "trec.NoSuchMeasure")


def test_official_runs_compared_on_the_leaderboards_topics() -> None:
    shared = require_shared()
    runs = shared / "runs" / "task2-2022"
    board = parse_leaderboard(shared / "leaderboards" /
                              "clef22_touche22-web_argument-retrieval-for-comparative-questions-results-relevance.txt")
    by_tag = {row["Tag"]: float(row["Mean nDCG@5"]) for row in board}
    run_a, run_b = runs / "Grimjack-run1.txt", runs / "Puss-in-Boots-run1.txt"
    tag = {p: p.read_text().split(None, 6)[5] for p in (run_a, run_b)}
    cmp = compare_runs(run_a, run_b, shared / "qrels" / "task2-2022-relevance.qrels")
    # each run's own mean is the official one; the paired comparison is over the common topics
    assert round(cmp.official_means[0], 3) == by_tag[tag[run_a]]
    assert round(cmp.official_means[1], 3) == by_tag[tag[run_b]]
    assert len(cmp.rows) + len(cmp.only_a) + len(cmp.only_b) >= 45
    assert cmp.wins + cmp.losses + cmp.ties == len(cmp.rows)
    assert 0 <= cmp.randomization_p <= 1 and 0 <= cmp.t_p <= 1


# --------------------------------------------------------------------- sweep plots
def test_sweep_layout_heatmap_only_for_two_numeric_axes() -> None:
    k1, b = Axis("k1", (0.9, 1.2)), Axis("b", (0.4, 0.75))
    assert sweep_layout([k1, b]) == "heatmap"
    assert sweep_layout([k1]) == "panels"
    assert sweep_layout([k1, Axis("stemmer", ("none", "krovetz"))]) == "panels"
    assert sweep_layout([k1, b, Axis("mu", (1, 2))]) == "panels"
    assert sweep_layout([k1, Axis("b", (0.4,))]) == "panels"  # one value: nothing to map


@pytest.mark.parametrize("axes", [
    [Axis("retrieval.similarity.k1", (0.6, 0.9, 1.2)), Axis("retrieval.similarity.b", (0.3, 0.75))],
    [Axis("analyzer.stemmer", ("none", "krovetz")), Axis("retrieval.similarity.k1", (0.6, 0.9, 1.2)),
     Axis("retrieval.similarity", ({"name": "bm25"}, {"name": "lmdirichlet", "mu": 1000}))],
])
def test_plot_sweep_writes_a_png(axes: list[Axis], tmp_path: Path) -> None:
    points = []
    for i, combo in enumerate(itertools.product(*(a.values for a in axes))):
        points.append(PlotPoint(dict(zip((a.label for a in axes), combo)), 0.5 + 0.01 * i))
    points[-1] = PlotPoint(points[-1].coordinates, math.nan)  # an undefined value is left out, not drawn
    png = plot_sweep(axes, points, "relevance:touche.nDCG@5", tmp_path / "sweep.png", title="t")
    with Image.open(png) as image:
        assert image.format == "PNG" and image.width > 300 and image.height > 200
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.png"]  # no temp file left behind


def test_a_categorical_parameter_is_drawn_without_lines_a_numeric_one_with(tmp_path: Path) -> None:
    axes = [Axis("analyzer.stemmer", ("none", "krovetz", "porter")), Axis("retrieval.similarity.k1", (0.6, 0.9, 1.2))]
    points = [PlotPoint(dict(zip((a.label for a in axes), combo)), 0.5 + 0.01 * i)
              for i, combo in enumerate(itertools.product(*(a.values for a in axes)))]
    fig = sweep_figure(axes, points, "relevance:touche.nDCG@5")
    stemmer, k1 = fig.axes[0], fig.axes[1]
    assert [line.get_linestyle() for line in stemmer.get_lines()] == ["None", "None"]
    assert [line.get_linestyle() for line in k1.get_lines()] == ["-", "--"]


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_are_statsmodels(method: str) -> None:
    from statsmodels.stats.multitest import multipletests

    from touche.retrieval.evaluation.significance import corrected
    rng = np.random.default_rng(11)
    for size in (1, 2, 5, 19):
        p = (rng.random(size) ** 3).tolist()
        p[0] = p[-1]  # a tie
        assert corrected(p, method) == pytest.approx(multipletests(p, method=method)[1].tolist(), abs=1e-12)
    with_nan = [0.2, float("nan"), 0.01]
    assert corrected(with_nan, method)[1] != corrected(with_nan, method)[1]  # nan stays


def test_compare_reports_run_names_as_text(tmp_path):
    """compare -o wrote a run file named x|y<img …>.txt raw into its heading and tables: the row
    split at the | and the report carried the HTML."""
    import contextlib
    import io

    from touche.cli import main
    a, b = tmp_path / "x|y<img src=x onerror=alert(1)>.txt", tmp_path / "b.txt"
    a.write_text("1 Q0 d1 1 2 t\n1 Q0 d2 2 1 t\n2 Q0 d3 1 1 t\n")
    b.write_text("1 Q0 d2 1 2 t\n1 Q0 d1 2 1 t\n2 Q0 d3 1 1 t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 0\n1 0 d2 1\n2 0 d3 2\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["compare", str(a), str(b), str(qrels), "-o", str(tmp_path / "cmp.md")]) == 0
    text = (tmp_path / "cmp.md").read_text()
    assert "<" not in text and ">" not in text
    assert text.startswith("## b.txt vs x\\|y&lt;img src=x onerror=alert(1)&gt;.txt (touche.nDCG@5)\n")
    summary = [line for line in text.splitlines() if line.startswith("| mean over")]
    assert all(line.count(" | ") == 3 for line in summary)
    assert "| x\\|y&lt;img src=x onerror=alert(1)&gt;.txt (A) |" in text


def test_per_topic_table_rows_and_the_all_row():
    """A row per topic with three decimals; the ``all`` row says over how many topics most means
    are; a mean over fewer says its own count, an undefined one does not; measure columns are
    right-aligned (Markdown ``---:``), run and topic left."""
    scored = {"r": Scored({"m": 0.5, "n": 0.25, "s": math.nan, "f": 0.75}, {"m": 2, "n": 1, "s": 1},
                          {"m": {"1": 0.5, "2": 0.5}, "n": {"1": 0.25}})}
    text = format_per_topic(scored)
    assert table_rows(text) == [
        {"run": "r", "topic": "1", "m": "0.500", "n": "0.250", "s": "–", "f": "–"},
        {"run": "r", "topic": "2", "m": "0.500", "n": "–", "s": "–", "f": "–"},
        {"run": "r", "topic": "all (2)", "m": "0.500", "n": "0.250 (1)", "s": "–", "f": "0.750"}]
    rule = text.splitlines()[1]
    assert [cell.endswith(":") for cell in rule.strip("|").split("|")] == [False, False, True, True, True, True]


def test_per_topic_table_of_a_run_without_counts_says_all_over_zero():
    text = format_per_topic({"r": Scored({"m": 0.5}, {}, {})})
    assert table_rows(text) == [{"run": "r", "topic": "all (0)", "m": "0.500"}]


def test_compare_on_one_topic_and_with_no_resamples_says_so(tmp_path):
    run_a = one_topic_run(tmp_path / "a.txt", judged_documents()[:5])
    run_b = one_topic_run(tmp_path / "b.txt", judged_documents()[::-1][:5])
    code, text = cli("compare", str(run_a), str(run_b), str(RELEVANCE))
    assert code == 0 and "needs two or more common topics" in text and "Traceback" not in text
    for resamples in ("0", "-3"):
        code, text = cli("compare", str(run_a), str(run_b), str(RELEVANCE), "--resamples", resamples)
        assert code == 2 and "at least one resample" in text
