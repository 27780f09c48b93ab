"""Task 1's re-ranking stages on small hand-made rankings: near-duplicate removal, RM3 feedback,
the learned quality model, the dense feature, and their validation through the config."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import REPO
from touche.config import validate
from touche.errors import ConfigError
from touche.indexing.records import Argument, Premise
from touche.retrieval.formats.topics import Topic
from touche.retrieval.stages import STAGES, StageContext
from touche.retrieval.stages.dedup import NearDuplicates
from touche.retrieval.stages.quality.model import MODEL_FILE, QualityModel, load, predict, text_features
from touche.retrieval.stages.rm3 import RM3

LONG = ("Tenure protects teachers from being fired for unpopular opinions. Because of this, teachers can "
        "teach evolution or controversial books without fear. Studies show that schools with tenure keep "
        "experienced teachers longer, which improves student outcomes.")


class FakeSearcher:
    """Stored raw arguments by id, and a search that records the queries it was given."""

    def __init__(self, texts: dict[str, tuple[str, str]]):
        self.records = {d: Argument(d, c, (Premise(p, "PRO"),)).to_json() for d, (c, p) in texts.items()}
        self.searched: dict[str, str] = {}

    def raw(self, ids):
        return {d: self.records.get(d) for d in ids}


def context(searcher: FakeSearcher, queries=None, search=None) -> StageContext:
    return StageContext(variant_path=REPO / "configs" / "task1" / "x.yaml",
                        topics={"1": Topic("1", "Should teachers get tenure?", "", "")},
                        queries=queries or {"1": "teachers tenure"}, searcher=searcher, top_k=1000,
                        run_variant=lambda path: {}, search=search or (lambda q: {}), progress=False)


def test_dedup_keeps_the_best_ranked_copy_and_moves_the_others_below():
    searcher = FakeSearcher({
        "a": ("Tenure is good", LONG),
        "b": ("Tenure is good!", LONG.replace("Studies", "studies")),  # same words after normalising
        "c": ("Tenure is bad", "Tenure keeps bad teachers in their jobs, and students pay for it every year."),
        "d": ("Copy", LONG + " Also, unions agree."),  # a near copy: most 5-grams shared
        "e": ("Other", "Merit pay rewards good teaching better than tenure does, say many parents."),
    })
    ranking = {"1": [("a", 9.0), ("b", 8.0), ("c", 7.0), ("d", 6.0), ("e", 5.0)]}
    out = NearDuplicates(depth=5).apply(ranking, context(searcher))["1"]
    assert [d for d, _ in out] == ["a", "c", "e", "b", "d"]
    assert all(x[1] > y[1] for x, y in zip(out, out[1:]))  # strictly decreasing: a valid run
    exact = NearDuplicates(depth=5, threshold=1.0).apply(ranking, context(searcher))["1"]
    assert [d for d, _ in exact] == ["a", "c", "d", "e", "b"]  # only the normalised-equal copy moves


def test_rm3_expands_the_query_with_feedback_terms_and_searches_again():
    searcher = FakeSearcher({"a": ("Tenure", "tenure protects academic freedom freedom freedom"),
                             "b": ("Tenure", "academic freedom needs tenure protection")})
    asked = {}

    def search(queries):
        asked.update(queries)
        return {"1": [("b", 2.0), ("a", 1.0)]}

    stage = RM3(fb_docs=2, fb_terms=3, original_weight=0.5, resolution=10)
    out = stage.apply({"1": [("a", 3.0), ("b", 1.0)]}, context(searcher, search=search))
    assert out == {"1": [("b", 2.0), ("a", 1.0)]}  # the second search's ranking
    words = asked["1"].split()
    assert words.count("teachers") == 5 and words.count("tenure") >= 5  # the original query, weight 0.5 of 10
    assert "freedom" in words and "academic" in words and "the" not in words


def test_the_quality_model_ships_and_ranks_a_reasoned_argument_above_a_one_liner():
    model = load()
    assert model["examples"] == 1610 and model["features"] == list(text_features("", "x"))
    assert predict(model, "Tenure", LONG) > predict(model, "Tenure", "lol no!!! tenure sux") + 0.5
    searcher = FakeSearcher({"long": ("Tenure", LONG), "short": ("Tenure", "lol no!!! tenure sux")})
    out = QualityModel(depth=2, weight=1.0).apply({"1": [("short", 1.0), ("long", 0.99)]}, context(searcher))
    assert [d for d, _ in out["1"]] == ["long", "short"]


def test_training_reproduces_the_shipped_model():
    from tests.shared import require_shared
    from touche.retrieval.stages.quality.model import train

    csv = require_shared() / "corpora" / "webis-argquality20-full.csv"
    assert train(csv) == load(MODEL_FILE)


def test_every_stage_is_reachable_by_its_yaml_name():
    assert set(STAGES) == {"argument_quality", "rrf", "dedup", "rm3", "quality_model", "dense"}
    variant = validate({"tag": "t", "rerank": [{"name": "dedup", "depth": 50}, {"name": "rm3", "fb_terms": 5},
                                               {"name": "quality_model", "weight": 0.2},
                                               {"name": "dense", "depth": 20}]}, Path("v.yaml"))
    assert [type(s).__name__ for s in variant.rerank] == ["NearDuplicates", "RM3", "QualityModel", "DenseSimilarity"]
    with pytest.raises(ConfigError, match=r"rerank\.0\.threshold"):
        validate({"tag": "t", "rerank": [{"name": "dedup", "threshold": 2}]}, Path("v.yaml"))
    with pytest.raises(ConfigError, match="unknown name 'bm42'; expected 'argument_quality', 'rrf'"):
        validate({"tag": "t", "rerank": [{"name": "bm42"}]}, Path("v.yaml"))


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_quality_model_that_is_a_folder_pipe_or_device_is_named_so_not_read(tmp_path, kind):
    """``model:`` a folder or a device was "not found"; a device (/dev/zero) would be read for ever.
    The pipe and the device are the test's own (mkfifo, mknod of /dev/null's numbers) in its folder."""
    import os
    import stat
    import threading

    from touche.errors import InputError
    model = tmp_path / "m.json"
    if kind == "folder":
        model.mkdir()
    elif kind == "fifo":
        os.mkfifo(model)
    else:
        try:
            os.mknod(model, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("mknod needs CAP_MKNOD")
    variant = tmp_path / "v.yaml"
    variant.write_text("tag: t\nrerank: [{name: quality_model, model: m.json}]\n")
    stage = validate({"tag": "t", "rerank": [{"name": "quality_model", "model": "m.json"}]}, variant).rerank[0]
    said = {"folder": "is a folder", "fifo": "is a named pipe", "device": "is a device"}[kind]
    done = threading.Event()
    timer = threading.Timer(20, lambda: done.is_set() or os.open(model, os.O_WRONLY | os.O_NONBLOCK)
                            if kind == "fifo" else None)
    timer.start()  # a reader blocked on the pipe (the bug) is released, so the test fails instead of hanging
    try:
        with pytest.raises(InputError, match=rf"{said}, not the quality model file") as refused:
            stage.check_files(tmp_path)
        assert str(model) in str(refused.value) and "quality_model.model" in str(refused.value)
        with pytest.raises(InputError, match=said):
            load(model)
    finally:
        done.set()
        timer.cancel()
