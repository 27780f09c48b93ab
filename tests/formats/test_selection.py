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

from tests.shared import DEMO, VARIANT, cli, demo_run
from touche.errors import ToucheError
from touche.retrieval.formats.selection import MAX_RANGE, TopicSelection, compact

RELEVANCE = DEMO / "qrels-relevance.txt"


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


def test_a_topic_selection_of_zero_padded_numbers_holds_out_those_topics(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from tests.shared import RELEVANCE
    from touche.retrieval.experiments.sweep import load_sweep
    # the demo's topics 4-6 renumbered 10-12: YAML 1.1 read [010, 011, 012] as 8, 9, 10
    renumber = {"4": "10", "5": "11", "6": "12"}
    topics = tmp_path / "topics.xml"
    topics.write_text(re.sub(r"<number>([456])</number>", lambda m: f"<number>{renumber[m.group(1)]}</number>",
                             (DEMO / "topics.xml").read_text()))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{renumber.get(line.split()[0], line.split()[0])} {line.split(None, 1)[1]}\n"
                             for line in RELEVANCE.read_text().splitlines() if line.strip()))
    chosen = demo_set(topics=str(topics), qrels={"relevance": str(qrels)})
    path = write_sets(tmp_path / "s.yaml", {"a": chosen, "b": chosen}, tmp_path / "out")
    path.write_text(path.read_text().replace("qrels:", "topics_except: [010, 011, 012]\n    qrels:", 1))
    sweep = load_sweep(path)
    assert [t.number for t in sweep.sets[0].selected_topics()] == ["1", "2", "3"]






def _shifted_run(path: Path, tag: str) -> Path:
    """A demo run whose topics 1 and 2 are perfect and the others reversed: the topics a
    selection keeps change its mean."""
    lines = demo_run(path.with_suffix(".base"), tag=tag).read_text().splitlines()
    by_topic: dict[str, list[str]] = {}
    for line in lines:
        by_topic.setdefault(line.split()[0], []).append(line.split()[2])
    out = []
    for qid, docs in by_topic.items():
        docs = docs if qid in ("1", "2") else list(reversed(docs))
        out += [f"{qid} Q0 {d} {r} {100 - r} {tag}\n" for r, d in enumerate(docs, 1)]
    path.write_text("".join(out))
    return path


# --------------------------------------------------------------------------- topic subsets
def test_evaluate_with_a_selection_equals_scoring_the_selected_topics_by_hand(tmp_path):
    from touche.retrieval.evaluation.measures import evaluate
    run = _shifted_run(tmp_path / "run.txt", "t")
    kept = tmp_path / "kept.txt"
    kept.write_text("".join(line + "\n" for line in run.read_text().splitlines() if line.split()[0] in ("1", "2", "5")))
    qrels_kept = tmp_path / "q.txt"
    qrels_kept.write_text("".join(line + "\n" for line in RELEVANCE.read_text().splitlines()
                                  if line.split()[0] in ("1", "2", "5")))
    by_hand = evaluate(kept, qrels_kept, ["touche.nDCG@5", "trec.P@10"])
    code, text = cli("evaluate", str(run), str(RELEVANCE), "--topics-only", "1-2,5", "--measures",
                     "touche.nDCG@5,trec.P@10")
    assert code == 0 and "scored on topics 1, 2, 5 only" in text
    row = next(line for line in text.splitlines() if line.startswith("| run.txt"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert (
        cells[1] == "3" and cells[2] == f"{by_hand['touche.nDCG@5']:.3f}" and cells[3] == f"{by_hand['trec.P@10']:.3f}"
    )
    code, text = cli("evaluate", str(run), str(RELEVANCE), "--topics-except", "3,4,6", "--measures", "touche.nDCG@5")
    assert f"{by_hand['touche.nDCG@5']:.3f}" in text and "all topics but 3, 4, 6" in text


def test_a_selection_naming_topics_the_runs_lack_is_refused(tmp_path):
    run = demo_run(tmp_path / "run.txt")
    code, text = cli("explore", str(run), "--topics-only", "7-9", "-o", str(tmp_path / "p.html"))
    assert code == 2 and "--topics-only 7-9: the range(s) 7-9 take none of them (the topics of the runs: 1-6)" in text
    code, text = cli("evaluate", str(run), str(RELEVANCE), "--topics-only", "1", "--topics-except", "2")
    assert code == 2 and "argument --topics-except: not allowed with argument --topics-only" in text
    for bad, message in (("2-1", "runs backwards"), ("x", "neither a topic number nor a range"),
                         ("1,1", "given twice")):
        code, text = cli("evaluate", str(run), str(RELEVANCE), "--topics-only", bad)
        assert code == 2 and message in text


def test_run_and_run_all_search_the_selected_topics_only(jvm_started, fixture_corpus, index_root, tmp_path):
    out = tmp_path / "one.txt"
    code, text = cli("run", "-c", VARIANT, "-i", str(fixture_corpus), "-t", str(fixture_corpus / "topics.xml"),
                     "-o", str(out), "--topics-only", "2", "--index-root", str(index_root))
    assert code == 0 and {line.split()[0] for line in out.read_text().splitlines()} == {"2"}
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n2 0 Sa0000002-A00000001 1\n")
    folder = tmp_path / "all"
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(folder), "-c", VARIANT, "--topics-except", "1",
                     "--qrels", str(qrels), "--index-root", str(index_root))
    assert code == 0, text
    assert {line.split()[0] for line in (folder / "run.txt").read_text().splitlines()} == {"2"}
    table = (folder / "evaluation.md").read_text()
    assert "| topics |" in table and "Scored on all topics but 1." in table


def test_compare_and_the_api_take_a_selection(tmp_path):
    from touche import api
    a, b = _shifted_run(tmp_path / "a.txt", "a"), demo_run(tmp_path / "b.txt", tag="b")
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "--topics-only", "3-6")
    assert code == 0 and "mean over the 4 common topics" in text
    whole = api.evaluate(a, {"relevance": RELEVANCE}, ["touche.nDCG@5"])
    kept = api.evaluate(a, {"relevance": RELEVANCE}, ["touche.nDCG@5"], topics_only="1,2")
    assert kept["relevance:touche.nDCG@5"] == 1.0 > whole["relevance:touche.nDCG@5"]
    frame = api.evaluate(a, {"relevance": RELEVANCE}, ["touche.nDCG@5"], topics_except=[1, 2], per_topic=True)
    assert set(frame["query_id"]) == {"3", "4", "5", "6"}
    table = api.experiment([a, b], {"relevance": RELEVANCE}, ["touche.nDCG@5"], topics_only=[1, 2])
    assert set(table["topics"]) == {2}


