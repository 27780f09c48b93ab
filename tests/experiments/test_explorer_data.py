"""Every number the run explorer shows (retrieval/experiments/explorer/data.py): the pooled stance
F1's cells and caveat, a count's caveat, a measure without per-topic parts shown without an
interval, a stance run's confusion matrix, image qrels' labels per aspect, the heat map's order
(average linkage on 1 − RBO), the agreement against RBO by hand, the p floor, each shown document's
ranks and scores."""
from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.stats  # noqa: F401  (imported here, not inside the first timed test)
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from tests.shared import REPO
from touche.errors import ToucheError
from touche.retrieval.evaluation.agreement import Agreement
from touche.retrieval.evaluation.significance import p_floor
from touche.retrieval.experiments.explorer import data as explorer
from touche.retrieval.experiments.explorer.build import check_qrels, load_runs
from touche.retrieval.experiments.explorer.data import explorer_data, similarity_order
from touche.retrieval.formats.qrels import STANCE_LABELS

TASK2 = REPO / "demo" / "task2"
STANCE_QRELS = TASK2 / "qrels-passages-stance.txt"
RELEVANCE_QRELS = TASK2 / "qrels-passages-relevance.txt"
IMAGE_QRELS = REPO / "demo" / "images" / "qrels.txt"


def _judged() -> list[list[str]]:
    return [line.split() for line in STANCE_QRELS.read_text().splitlines()]


def _stance_run(path: Path, predict, topics=("1", "2", "3", "4")) -> Path:
    """A Task 2 2022 run ranking every judged passage of each topic, with ``predict(truth)`` as stance."""
    ranks: dict[str, int] = {}
    lines = []
    for qid, _, docid, truth in _judged():
        if qid not in topics:
            continue
        ranks[qid] = ranks.get(qid, 0) + 1
        lines.append(f"{qid} {predict(truth)} {docid} {ranks[qid]} {100 - ranks[qid]} t\n")
    path.write_text("".join(lines))
    return path


def _page(tmp_path, predictors: dict, qrels: dict, topics=("1", "2", "3", "4"), **kwargs) -> dict:
    runs = [_stance_run(tmp_path / f"{name}.txt", predict, topics) for name, predict in predictors.items()]
    loaded = load_runs(runs)
    return explorer_data(loaded, qrels, check_qrels(qrels, loaded.format, loaded.runs), **{"resamples": 100, **kwargs})


EXACT, ALL_NO, NONE = (lambda truth: truth), (lambda truth: "NO"), (lambda truth: "Q0")


# --------------------------------------------------------------------------- pooled stance F1
def test_the_pooled_stance_f1_cell_holds_its_value_within_a_topic_bootstrap_interval(tmp_path):
    """A run saying NO to every passage: its macro F1 by hand is F1(NO) / 4 (the other classes
    score 0); the cell shows it, over the 4 topics, inside its (non-degenerate) interval."""
    page = _page(tmp_path, {"exact": EXACT, "no": ALL_NO}, {"stance": STANCE_QRELS})
    truths = [truth for *_, truth in _judged()]
    precision, recall = truths.count("NO") / len(truths), 1.0
    by_hand = 2 * precision * recall / (precision + recall) / 4
    cell = page["cells"]["no"]["stance:stance.F1_macro"]
    assert cell["mean"] == round(by_hand, 6) and cell["topics"] == 4  # shown to six decimals
    low, high = cell["ci"]
    assert low < high and low <= cell["mean"] <= high
    assert page["cells"]["exact"]["stance:stance.F1_macro"] == {"mean": 1.0, "ci": [1.0, 1.0], "topics": 4}


def test_the_pooled_measures_caveat_says_delta_and_p_are_of_pooled_values(tmp_path):
    """The page explains that a pooled F1's Δ is a difference of pooled values and its p a
    randomization test swapping predictions topic by topic; the pair is still tested."""
    page = _page(tmp_path, {"exact": EXACT, "no": ALL_NO}, {"stance": STANCE_QRELS})
    [note] = page["notes"]
    assert note.startswith("stance:stance.F1_macro: one value over all judged rows, not a mean of topics")
    assert "swapping the two runs' predictions" in note
    [[delta, p, wins, losses, ties, floor]] = page["pairs"]["stance:stance.F1_macro"]
    assert delta == pytest.approx(page["cells"]["no"]["stance:stance.F1_macro"]["mean"] - 1.0, abs=1e-6)
    assert (wins, losses, ties, floor) == (0, 4, 0, None) and 0 < p <= 1


