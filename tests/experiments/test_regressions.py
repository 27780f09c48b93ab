"""Pinned regressions (Anserini-style): every suite's demo figures — the statistics of every index
it builds and every variant's scores — equal its configs/<task>/regression.yaml exactly.
A change that moves one fails here until the pin is rewritten on purpose with
``touche regressions --write``."""
from __future__ import annotations

import copy

import pytest

from touche.retrieval.experiments.regressions import differences, measure, pinned, suites


@pytest.mark.parametrize("suite", suites(), ids=lambda s: s.parent.name)
def test_the_suite_gives_its_pinned_figures(suite, jvm_started, tmp_path_factory):
    """Each suite's indexes built afresh in a root of its own: a pin is of a fresh build, never of an
    index another test of the session built or left (the image suite read 3038 terms, not 3191, after
    the test layout changed which tests ran before it)."""
    warnings: dict[str, list] = {}
    figures = measure(suite, tmp_path_factory.mktemp(f"regression-{suite.parent.name}"), warnings)
    assert figures["scores"], "the demo suite evaluated nothing"
    assert differences(pinned(suite), figures) == []
    # the toolkit's own runs carry no tie any evaluator would order its own way (issue 52)
    assert {name: [w for w in found if w.kind == "tied score(s)"] for name, found in warnings.items()} == \
        {name: [] for name in warnings}


def test_the_example_variants_and_fusion_write_no_ties(jvm_started, index_root):
    from pathlib import Path
    examples = Path(__file__).resolve().parents[2] / "configs" / "task1" / "examples" / "suite.yaml"
    warnings: dict[str, list] = {}
    measure(examples, index_root, warnings)
    assert len(warnings) == 5 and not [w for found in warnings.values() for w in found if w.kind == "tied score(s)"]


def test_a_moved_figure_is_reported_with_its_place():
    """The comparison itself: one changed score and one changed statistic are both named."""
    pins = {"indexes": {"1-bm25": {"documents": 320}}, "scores": {"3-lmd": {"relevance:touche.nDCG@5": 0.8504}}}
    now = copy.deepcopy(pins)
    now["scores"]["3-lmd"]["relevance:touche.nDCG@5"] = 0.55
    now["indexes"]["1-bm25"]["documents"] = 319
    assert differences(pins, now) == ["indexes.1-bm25.documents: pinned 320 → now 319",
                                      "scores.3-lmd.relevance:touche.nDCG@5: pinned 0.8504 → now 0.55"]
    assert differences(None, now) == ["no regression.yaml: run touche regressions --write"]
