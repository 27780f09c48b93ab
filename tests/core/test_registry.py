"""A task, a corpus family and a significance test are each declared in one place
(touche/registry.py; significance.SIGNIFICANCE_TESTS): a toy of each, declared from this module
alone, reaches the command line's choices, the detection of a TIRA input folder's task, the
variant schema (choices, descriptions, the task's settings section) and, for the test, every
pair's p and the explorer's page and exports (docs/architecture.md, "How to add …")."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from pydantic import Field
from scipy import stats

from touche import config, inputs, registry
from touche.cli import build_parser
from touche.errors import ConfigError, InputError
from touche.indexing.corpora import open_corpus
from touche.retrieval.evaluation import significance
from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.tasks import TaskHandler, handler, q0_rows
from touche.specs import Strict


class ToySpec(Strict):
    boost: float = Field(1.0, description="how much the toy boosts")


TOY_HANDLER = TaskHandler(RunFormat.Q0, ("toy-lines",), q0_rows)


class ToySource:
    """A corpus family's reader: the registry names it, open_corpus makes it."""

    def __init__(self, path: Path, *, skip_bad_records: bool = False):
        self.path = path
        self.skip_bad_records = skip_bad_records


def _parse(argv: list[str]):
    return build_parser([argv[0]]).parse_args(argv)


@pytest.fixture()
def toy_task():
    registry.register_task("toy", registry.Task(f"{__name__}:TOY_HANDLER", "toy documents (a test's)", ("*.toy",),
                                                "toy files", "toy", "toy.words (the toy's own)"),
                           registry.TaskSection(f"{ToySpec.__module__}:ToySpec", "the toy task's settings"))
    yield
    registry.unregister(registry.TASKS, "toy")
    registry.unregister(registry.TASK_SECTIONS, "toy")


@pytest.fixture()
def toy_family():
    registry.register_corpus_family("toy-lines", registry.CorpusFamily(f"{__name__}:ToySource",
                                                                       "toy-lines (one document a line)"))
    yield
    registry.unregister(registry.CORPUS_FAMILIES, "toy-lines")


# --------------------------------------------------------------------------- a task
def test_a_declared_task_is_a_choice_of_run_all(toy_task):
    assert _parse(["run-all", "--task", "toy"]).task == "toy"


def test_an_undeclared_task_is_no_choice_of_run_all(capsys):
    with pytest.raises(SystemExit) as exit_:
        _parse(["run-all", "--task", "toy"])
    assert exit_.value.code == 2 and "invalid choice: 'toy'" in capsys.readouterr().err


def test_a_declared_tasks_input_folder_is_detected_by_its_markers(toy_task, tmp_path):
    (tmp_path / "corpus.toy").write_text("d1 some text\n")
    assert inputs.detect_task(tmp_path) == "toy"
    assert inputs.task_of(None, tmp_path) == "toy"


def test_a_folder_of_none_of_the_tasks_names_the_declared_tasks_files(toy_task, tmp_path):
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(InputError) as error:
        inputs.detect_task(tmp_path)
    assert ("holds no corpus (args.me JSON *.json, the 2022 sentence CSV, ClueWeb12 WARC files, passage JSONL, "
            "images/ or toy files); it holds notes.txt") in str(error.value)


def test_a_folder_holding_a_declared_tasks_and_anothers_files_is_refused(toy_task, tmp_path):
    (tmp_path / "corpus.toy").write_text("")
    (tmp_path / "passages.jsonl").write_text("")
    with pytest.raises(InputError, match=r"holds the files of two tasks \(toy and task2-stance\)"):
        inputs.detect_task(tmp_path)


def test_a_declared_task_and_its_section_are_in_the_schema(toy_task, tmp_path):
    variant = config.validate({"tag": "t", "task": "toy", "toy": {"boost": 2.5}}, tmp_path / "v.yaml")
    assert variant.task == "toy" and isinstance(variant.toy, ToySpec) and variant.toy.boost == 2.5
    assert handler("toy") is TOY_HANDLER
    described = config.VariantSpec.model_fields["task"].description
    assert described.endswith("; image: images per stance (2022/23); toy: toy documents (a test's)")
    assert config.VariantSpec.model_fields["toy"].description == "the toy task's settings"
    with pytest.raises(ConfigError, match="toy.bogus"):  # the section is as strict as every other
        config.validate({"tag": "t", "task": "toy", "toy": {"bogus": 1}}, tmp_path / "v.yaml")


def test_a_task_whose_handler_makes_the_queries_refuses_the_query_keys_it_ignores(toy_task, tmp_path):
    with pytest.raises(ConfigError, match=r"query.text has no effect in toy variants: their queries come from "
                                          r"toy.words \(the toy's own\)"):
        config.validate({"tag": "t", "task": "toy", "query": {"text": "title+description"}}, tmp_path / "v.yaml")


def test_a_task_taken_back_leaves_the_schema(tmp_path):
    with pytest.raises(ConfigError):
        config.validate({"tag": "t", "task": "toy"}, tmp_path / "v.yaml")
    with pytest.raises(ConfigError, match="toy"):
        config.validate({"tag": "t", "toy": {}}, tmp_path / "v.yaml")


def test_a_task_naming_an_undeclared_section_is_refused():
    with pytest.raises(ValueError, match="'nowhere', which is not declared"):
        registry.register_task("lost", registry.Task(f"{__name__}:TOY_HANDLER", "lost", section="nowhere"))
    assert "lost" not in registry.TASKS


