"""One topic selection, whoever applies it (retrieval/formats/selection.py): a topic named on its own
that the topics (or, without topics, the runs and qrels) lack is an error; a range takes the topics
listed within it and is an error only when it takes none; the message names what was given and what
exists. The rule over ids and ranges (Hypothesis), then over every entry: run, run-all, evaluate,
compare, explore, sweep sets, the Python API and touche.pyterrier."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import cli, demo_run
from touche.errors import ToucheError
from touche.retrieval.formats.selection import TopicSelection

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo"
RELEVANCE = DEMO / "qrels-relevance.txt"
VARIANT = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")


# --------------------------------------------------------------------------- the rule over ids and ranges
@st.composite
def selections(draw):
    known = draw(st.sets(st.integers(1, 60), min_size=1, max_size=12))
    singles = draw(st.sets(st.integers(1, 70), max_size=4))
    ranges = []
    for low, width in draw(st.lists(st.tuples(st.integers(1, 70), st.integers(1, 8)), max_size=3)):
        high = low + width
        taken = set(singles).union(*(set(range(a, b + 1)) for a, b in ranges))
        if not taken & set(range(low, high + 1)):
            ranges.append((low, high))
    if not singles and not ranges:
        singles = {draw(st.integers(1, 70))}
    parts = [str(n) for n in sorted(singles)] + [f"{a}-{b}" for a, b in ranges]
    order = draw(st.permutations(parts))
    return known, singles, ranges, ",".join(order), draw(st.sampled_from(["only", "except"]))


@settings(max_examples=400, deadline=None)
@given(selections())
def test_a_single_topic_must_exist_and_a_range_takes_what_it_holds(case):
    known, singles, ranges, spec, kind = case
    named = set(singles).union(*(set(range(a, b + 1)) for a, b in ranges))
    kept = {n for n in known if (n in named) == (kind == "only")}
    missing = set(singles) - known
    empty = [(a, b) for a, b in ranges if not known & set(range(a, b + 1))]
    selection = TopicSelection.parse(spec, kind)
    if missing or empty or not kept:
        with pytest.raises(ToucheError) as refused:
            selection.checked_against([str(n) for n in known], "the topics file t.xml")
        message = str(refused.value)
        assert message.startswith(f"--topics-{kind} {spec}: ")  # what was given, as given
        assert message.endswith(f"(the topics of the topics file t.xml: {_compact(known)})")  # what exists
        if missing:
            assert f"topic(s) {_compact(missing)} " in message
        if empty:
            said = re.search(r"the range\(s\) (.*?) take none of them", message)[1]
            assert sorted(said.split(", ")) == sorted(f"{a}-{b}" for a, b in empty)
    else:
        checked = selection.checked_against([str(n) for n in known], "the topics file t.xml")
        assert checked.checked and {int(t) for t in checked.kept(str(n) for n in known)} == kept


def _compact(numbers) -> str:
    from touche.retrieval.formats.selection import compact
    return compact(str(n) for n in numbers)


def test_a_range_beyond_the_topics_takes_those_within_and_a_single_beyond_them_is_refused():
    topics = [str(n) for n in range(1, 51)]
    kept = TopicSelection.parse("1-53").checked_against(topics, "the topics file")
    assert kept.kept(topics) == set(topics)
    with pytest.raises(ToucheError, match=r"^--topics-only 53: topic\(s\) 53 is not among them \(the topics of the "
                                          r"topics file: 1-50\)$"):
        TopicSelection.parse("53").checked_against(topics, "the topics file")
    with pytest.raises(ToucheError, match=r"^topics_except 2,3,999: topic\(s\) 999 is not among them"):
        TopicSelection.parse("2,3,999", "except", where="topics_except").checked_against(topics, "the runs and qrels")
    with pytest.raises(ToucheError, match=r"--topics-except 1-50: it leaves none of them"):
        TopicSelection.parse("1-50", "except").checked_against(topics, "the runs")


# --------------------------------------------------------------------------- every entry
# Each entry applies a selection to the demo's six topics (the runs, qrels and topics file hold 1-6)
# or to the fixture corpus's two; it returns the topics it kept, or raises / exits 2 with the message.
SCORED = {"missing": ("2,99", None, "topic(s) 99 is not among them"),
          "partly": ("5-60", {"5", "6"}, None),
          "beyond": ("70-80", None, "the range(s) 70-80 take none of them")}
SEARCHED = {"missing": ("2,3", None, "topic(s) 3 is not among them"),
            "partly": ("2-9", {"2"}, None),
            "beyond": ("7-9", None, "the range(s) 7-9 take none of them")}


def _cli_topics(code: int, text: str, pattern: str) -> set[str]:
    if code != 0:
        raise ToucheError(text)
    return set(re.findall(pattern, text, flags=re.M))


def _evaluate_cli(tmp, spec):
    run = demo_run(tmp / "run.txt")
    code, text = cli("evaluate", str(run), str(RELEVANCE), "--per-topic", "--measures", "touche.nDCG@5",
                     "--topics-only", spec)
    return _cli_topics(code, text, r"^\| run\.txt \| (\d+) ")


def _compare_cli(tmp, spec):
    a, b = demo_run(tmp / "a.txt", tag="a"), demo_run(tmp / "b.txt", tag="b")
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "--topics-only", spec)
    return _cli_topics(code, text, r"^\| (\d+) \| ")


def _explore_cli(tmp, spec):
    run = demo_run(tmp / "run.txt")
    code, text = cli("explore", str(run), "--qrels", f"relevance={RELEVANCE}", "-t", str(DEMO / "topics.xml"),
                     "--topics-only", spec, "-o", str(tmp / "page.html"), "--csv", str(tmp / "values.csv"))
    return _cli_topics(code, (tmp / "values.csv").read_text() if code == 0 else text, r"^run,(\d+),")


def _sweep_set(tmp, spec):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import load_sweep
    sweep = load_sweep(write_sets(tmp / "s.yaml", {"a": demo_set(topics_only=spec)}, tmp / "out"))
    return {t.number for t in sweep.sets[0].selected_topics()}


def _api_evaluate(tmp, spec):
    from touche import api
    frame = api.evaluate(demo_run(tmp / "run.txt"), {"relevance": RELEVANCE}, "touche.nDCG@5", per_topic=True,
                         topics_only=spec)
    return set(frame["query_id"])


def _api_evaluate_runs(tmp, spec):
    from touche import api
    evaluation = api.evaluate_runs([demo_run(tmp / "run.txt"), f"relevance={RELEVANCE}"], topics_only=spec)
    return set(evaluation.scored["run.txt"].per_topic["relevance:touche.nDCG@5"])


def _api_experiment(tmp, spec):
    from touche import api
    table = api.experiment([demo_run(tmp / "a.txt", tag="a"), demo_run(tmp / "b.txt", tag="b")], RELEVANCE,
                           "touche.nDCG@5", topics_only=spec)
    return {str(n) for n in range(1, 7)} if table["topics"].iloc[0] == 6 else \
        {"5", "6"} if table["topics"].iloc[0] == 2 else set()


def _api_compare(tmp, spec):
    from touche import api
    comparison = api.compare(demo_run(tmp / "a.txt", tag="a"), demo_run(tmp / "b.txt", tag="b"), RELEVANCE,
                             topics_only=spec)
    return {row.topic for row in comparison.rows}


def _api_explore(tmp, spec):
    from touche import api
    api.explore([demo_run(tmp / "run.txt")], {"relevance": RELEVANCE}, out=tmp / "p.html", csv=tmp / "v.csv",
                topics_only=spec)
    return set(re.findall(r"^run,(\d+),", (tmp / "v.csv").read_text(), flags=re.M))


def _pyterrier_qrels(tmp, spec):
    tpt = pytest.importorskip("touche.pyterrier")
    return set(tpt.qrels(RELEVANCE, topics_only=spec)["qid"])


SCORING_ENTRIES = [_evaluate_cli, _compare_cli, _explore_cli, _sweep_set, _api_evaluate, _api_evaluate_runs,
                   _api_experiment, _api_compare, _api_explore, _pyterrier_qrels]


@pytest.mark.parametrize("case", list(SCORED))
@pytest.mark.parametrize("entry", SCORING_ENTRIES, ids=lambda f: f.__name__.strip("_"))
def test_every_scoring_entry_applies_the_one_rule(entry, case, tmp_path):
    spec, kept, refused = SCORED[case]
    if refused is None:
        assert entry(tmp_path, spec) == kept
    else:
        with pytest.raises(ToucheError, match=re.escape(refused)) as error:
            entry(tmp_path, spec)
        assert re.search(r"(--topics-only|topics_only) " + re.escape(spec), str(error.value))
        assert "1-6)" in str(error.value)  # what exists


def _run_cli(tmp, spec, corpus, index_root):
    out = tmp / "run.txt"
    code, text = cli("run", "-c", VARIANT, "-i", str(corpus), "-t", str(corpus / "topics.xml"), "-o", str(out),
                     "--topics-only", spec, "--index-root", str(index_root))
    return _cli_topics(code, out.read_text() if code == 0 else text, r"^(\d+) Q0")


def _run_all_cli(tmp, spec, corpus, index_root):
    code, text = cli("run-all", "-i", str(corpus), "-o", str(tmp / "out"), "-c", VARIANT, "--topics-only", spec,
                     "--index-root", str(index_root))
    return _cli_topics(code, (tmp / "out" / "run.txt").read_text() if code == 0 else text, r"^(\d+) Q0")


def _api_search(tmp, spec, corpus, index_root):
    from touche import api
    return set(api.search(VARIANT, corpus / "topics.xml", corpus, index_root=index_root, topics_only=spec)["query_id"])


def _pyterrier_topics(tmp, spec, corpus, index_root):
    tpt = pytest.importorskip("touche.pyterrier")
    return set(tpt.topics(corpus / "topics.xml", topics_only=spec)["qid"])


@pytest.mark.parametrize("case", list(SEARCHED))
@pytest.mark.parametrize("entry", [_run_cli, _run_all_cli, _api_search, _pyterrier_topics],
                         ids=lambda f: f.__name__.strip("_"))
def test_every_searching_entry_applies_the_one_rule(entry, case, jvm_started, fixture_corpus, index_root, tmp_path):
    spec, kept, refused = SEARCHED[case]
    if refused is None:
        assert entry(tmp_path, spec, fixture_corpus, index_root) == kept
    else:
        with pytest.raises(ToucheError, match=re.escape(refused)) as error:
            entry(tmp_path, spec, fixture_corpus, index_root)
        assert re.search(r"(--topics-only|topics_only) " + re.escape(spec), str(error.value))
        assert "1, 2)" in str(error.value)  # the topics file's topics


def test_a_held_out_list_with_a_typo_is_refused_not_silently_left_in(tmp_path):
    """compare --topics-except 2,3,999 once said nothing (999 is a typo: a test topic stays in)."""
    a, b = demo_run(tmp_path / "a.txt", tag="a"), demo_run(tmp_path / "b.txt", tag="b")
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "--topics-except", "2,3,999")
    assert code == 2 and "--topics-except 2,3,999: topic(s) 999 is not among them (the topics of the runs and " \
                         "qrels: 1-6)" in text
    code, text = cli("evaluate", str(a), str(RELEVANCE), "--topics-only", "999")
    assert code == 2 and "topic(s) 999 is not among them" in text


def test_a_sweep_set_names_the_set_and_the_topics_file(tmp_path):
    with pytest.raises(ToucheError, match=r"set a: topics_only 1,7: topic\(s\) 7 is not among them \(the topics of "
                                          r".*topics\.xml: 1-6\)"):
        _sweep_set(tmp_path, "1,7")