def test_a_sweep_set_takes_the_selection_as_the_options_spell_it(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import load_sweep
    sweep = load_sweep(write_sets(tmp_path / "s.yaml", {"a": demo_set(topics_except="1,3-4")}, tmp_path / "out"))
    chosen = sweep.sets[0].selection
    assert (chosen.kind, chosen.numbers, chosen.where) == ("except", frozenset({"1", "3", "4"}), "topics_except")


@pytest.mark.parametrize("kind", ["only", "except"])
def test_a_refusal_names_the_option_it_came_from(kind):
    with pytest.raises(ToucheError, match=rf"^--topics-{kind}: 'x' is neither a topic number nor a range"):
        TopicSelection.parse("x", kind)
    with pytest.raises(ToucheError, match=r"^topics_only: 'x' is neither"):
        TopicSelection.parse("x", kind, where="topics_only")


@pytest.mark.parametrize("spec", [[51, True], [False], ["51", None], [51.0]])
def test_a_list_item_that_is_no_topic_number_is_refused(spec):
    """YAML reads ``yes`` as text (1.2 core schema), but a Python caller may pass True: it is not topic 1."""
    with pytest.raises(ToucheError, match=r"is no topic number"):
        TopicSelection.parse(spec)


def test_one_range_holds_at_most_max_range_topics_however_high_its_numbers():
    assert len(TopicSelection.parse(f"1-{MAX_RANGE}").numbers) == MAX_RANGE
    with pytest.raises(ToucheError, match=rf"holds {MAX_RANGE + 1:,} topics; at most {MAX_RANGE:,}"):
        TopicSelection.parse(f"1-{MAX_RANGE + 1}")
    high = TopicSelection.parse(f"{MAX_RANGE - 2}-{MAX_RANGE + 2}")  # five topics, high numbers
    assert len(high.numbers) == 5


def test_ids_that_are_not_numbers_follow_the_numbers_as_written():
    assert compact(["53", "51", "52", "x1", "60", "b"]) == "51-53, 60, b, x1"
    assert compact(["١٢", "7"]) == "7, ١٢"  # a digit other than 0-9 is no topic number
    with pytest.raises(ToucheError, match=r"^--topics-only 9: topic\(s\) 9 is not among them \(the topics of the runs: "
                                          r"1, x1\)"):
        TopicSelection.parse("9").check_against(["1", "x1"], "the runs")