def test_a_count_is_shown_with_a_caveat_and_never_tested(tmp_path):
    """stance.N counts judged rows: it gets a cell, a note that it is a count, and no pair test."""
    page = _page(tmp_path, {"exact": EXACT, "no": ALL_NO}, {"stance": STANCE_QRELS}, measures=["stance.N"])
    assert page["measures"] == ["stance:stance.N"]
    assert page["notes"] == ["stance:stance.N: a count, not an effectiveness measure: not tested against the baseline"]
    assert page["pairs"] == {} and page["cells"]["exact"]["stance:stance.N"]["topics"] == 4
    assert type(page["cells"]["exact"]["stance:stance.N"]["mean"]) is float  # a count, still a JSON number
    json.dumps(page, allow_nan=False)  # the page embeds it as JSON: plain numbers, no NaN


def test_a_measure_without_per_topic_parts_is_shown_without_interval_and_said_untested(tmp_path, monkeypatch):
    """A measure that is not a mean over topics and whose per-topic parts cannot be had: its
    mean is shown, its interval is empty (no topics resampled), and a note says why it has no Δ or p."""
    monkeypatch.setattr(explorer, "pooled_parts", lambda *args, **kwargs: None)
    page = _page(tmp_path, {"exact": EXACT, "no": ALL_NO}, {"stance": STANCE_QRELS})
    assert page["cells"]["exact"]["stance:stance.F1_macro"] == {"mean": 1.0, "ci": [None, None], "topics": 0}
    assert page["cells"]["no"]["stance:stance.F1_macro"]["ci"] == [None, None]
    assert page["notes"] == ["stance:stance.F1_macro: no Δ or p against the baseline: it is not a mean over topics "
                             "and has no per-topic parts to resample"]
    assert page["pairs"] == {}


# --------------------------------------------------------------------------- stance confusion
def test_a_run_that_predicts_stance_gets_its_confusion_matrix_and_one_that_does_not_none(tmp_path):
    """Rows are the judged stance, columns the predicted one, in STANCE_LABELS order (counted
    here from the qrels); a run writing Q0 predicts nothing and has no matrix."""
    page = _page(tmp_path, {"exact": EXACT, "no": ALL_NO, "none": NONE},
                 {"relevance": RELEVANCE_QRELS, "stance": STANCE_QRELS})
    labels = list(STANCE_LABELS)
    exact = np.zeros((4, 4), int)
    no = np.zeros((4, 4), int)
    for *_, truth in _judged():
        exact[labels.index(truth), labels.index(truth)] += 1
        no[labels.index(truth), labels.index("NO")] += 1
    stance = page["stance"]
    assert stance["exact"]["predicts"] and stance["exact"]["confusion"] == exact.tolist()
    assert stance["no"]["confusion"] == no.tolist()
    assert stance["none"] == {"predicts": False, "confusion": None, "per_topic": {}}
    assert stance["exact"]["per_topic"] == {t: [1.0, 1.0] for t in ("1", "2", "3", "4")}
    assert page["stance_labels"] == labels


# --------------------------------------------------------------------------- image labels
def test_image_qrels_labels_are_shown_per_aspect_as_integers(tmp_path):
    """A shown image's labels are its aspects' judgements (ONTOPIC, PRO, CON → 0/1), as the qrels say."""
    judged: dict[str, dict[str, int]] = {}
    for line in IMAGE_QRELS.read_text().splitlines():
        qid, aspect, docid, value = line.split()
        if qid == "1":
            judged.setdefault(docid, {})[aspect] = int(value)
    images = list(judged)[:20]  # a run ranks exactly 10 images per topic and stance, each under one
    assert len(images) == 20
    run = tmp_path / "images.txt"
    run.write_text("".join(f"1 {stance} {docid} {rank} {10 - rank} t\n" for stance, part in
                           (("PRO", images[:10]), ("CON", images[10:])) for rank, docid in enumerate(part, 1)))
    loaded = load_runs([run])
    qrels = {"image": IMAGE_QRELS}
    page = explorer_data(loaded, qrels, check_qrels(qrels, loaded.format, loaded.runs), resamples=100)
    [topic] = [t for t in page["topics"] if t["id"] == "1"]
    for docid in images:
        assert topic["info"][topic["docs"].index(docid)]["labels"] == {"image": judged[docid]}


# --------------------------------------------------------------------------- similarity order
def _agreement(rbo: dict[tuple[int, int], float], runs: int) -> Agreement:
    pairs = [(i, j) for i in range(runs) for j in range(i + 1, runs)]  # np.triu_indices' order
    means = np.array([[0.5, rbo[pair]] for pair in pairs])
    return Agreement(measures=["Jaccard@5", "RBO"], runs=[f"r{i}" for i in range(runs)], means=means)


