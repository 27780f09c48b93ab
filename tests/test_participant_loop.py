"""A participant's everyday loop (issue 52): topic subsets in every command and the API, per-topic
scores, words when the qrels do not fit, runs of our own without ambiguous ties, errors that name
their cause, progress that suits a log, TIRA folders, restricted official runs, sweeps that say
where their best point lies, and shingles without a filler."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import cli, demo_run
from touche.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "demo"
RELEVANCE = DEMO / "qrels-relevance.txt"
QUALITY = DEMO / "qrels-quality.txt"
VARIANT = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")


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


# --------------------------------------------------------------------------- 1. topic subsets
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


# --------------------------------------------------------------------------- 2. qrels that do not fit
def test_qrels_that_judge_none_of_a_runs_documents_or_topics_are_said_to(tmp_path):
    run = demo_run(tmp_path / "run.txt")
    other = tmp_path / "other.txt"
    other.write_text("1 0 clueweb12-0000tw-00-00000 2\n")
    code, text = cli("evaluate", str(run), str(other))
    assert code == 0 and f"{other} judges none of the documents of {run}" in text
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("77 0 Sa0000001-A00000001 2\n")
    code, text = cli("evaluate", str(run), str(elsewhere))
    assert code == 0 and "have no topic in common" in text and str(elsewhere) in text


# --------------------------------------------------------------------------- 3. no ambiguous ties
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([0.0, 1.0, -0.5, 12.3456789, 1e-30, 3.3e38, -3.3e38]),
                          st.floats(-1e6, 1e6, allow_nan=False, width=64)), min_size=1, max_size=60))
def test_untied_scores_strictly_decrease_for_every_evaluator_and_keep_their_order(scores):
    from touche.retrieval.formats.runwriter import untied
    ranked = sorted(scores, reverse=True)
    out = untied(ranked)
    assert len(out) == len(ranked)
    as32 = np.array([np.float32(repr(v)) for v in out])  # trec_eval reads the written text into a C float
    assert all(a > b for a, b in zip(out, out[1:]))  # Touché 2021 orders by the text as a double
    assert all(a > b for a, b in zip(as32, as32[1:]))
    strict = all(np.float32(a) > np.float32(b) for a, b in zip(ranked, ranked[1:]))
    if strict:  # nothing to untie: each score is the 32-bit float trec_eval read anyway
        assert list(as32) == [np.float32(v) for v in ranked]
    assert all(a <= np.float32(b) for a, b in zip(as32, ranked))  # a score only ever steps down


def test_a_written_run_of_ties_reads_alike_under_trec_eval_and_touches_evaluators(tmp_path):
    """Tied scores in rank order a, b, c: trec_eval reads them c, b, a (document id descending),
    Touché 2021 by score, Touché 2022 by rank. Untied, all three read a, b, c."""
    from touche.retrieval.evaluation.measures import evaluate
    from touche.retrieval.formats.runwriter import write_run
    rows = {"1": [("a", 1.0), ("b", 1.0), ("c", 1.0), ("d", 0.5)]}
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 0\n1 0 b 1\n1 0 c 2\n1 0 d 0\n")  # every document judged: one nDCG for all
    names = ["touche.nDCG@5", "touche2021.nDCG@5", "trec.nDCG@5"]
    tied = write_run(tmp_path / "tied.txt", rows, "q0", "t")
    assert any(w.kind == "tied score(s)" for w in tied.warnings)
    before = evaluate(tmp_path / "tied.txt", qrels, names)
    assert before["touche.nDCG@5"] != before["trec.nDCG@5"]  # the ambiguity: two evaluators, two orders
    written = write_run(tmp_path / "run.txt", rows, "q0", "t", untie=True)
    assert not written.warnings
    assert [line.split()[2] for line in (tmp_path / "run.txt").read_text().splitlines()] == ["a", "b", "c", "d"]
    after = evaluate(tmp_path / "run.txt", qrels, names)
    assert after["touche.nDCG@5"] == after["touche2021.nDCG@5"] == pytest.approx(after["trec.nDCG@5"])
    assert after["touche.nDCG@5"] == before["touche.nDCG@5"]  # the rank order is what it was


# --------------------------------------------------------------------------- 4. errors name their cause
def test_config_errors_name_the_set_the_variant_and_say_it_in_our_words(tmp_path, fixture_corpus):
    base = ["run", "-c", VARIANT, "-i", str(fixture_corpus), "-t", str(fixture_corpus / "topics.xml"), "-o",
            str(tmp_path / "r.txt")]
    code, text = cli(*base, "--set", "retrieval.similarity.k1=abc")
    assert code == 2 and text.startswith("error: --set retrieval.similarity.k1=abc: retrieval.similarity.k1: "
                                         "expected a number (got 'abc') (in variant")
    code, text = cli(*base, "--set", "analyzer.shingles=2")
    assert code == 2 and "expected a mapping of the keys filler, keep_unigrams, max_size, min_size (got 2)" in text
    variant = tmp_path / "v.yaml"
    variant.write_text(f"extends: {VARIANT}\ntag: x\nanalyzer: {{stoplist: nosuch.txt}}\n")
    code, text = cli("run", "-c", str(variant), *base[3:])
    assert code == 2 and text.startswith(f"error: {variant}: analyzer.stoplist: 'nosuch.txt' is neither a known list")


# --------------------------------------------------------------------------- 5. progress in a log
def test_progress_on_a_file_is_plain_lines_with_count_share_and_time_left(monkeypatch):
    from touche import progress as module
    stream = io.StringIO()
    bar = module.progress_bar(total=400, desc="indexing args.json", unit=" docs", file=stream)
    assert isinstance(bar, module.LineProgress)  # not a terminal
    clock = [100.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    bar.started = bar.last = 100.0
    for _ in range(4):
        clock[0] += 15
        bar.update(50)
    bar.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.splitlines() == ["indexing args.json: 100 of 400 docs (25 %), 3.3 docs/s, 1 min 30 s left",
                                 "indexing args.json: 200 of 400 docs (50 %), 3.3 docs/s, 1 min 00 s left",
                                 "indexing args.json: 200 docs in 1 min 00 s (3.3 docs/s)"]


def test_indexing_in_a_log_knows_its_total(tmp_path, fixture_corpus):
    env = {**os.environ, "TOUCHE_INDEX_ROOT": str(tmp_path / "indexes"), "TOUCHE_PROGRESS": "auto"}
    done = subprocess.run([sys.executable, "-m", "touche", "index", "-c", VARIANT, "-i", str(fixture_corpus)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("indexing"))
    assert "\r" not in done.stderr and "kB in " in line and "[5 docs]" in line


# --------------------------------------------------------------------------- 6. TIRA input folders
def test_run_all_reads_a_topics_file_of_another_name_and_refuses_a_folder_without_corpus(
        jvm_started, fixture_corpus, index_root, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "args.json").write_text((fixture_corpus / "args-fixture.json").read_text())
    (folder / "queries.xml").write_text((fixture_corpus / "topics.xml").read_text())
    code, text = cli("run-all", "-i", str(folder), "-o", str(tmp_path / "o1"), "--index-root", str(index_root))
    assert code == 2 and "it holds queries.xml: name the topics file with --topics" in text
    code, text = cli("run-all", "-i", str(folder), "-o", str(tmp_path / "o1"), "--topics", "queries.xml",
                     "--index-root", str(index_root), "-c", VARIANT)
    assert code == 0, text
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "topics.xml").write_text((fixture_corpus / "topics.xml").read_text())
    code, text = cli("run-all", "-i", str(empty), "-o", str(tmp_path / "o2"))
    assert code == 2 and "the input directory holds no corpus" in text and "it holds topics.xml" in text


# --------------------------------------------------------------------------- 7. official runs on a sample
def test_an_official_run_is_restricted_to_the_corpus_at_hand_and_a_mixed_table_cautioned(tmp_path, fixture_corpus):
    run = tmp_path / "official.txt"
    run.write_text("1 Q0 Sa0000009-A00000009 1 9.0 x\n1 Q0 Sa0000001-A00000001 2 8.0 x\n"
                   "1 Q0 Sa0000001-A00000002 3 7.0 x\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n1 0 Sa0000001-A00000002 1\n1 0 Sa0000009-A00000009 0\n")
    code, text = cli("evaluate", str(run), str(qrels), "--corpus", str(fixture_corpus), "--measures", "trec.nDCG@1")
    assert (
        code == 0 and "caution: official.txt holds 1 of its 3 documents" in text and re.search(r"\| +0\.000 \|", text)
    )
    code, text = cli("evaluate", str(run), str(qrels), "--corpus", str(fixture_corpus), "--restrict",
                     "--measures", "trec.nDCG@1")
    # the kept best first
    assert code == 0 and "official.txt (restricted)" in text and re.search(r"\| +1\.000 \|", text)


# --------------------------------------------------------------------------- 8. sweeps and choose
def test_a_sweep_says_when_its_best_point_is_on_the_grids_edge(jvm_started, index_root, tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set()}, tmp_path / "out")
    data = yaml.safe_load(path.read_text())
    data["sets"], data["grid"] = None, {"retrieval.similarity.k1": [0.3, 0.9, 2.0]}
    data.update(corpus=str(DEMO / "args.me"), topics=str(DEMO / "topics.xml"), qrels={"relevance": str(RELEVANCE)})
    del data["sets"]
    path.write_text(yaml.safe_dump(data))
    code, text = cli("sweep", str(path), "--index-root", str(index_root), "--quiet")
    assert code == 0, text
    results = (tmp_path / "out" / "results.md").read_text()
    best = next(line for line in results.splitlines() if line.startswith("- best:"))
    edge = "(the largest tried)" if "k1=2" in best else "(the smallest tried)" if "k1=0.3" in best else None
    if edge:
        assert "lies on the grid's edge**: retrieval.similarity.k1" in results and edge in results
        assert "note: the best point lies on the grid's edge" in text
    else:
        assert "grid's edge" not in results
    names = sorted(p.name for p in (tmp_path / "out" / "runs").glob("*.txt"))
    assert [n.split("--")[0] for n in names] == ["k1-0.3", "k1-0.9", "k1-2"]


def test_a_wide_numeric_axis_is_drawn_on_a_log_scale():
    from touche.retrieval.experiments.sweep.axes import Axis
    from touche.retrieval.experiments.sweep.figure import PlotPoint, sweep_figure
    axis = Axis("retrieval.similarity.mu", (500, 1000, 2000, 4000, 8000))
    assert axis.logarithmic and not Axis("k1", (0.9, 1.2, 1.5)).logarithmic
    figure = sweep_figure([axis, Axis("stemmer", ("none", "krovetz"))],
                          [PlotPoint({axis.label: m, "stemmer": s}, m / 10_000) for m in axis.values
                           for s in ("none", "krovetz")], "m")
    assert figure.axes[0].get_xscale() == "log" and figure.axes[1].get_xscale() == "linear"


def test_choose_says_its_counts_the_lowered_min_diff_and_tags_with_the_picks_own_settings(tmp_path):
    from tests.experiments.test_sweep import fake_results
    from touche.config import load_variant
    from touche.retrieval.experiments.choose.picks import own_tag, pick
    from touche.retrieval.experiments.choose.report import format_choices
    base = load_variant(REPO / "configs" / "task1" / "4-smart-lmd4000.yaml")
    assert base.variant.tag == "touche-smart-lmd4000"
    assert own_tag(base.variant.tag, base.merged, {"retrieval.similarity.mu": 2000}) == "touche-smart"
    assert own_tag(base.variant.tag, base.merged, {"analyzer.stemmer": "krovetz"}) == "touche-smart-lmd4000"
    results = fake_results(tmp_path, [
        ({"a": 1, "b": "x"}, .80, .50, "1 Q0 d1 1 1 t\n"),
        ({"a": 1, "b": "y"}, .79, .60, "1 Q0 d2 1 1 t\n"),
        ({"a": 2, "b": "x"}, .78, .40, "1 Q0 d3 1 1 t\n"),
        ({"a": 3, "b": "z"}, .60, .40, "1 Q0 d6 1 1 t\n"),
    ])
    picks = pick(results, second="quality:touche.nDCG@5", count=4)
    assert "lowered" not in picks[2].reason  # point 4 differs from both picks in both parameters
    assert "(--min-diff lowered from 2, the default, to 1: no finished point left differs in 2)" in picks[3].reason
    assert "4 pick(s) from the sweep's 4 finished point(s)" in format_choices(
        results, picks, ["relevance:touche.nDCG@5"]
    )


# --------------------------------------------------------------------------- 9. shingles
def test_the_shingle_filler_is_lucenes_underscore_another_word_or_none(jvm_started):
    from touche.config import load_variant
    from touche.stemming.analyzers import tokens
    variant = load_variant(VARIANT, {"analyzer.stoplist": "smart", "analyzer.stemmer": "none"}).variant

    def shingled(**shingles):
        spec = variant.analyzer.model_copy(update={"shingles": _shingle_spec(**shingles)})
        return tokens(spec, "Should teachers get tenure?")
    assert shingled() == ["_ teachers", "teachers", "teachers _", "_ tenure", "tenure"]
    assert shingled(filler="*") == ["* teachers", "teachers", "teachers *", "* tenure", "tenure"]
    assert shingled(filler="") == ["teachers", "teachers tenure", "tenure"]
    with pytest.raises(ConfigError, match="filler 'a b'"):
        load_variant(VARIANT, {"analyzer.shingles": {"filler": "a b"}})


def _shingle_spec(**values):
    from touche.config import ShingleSpec
    return ShingleSpec(**values)


def test_the_default_filler_keeps_every_index_key():
    from touche.config import load_variant
    shingled = REPO / "configs" / "task1" / "examples" / "4-krovetz-shingles.yaml"
    plain, explicit = load_variant(shingled), load_variant(shingled, {"analyzer.shingles.filler": "_"})
    assert plain.variant.index_key() == explicit.variant.index_key()
    assert load_variant(shingled, {"analyzer.shingles.filler": ""}).variant.index_key() != plain.variant.index_key()


# --------------------------------------------------------------------------- 10. per topic, several runs
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


# --------------------------------------------------------------------------- 11. the set-up's words
def test_the_set_up_says_it_adds_the_test_packages_not_that_it_creates_the_environment(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    fake = venv / "bin" / "python"
    fake.write_text("#!/bin/sh\nexit 0\n")  # pip and the helper build do nothing here
    fake.chmod(0o755)
    script = f"source {REPO / 'scripts' / 'ensure_env.sh'}"
    env = {**os.environ, "TOUCHE_VENV": str(venv), "TOUCHE_TEST_TOOLS": "0"}
    first = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "creating the project environment" in first.stderr
    second = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                            env={**env, "TOUCHE_TEST_TOOLS": "1"}, timeout=600)
    assert "adding the tests' packages" in second.stderr and "creating" not in second.stderr


def test_progress_labels_end_between_words_and_slow_rates_read_per_minute():
    from touche.progress import LABEL_WIDTH, LineProgress, fit_label
    label = "set 2021-dev5: analyzer.stemmer=krovetz, retrieval.similarity.mu=2000, rerank=quality_model, " \
            "query.field_weights.conclusion=0.5"
    short = fit_label(label)
    assert len(short) <= LABEL_WIDTH and short.endswith("…") and label.startswith(short[:-1])
    assert label[len(short) - 1] in " ,"  # cut where a word ends, not inside "query.field_we"
    assert fit_label("a short one") == "a short one"
    bar = LineProgress(total=300, unit=" run", desc=label)
    bar.n = 30
    assert bar.desc == short
    line = bar.line(bar.started + 300)  # 30 runs in 5 minutes: 0.1 a second
    assert "6.0 run/min" in line and "0 run/s" not in line
    slow = LineProgress(total=10, unit=" run")
    slow.n = 1
    assert "2 min 00 s per run" in slow.line(slow.started + 120)


def test_evaluate_of_a_whole_output_folder_leaves_its_reports_out(tmp_path):
    """``touche evaluate out/*`` (the shell lists every file) once read explore.html as qrels and
    evaluation.md as a run."""
    out = tmp_path / "out"
    out.mkdir()
    demo_run(out / "1-a.txt", tag="a")
    (out / "run.txt").write_bytes((out / "1-a.txt").read_bytes())
    code, _ = cli("explore", str(out / "1-a.txt"), "--qrels", f"relevance={RELEVANCE}", "-o", str(out / "explore.html"))
    assert code == 0
    (out / "evaluation.md").write_text("| run | topics | touche.nDCG@5 |\n|---|---:|---:|\n| 1-a | 6 | 1.000 |\n")
    code, text = cli("evaluate", *sorted(str(p) for p in out.iterdir()), str(RELEVANCE), "--measures", "touche.nDCG@5")
    assert code == 0, text
    assert "left out" in text and "explore.html: neither a run nor qrels" in text and "evaluation.md" in text
    assert [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ") and "run " not in line] \
        == ["1-a.txt", "run.txt"]
