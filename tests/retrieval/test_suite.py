"""A task's submissions in one go (retrieval/suite.py, ``touche run-all``, ``api.run_all``): a rerun
that changes run.txt's primary says which it was and which it is, and names the run files in the
folder that no longer belong to this call's runs; a typo in a suite names the suite file."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml

from tests.retrieval.test_pipeline import SUITE
from tests.shared import REPO, VARIANT, cli, yaml_dump
from touche.errors import ConfigError

EXAMPLES = REPO / "configs" / "task1" / "examples"


def two_variant_suite(folder: Path, primary: str = "2-krovetz-bm25.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    suite = folder / "suite.yaml"
    suite.write_text(yaml.safe_dump({"variants": [str(EXAMPLES / "1-bm25.yaml"), str(EXAMPLES / "2-krovetz-bm25.yaml")],
                                     "primary": str(EXAMPLES / primary)}))
    return suite


def test_a_rerun_with_one_variant_says_what_run_txt_was_and_which_runs_are_stale(jvm_started, fixture_corpus,
                                                                              index_root, tmp_path, caplog):
    from touche import api
    out = tmp_path / "out"
    suite = two_variant_suite(tmp_path / "suite")
    first = api.run_all(fixture_corpus, out, suite=suite, index_root=index_root, progress=False)
    assert first.primary == "2-krovetz-bm25" and first.previous_primary is None and first.stale == []
    with caplog.at_level(logging.INFO):
        again = api.run_all(fixture_corpus, out, config=EXAMPLES / "1-bm25.yaml", index_root=index_root,
                            progress=False)
    assert (again.previous_primary, again.primary, again.stale) == ("2-krovetz-bm25", "1-bm25", ["2-krovetz-bm25.txt"])
    assert "run.txt was 2-krovetz-bm25's run and is now 1-bm25's" in caplog.text
    assert "2-krovetz-bm25.txt in" in caplog.text and "no longer of these runs (1-bm25.txt)" in caplog.text
    assert (out / "run.txt").read_bytes() == (out / "1-bm25.txt").read_bytes()
    assert (out / "2-krovetz-bm25.txt").is_file()  # said, not removed: the folder's runs are the user's to hand in
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--suite", str(suite), "--index-root",
                     str(index_root))
    assert code == 0 and "run.txt was 1-bm25's run and is now 2-krovetz-bm25's" in text
    assert "no longer of these runs" not in text  # the whole suite again: every run is its own


def test_a_variant_the_suite_lists_but_lacks_is_named_with_the_suite(fixture_corpus, tmp_path):
    from touche import api
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"variants": [str(EXAMPLES / "1-bm25.yaml"), str(EXAMPLES / "2-krovetz-bm2.yaml")],
                                     "primary": str(EXAMPLES / "1-bm25.yaml")}))
    with pytest.raises(ConfigError, match=rf"2-krovetz-bm2\.yaml: no variant file of this name, and no shipped "
                                          rf"variant; "
                                          rf"did you mean task1/examples/2-krovetz-bm25 or .*\? \(listed in the suite "
                                          rf"{suite}\)"):
        api.run_all(fixture_corpus, tmp_path / "out", suite=suite)
    assert not (tmp_path / "out").exists()


def test_a_report_run_all_made_goes_when_it_no_longer_describes_the_runs(jvm_started, fixture_corpus, index_root,
                                                                         tmp_path):
    """Its own evaluation.md, unchanged, still goes when a rerun has no qrels; edited by the
    user, it stays."""
    out = tmp_path / "out"
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n")
    args = ["run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root), "-c", VARIANT]
    assert cli(*args, "--qrels", str(qrels))[0] == 0 and (out / "evaluation.md").is_file()
    assert cli(*args)[0] == 0 and not (out / "evaluation.md").exists()
    assert cli(*args, "--qrels", str(qrels))[0] == 0
    (out / "evaluation.md").write_text((out / "evaluation.md").read_text() + "\nmy comment\n")
    code, text = cli(*args)
    assert code == 0 and "my comment" in (out / "evaluation.md").read_text()


# --------------------------------------------------------------------------- TIRA input folders
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


def test_run_all_checks_every_variant_with_its_overrides_before_running_any(tmp_path):
    """A --set that fits two variants but not the third wrote two runs, then failed blaming the YAML."""
    code, text = cli("run-all", "-o", str(tmp_path / "out"), "--suite",
                     str(REPO / "configs" / "task1" / "examples" / "suite.yaml"), "--set",
                     "retrieval.similarity.k1=1.5")
    assert code == 2 and "--set retrieval.similarity.k1=1.5: unknown key 'retrieval.similarity.k1'" in text
    assert "3-krovetz-lmdirichlet.yaml" in text
    assert not list((tmp_path / "out").glob("*.txt"))


def test_suite_variants_that_would_write_one_run_file_are_refused(tmp_path):
    from touche.config import load_suite
    from touche.errors import ConfigError
    for variants, primary, expected in ((["a/v.yaml", "b/v.yaml"], "a/v.yaml", "would both write v.txt"),
                                        (["p.yaml", "run.yaml"], "p.yaml", "would write run.txt")):
        suite = tmp_path / "suite.yaml"
        suite.write_text(yaml_dump({"variants": variants, "primary": primary}))
        with pytest.raises(ConfigError, match=expected):
            load_suite(suite)


def test_a_run_without_qrels_removes_the_evaluation_table_of_the_runs_it_replaced(jvm_started, fixture_corpus,
                                                                                  tmp_path, index_root):
    from touche.retrieval.suite import run_suite
    out = tmp_path / "out"
    run_suite(SUITE, None, out, index_root=index_root, progress=False)
    assert (out / "evaluation.md").is_file()
    run_suite(SUITE, fixture_corpus, out, index_root=index_root, progress=False)
    assert not (out / "evaluation.md").exists()