def _scipy_order(rbo: dict[tuple[int, int], float], runs: int) -> list[int]:
    distance = np.zeros((runs, runs))
    for (i, j), value in rbo.items():
        distance[i, j] = distance[j, i] = 1 - (0.0 if math.isnan(value) else value)
    return leaves_list(linkage(squareform(distance), "average", optimal_ordering=True)).tolist()


def _adjacent(order: list[int], a: int, b: int) -> bool:
    return abs(order.index(a) - order.index(b)) == 1


def test_three_runs_are_ordered_so_that_the_two_that_agree_sit_together():
    """From three runs on, the heat map's order clusters: runs 0 and 2 (RBO 0.9) sit side by side
    though the files list run 1 between them; the order is scipy's average linkage on 1 − RBO."""
    rbo = {(0, 1): 0.1, (0, 2): 0.9, (1, 2): 0.2}
    order = similarity_order(_agreement(rbo, 3))
    assert sorted(order) == [0, 1, 2] and _adjacent(order, 0, 2)
    assert order == _scipy_order(rbo, 3)


def test_fewer_than_three_runs_keep_the_file_order():
    """Two runs (or none agreeing) have nothing to cluster: the files' order."""
    assert similarity_order(_agreement({(0, 1): 0.0}, 2)) == [0, 1]
    assert similarity_order(Agreement(measures=["RBO"], runs=["a", "b", "c"], means=None)) == [0, 1, 2]


def test_the_clustering_distance_is_one_minus_rbo_and_an_undefined_rbo_is_no_agreement():
    """Four runs, 0~2 and 1~3 agreeing (RBO 0.9), 0–1 undefined (nan): undefined counts as
    distance 1, so 0 and 1 are never put side by side; the order is scipy's on 1 − RBO (RBO
    is the column used, not the first)."""
    rbo = {(0, 1): math.nan, (0, 2): 0.9, (0, 3): 0.5, (1, 2): 0.5, (1, 3): 0.9, (2, 3): 0.5}
    order = similarity_order(_agreement(rbo, 4))
    assert _adjacent(order, 0, 2) and _adjacent(order, 1, 3) and not _adjacent(order, 0, 1)
    assert order == _scipy_order(rbo, 4)


# --------------------------------------------------------------------------- agreement values
def _rbo_by_hand(a: list[str], b: list[str], p: float) -> float:
    """RBO_ext for two rankings of equal length l: (1 − p)/p Σ_d A_d p^d + A_l p^l (Webber et al., eq. 30)."""
    depth = len(a)
    agree = [len(set(a[:d]) & set(b[:d])) / d for d in range(1, depth + 1)]
    return (1 - p) / p * sum(agree[d - 1] * p ** d for d in range(1, depth + 1)) + agree[-1] * p ** depth


def test_the_agreement_of_two_runs_matches_independent_rbo_jaccard_and_kendall(tmp_path):
    """Two runs of one topic, the second a shuffle of the first: the page's mean RBO, Jaccard@5,
    Jaccard@10 and Kendall's τ are what a hand computation and scipy.stats.kendalltau give."""
    docs = [f"doc-{n}" for n in range(10)]
    other = [docs[i] for i in (1, 0, 3, 2, 9, 8, 4, 5, 7, 6)]
    for name, ranking in (("a", docs), ("b", other)):
        (tmp_path / f"{name}.txt").write_text("".join(f"1 Q0 {d} {r} {20 - r} t\n" for r, d in enumerate(ranking, 1)))
    loaded = load_runs([tmp_path / "a.txt", tmp_path / "b.txt"])
    page = explorer_data(loaded, {}, {}, rbo_p=0.8)
    values = dict(zip(page["agreement_measures"], page["agreement"][0]))
    assert values["RBO"] == pytest.approx(_rbo_by_hand(docs, other, 0.8), abs=1e-6)
    assert values["Jaccard@5"] == pytest.approx(
        len(set(docs[:5]) & set(other[:5])) / len(set(docs[:5]) | set(other[:5]))
    )
    assert values["Jaccard@10"] == 1.0
    tau = [m for m in page["agreement_measures"] if "τ" in m or "tau" in m.lower()]
    kendall = scipy.stats.kendalltau(range(10), [other.index(d) for d in docs]).statistic
    assert any(values[m] == pytest.approx(kendall, abs=1e-6) for m in tau), (tau, values, kendall)
    assert page["main"] == "RBO" and page["measures"] == [] and page["similarity"] == [0, 1]


# --------------------------------------------------------------------------- the p floor
RELEVANCE = "relevance:touche.nDCG@5"


