"""One collection restriction (retrieval/evaluation/collection.py): wherever runs are scored with a
collection named (``--corpus``/``--restrict``, ``corpus=``/``restrict=``, explore's ``-i``,
``touche.pyterrier.Restrict``), a run holding documents the collection lacks is cautioned, and with
restrict every run is scored on its documents only (the others dropped, the rest ranked again)."""
from __future__ import annotations

import logging
import re

import pytest

from tests.shared import FIXTURE_ARGUMENTS, FIXTURE_TOPICS, VARIANT, cli, write_argsme

OUTSIDE = "Sa0000009-A00000009"  # in the official run, not in the fixture corpus


@pytest.fixture
def official(tmp_path):
    """A run retrieved from a bigger collection (its first document is not in the fixture corpus),
    a run on the fixture corpus, and qrels judging all three documents."""
    run = tmp_path / "official.txt"
    run.write_text(f"1 Q0 {OUTSIDE} 1 9.0 x\n1 Q0 Sa0000001-A00000001 2 8.0 x\n1 Q0 Sa0000001-A00000002 3 7.0 x\n")
    ours = tmp_path / "ours.txt"
    ours.write_text("1 Q0 Sa0000001-A00000002 1 9.0 y\n1 Q0 Sa0000001-A00000001 2 8.0 y\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text(f"1 0 Sa0000001-A00000001 2\n1 0 Sa0000001-A00000002 1\n1 0 {OUTSIDE} 0\n")
    return run, ours, qrels


CAUTION = re.compile(r"caution: official(\.txt)? holds 1 of its 3 (shown )?documents that \S+ lacks: it was retrieved "
                     r"from another collection")


def _evaluate_cli(run, ours, qrels, corpus, restrict, tmp):
    code, text = cli("evaluate", str(run), str(ours), str(qrels), "--corpus", str(corpus), "--measures", "trec.nDCG@1",
                     *(["--restrict"] if restrict else []))
    assert code == 0, text
    return text, float(re.search(r"\| official\.txt[^|]*\| +\d+ \| +([0-9.]+) \|", text)[1])


def _compare_cli(run, ours, qrels, corpus, restrict, tmp):
    code, text = cli("compare", str(ours), str(run), str(qrels), "--measure", "trec.nDCG@1", "--corpus", str(corpus),
                     *(["--restrict"] if restrict else []))
    assert code == 0, text
    return text, float(re.search(r"^\| 1 \| [0-9.]+ \| ([0-9.]+) \|", text, flags=re.M)[1])


def _explore_cli(run, ours, qrels, corpus, restrict, tmp):
    code, text = cli("explore", str(run), str(ours), "--qrels", f"relevance={qrels}", "-i", str(corpus), "--measures",
                     "trec.nDCG@1", "-o", str(tmp / "p.html"), "--csv", str(tmp / "v.csv"),
                     *(["--restrict"] if restrict else []))
    assert code == 0, text
    page = (tmp / "p.html").read_text()
    if not restrict:
        assert CAUTION.search(page.replace("&#39;", "'")), "the page itself says so, beside the table"
    return text, float(re.search(r"^official,1,relevance:trec\.nDCG@1,([0-9.]+)", (tmp / "v.csv").read_text(),
                                 flags=re.M)[1])


def _api_evaluate(run, ours, qrels, corpus, restrict, tmp):
    from touche import api
    return None, api.evaluate(run, qrels, "trec.nDCG@1", corpus=corpus, restrict=restrict)["trec.nDCG@1"]


def _api_evaluate_runs(run, ours, qrels, corpus, restrict, tmp):
    from touche import api
    evaluation = api.evaluate_runs([run, ours], {"relevance": qrels}, "trec.nDCG@1", corpus=corpus, restrict=restrict)
    name = "official.txt (restricted)" if restrict else "official.txt"
    return "\n".join(evaluation.cautions), evaluation.means[name]["relevance:trec.nDCG@1"]


def _api_experiment(run, ours, qrels, corpus, restrict, tmp):
    from touche import api
    table = api.experiment({"official": run, "ours": ours}, qrels, "trec.nDCG@1", corpus=corpus, restrict=restrict)
    return None, float(table.set_index("run").loc["official", "mean"])


def _api_compare(run, ours, qrels, corpus, restrict, tmp):
    from touche import api
    comparison = api.compare(ours, run, qrels, "trec.nDCG@1", corpus=corpus, restrict=restrict)
    return "\n".join(comparison.cautions), comparison.rows[0].b


def _pyterrier_restrict(run, ours, qrels, corpus, restrict, tmp):
    tpt = pytest.importorskip("touche.pyterrier")
    from touche import api
    restriction = tpt.Restrict(corpus, restrict, name="official")
    kept = restriction.transform(tpt.read_run(run))

    def tpt_cautions(_):
        return restriction.cautions
    return "\n".join(tpt_cautions(kept)), api.evaluate(kept, qrels, "trec.nDCG@1")["trec.nDCG@1"]


ENTRIES = [_evaluate_cli, _compare_cli, _explore_cli, _api_evaluate, _api_evaluate_runs, _api_experiment,
           _api_compare, _pyterrier_restrict]


@pytest.mark.parametrize("restrict", [False, True], ids=["cautioned", "restricted"])
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda f: f.__name__.strip("_"))
def test_every_entry_cautions_and_restricts_alike(entry, restrict, official, fixture_corpus, tmp_path, caplog):
    run, ours, qrels = official
    with caplog.at_level(logging.INFO):
        said, value = entry(run, ours, qrels, fixture_corpus, restrict, tmp_path)
    said = (said or "") + caplog.text
    # on the full collection its unjudged-as-0 first document scores 0; restricted, the best kept one leads
    assert value == pytest.approx(1.0 if restrict else 0.0)
    if not restrict:
        assert CAUTION.search(said), said
        assert "ours" not in " ".join(line for line in said.splitlines() if "caution" in line)