def test_the_shipped_tasks_markers_are_what_their_folders_hold():
    """The markers moved from touche/inputs.py to the declarations: each shipped task's."""
    assert {name: task.markers for name, task in registry.TASKS.items() if name != "toy"} == {
        "task1": ("*.json",), "task1-pairs": ("*.csv",),
        "task2": ("ClueWeb12_*", "*.warc.gz", "*/*.warc.gz", "*/*/*.warc.gz"),
        "task2-stance": ("*.jsonl", "*.jsonl.gz"), "image": ("images/I*", "I??/I*")}


# --------------------------------------------------------------------------- a corpus family
def test_a_declared_corpus_family_is_a_choice_of_explore(toy_family):
    assert _parse(["explore", "run.txt", "--corpus-format", "toy-lines"]).corpus_format == "toy-lines"


def test_an_undeclared_corpus_family_is_no_choice_of_explore(capsys):
    with pytest.raises(SystemExit):
        _parse(["explore", "run.txt", "--corpus-format", "toy-lines"])
    assert "invalid choice: 'toy-lines'" in capsys.readouterr().err


def test_a_declared_corpus_family_is_in_the_schema_and_opens_with_its_reader(toy_family, tmp_path):
    variant = config.validate({"tag": "t", "corpus": {"format": "toy-lines"}}, tmp_path / "v.yaml")
    assert variant.corpus.format == "toy-lines"
    assert config.CorpusSpec.model_fields["format"].description.endswith(
        "images (image collection), toy-lines (one document a line)")
    source = open_corpus("toy-lines", tmp_path / "docs.txt", skip_bad_records=True)
    assert isinstance(source, ToySource) and source.path == tmp_path / "docs.txt" and source.skip_bad_records


def test_an_undeclared_corpus_family_is_refused_by_the_schema(tmp_path):
    with pytest.raises(ConfigError, match="corpus.format"):
        config.validate({"tag": "t", "corpus": {"format": "toy-lines"}}, tmp_path / "v.yaml")


# --------------------------------------------------------------------------- a significance test
def _sign_test(a, b, resamples, seed) -> float:
    """The exact two-sided sign test (ties dropped): scipy's binomial test of the wins."""
    diffs = [x - y for x, y in zip(a, b) if abs(x - y) > significance.TIE_TOLERANCE]
    if not diffs:
        return 1.0
    return float(stats.binomtest(sum(d > 0 for d in diffs), len(diffs), 0.5).pvalue)


@pytest.fixture()
def toy_test(monkeypatch):
    monkeypatch.setitem(significance.SIGNIFICANCE_TESTS, "sign", significance.SignificanceTest("sign test", _sign_test))


def test_a_declared_significance_test_is_a_choice_of_explore(toy_test):
    assert _parse(["explore", "run.txt", "--test", "sign"]).test == "sign"


def test_every_pair_is_tested_by_the_declared_test(toy_test):
    """pairwise gives each pair the declared test's p (it fell back to Wilcoxon's for any test
    other than randomization and t). Wins 6 of 6: p = 2 / 2^6; 5 of 6 (one loss): 14 / 64."""
    topics = [str(t) for t in range(1, 7)]
    base = dict.fromkeys(topics, 0.5)
    better = {t: 0.6 + 0.01 * i for i, t in enumerate(topics)}
    mixed = {**better, "6": 0.4}
    found = significance.pairwise([base, better, mixed], [(0, 1), (0, 2)], "sign")
    assert [t.p for t in found] == [pytest.approx(2 / 64), pytest.approx(14 / 64)]
    assert [(t.wins, t.losses, t.ties, t.exact) for t in found] == [(6, 0, 0, True), (5, 1, 0, True)]
    wilcoxon = significance.pairwise([base, mixed], [(0, 1)], "wilcoxon")[0].p
    assert not math.isclose(wilcoxon, 14 / 64)


def test_the_explorer_names_the_declared_test_and_gives_no_floor(toy_test, tmp_path):
    from touche import api
    lines = {"base": [0.5] * 6, "other": [0.9, 0.8, 0.7, 0.6, 0.4, 0.3]}
    runs = []
    for name, scores in lines.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{t} Q0 d{d} {d} {s - d / 100:.3f} {name}\n"
                                for t in range(1, 7) for d, s in enumerate([scores[t - 1]] * 3, 1)))
        runs.append(str(path))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{1 + t % 3} {1 + t % 2}\n" for t in range(1, 7)))
    page = api.explore(runs, [f"relevance={qrels}"], out=tmp_path / "explore.html", test="sign",
                       markdown=tmp_path / "overview.md").read_text()
    overview = (tmp_path / "overview.md").read_text()
    assert '"test":"sign"' in page and '"test_name":"sign test"' in page
    assert "(α = 0.05, sign test, Holm correction" in overview
    assert "randomization test's floor" not in overview  # the floor is a resampled test's


def test_a_resampled_test_says_its_floor(tmp_path):
    assert significance.SIGNIFICANCE_TESTS["randomization"].resampled
    assert not any(t.resampled for name, t in significance.SIGNIFICANCE_TESTS.items() if name != "randomization")
    diffs = np.array([[0.1, 0.2, 0.3, -0.1, 0.2]])
    p, exact = significance.SIGNIFICANCE_TESTS["randomization"].of_rows(diffs, 1000, 1)
    assert exact and p[0] == pytest.approx(significance.paired_randomization_test(diffs[0], np.zeros(5),
                                                                               resamples=1000, seed=1))