def _floor(tmp_path, topics: int, **kwargs):
    """The p floor of two runs of ``topics`` topics, the second ranking each topic's judged
    documents in reverse (so the two differ on every topic)."""
    labels = {str(t): {f"t{t}-d{n}": (t + n) % 3 for n in range(5)} for t in range(1, topics + 1)}
    qrels = {"relevance": tmp_path / "qrels.txt"}
    qrels["relevance"].write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in labels.items() for d, v in docs.items()))
    runs = [_q0(tmp_path / f"{name}.txt", {q: [(d, float(5 - n)) for n, d in enumerate(order(list(docs)))]
                                           for q, docs in labels.items()})
            for name, order in (("a", list), ("b", lambda ds: ds[::-1]))]
    loaded = load_runs(runs)
    page = explorer_data(loaded, qrels, check_qrels(qrels, loaded.format, loaded.runs),
                         measures=["touche.nDCG@5"], **kwargs)
    return page["pairs"][RELEVANCE][0][5]


@pytest.mark.parametrize("topics, resamples, floor", [
    (16, 5, None),  # 2^16 sign flips or fewer are enumerated: p is exact, no floor
    (17, 5, p_floor(5)),  # sampled: p cannot go below 2 / 6
])
def test_the_p_floor_is_shown_only_where_the_randomization_test_samples(tmp_path, topics, resamples, floor):
    assert _floor(tmp_path, topics, resamples=resamples) == (None if floor is None else pytest.approx(floor, abs=1e-6))


def test_a_t_test_has_no_p_floor(tmp_path):
    assert _floor(tmp_path, 17, resamples=5, test="t") is None


# --------------------------------------------------------------------------- a topic's documents
def _q0(path: Path, topics: dict[str, list[tuple[str, float]]]) -> Path:
    path.write_text("".join(f"{qid} Q0 {docid} {rank} {score} t\n" for qid, hits in topics.items()
                            for rank, (docid, score) in enumerate(hits, 1)))
    return path


def _ranks(topic: dict, runs: int) -> list[list[int]]:
    return np.frombuffer(base64.b64decode(topic["ranks"]), np.uint8).reshape(len(topic["docs"]), runs).tolist()


def test_each_shown_document_has_every_runs_rank_up_to_255_else_0(tmp_path):
    """Run b ranks d2 1st, d1 255th, d3 256th (beyond what the page stores: 0) and e1 2nd: each
    shown document's rank in each run, however deep, per topic."""
    filler = [(f"x{n}", 0.0) for n in range(300)]
    b_topic1 = [("d2", 1000.0)] + [(d, 900.0 - n) for n, (d, _) in enumerate(filler[:253])] + \
        [("d1", 10.0), ("d3", 9.0)] + [(d, 1.0 - n / 1000) for n, (d, _) in enumerate(filler[253:260])]
    a = _q0(tmp_path / "a.txt", {"1": [("d1", 3.0), ("d2", 2.0), ("d3", 1.0)], "2": [("e1", 1.0)]})
    b = _q0(tmp_path / "b.txt", {"1": b_topic1, "2": [("e0", 2.0), ("e1", 1.0)]})
    page = explorer_data(load_runs([a, b]), {}, {}, top=3)
    one, two = page["topics"]
    assert one["docs"][:3] == ["d1", "d2", "d3"]
    assert _ranks(one, 2)[:3] == [[1, 255], [2, 1], [3, 0]]
    assert two["docs"] == ["e1", "e0"] and _ranks(two, 2) == [[1, 2], [0, 1]]


def test_shown_hits_hold_scores_to_six_decimals_and_no_corpus_means_nothing_said(tmp_path):
    """Without a corpus a document's record says nothing about its text (absent: None); a hit's
    score is rounded to six decimals; by default each run's top 10 are shown."""
    run = _q0(tmp_path / "a.txt", {"1": [(f"d{n}", 0.1234567 - n / 100) for n in range(12)]})
    page = explorer_data(load_runs([run]), {}, {})
    [topic] = page["topics"]
    assert page["top"] == 10 and len(topic["hits"]["a"]) == 10
    assert topic["hits"]["a"][0] == [0, 1, 0.123457, "Q0"]
    assert topic["info"][0] == {"labels": {}, "absent": None}


def test_top_must_be_at_least_one(tmp_path):
    run = _q0(tmp_path / "a.txt", {"1": [("d1", 1.0), ("d2", 0.5)]})
    with pytest.raises(ToucheError, match="--top must be at least 1, got 0"):
        explorer_data(load_runs([run]), {}, {}, top=0)
    assert explorer_data(load_runs([run]), {}, {}, top=1)["topics"][0]["docs"] == ["d1"]