def test_restrict_needs_a_collection(official):
    from touche import api
    from touche.errors import ToucheError
    run, _, qrels = official
    with pytest.raises(ToucheError, match=r"restrict needs a collection"):
        api.evaluate(run, qrels, restrict=True)
    code, text = cli("evaluate", str(run), str(qrels), "--restrict")
    assert code == 2 and "restrict needs a collection to restrict the runs to (--corpus PATH)" in text


def test_explore_on_a_sample_with_an_unrestricted_official_run_is_not_silent(official, fixture_corpus, tmp_path):
    """explore -i SAMPLE beside an official run once showed its Judged@5 of 1.000 bolded as best
    without a word: the documents the sample lacks are its own, not judged ones of ours."""
    run, ours, qrels = official
    code, text = cli("explore", str(run), str(ours), "--qrels", f"relevance={qrels}", "-i", str(fixture_corpus),
                     "-o", str(tmp_path / "p.html"))
    said = f"caution: official holds 1 of its 3 shown documents that {fixture_corpus} lacks"
    assert code == 0 and said in text and said in (tmp_path / "p.html").read_text()


def test_run_all_scores_its_runs_on_a_sample_when_asked(jvm_started, fixture_corpus, index_root, tmp_path):
    sample = tmp_path / "sample"
    write_argsme(sample / "args.json", [a for a in FIXTURE_ARGUMENTS if a[0] != "Sa0000001-A00000001"])
    (sample / "topics.xml").write_text(FIXTURE_TOPICS)
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n1 0 Sa0000001-A00000002 1\n2 0 Sa0000002-A00000001 1\n")
    out = tmp_path / "out"
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "-c", VARIANT, "--qrels", str(qrels),
                     "--corpus", str(sample), "--index-root", str(index_root))
    assert code == 0 and "caution: 1-bm25 holds 1 of its" in text
    assert "caution: 1-bm25 holds 1 of its" in (out / "evaluation.md").read_text()
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "-c", VARIANT, "--qrels", str(qrels),
                     "--corpus", str(sample), "--restrict", "--index-root", str(index_root))
    assert code == 0 and re.search(r"\| 1-bm25 \(restricted\) +\|", (out / "evaluation.md").read_text())
    assert "Sa0000001-A00000001" in (out / "run.txt").read_text()  # the run itself is what was retrieved


# --------------------------------------------------------------------------- official runs on a sample
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
