"""args.me as BEIR distributes it (corpus.jsonl, queries.jsonl, qrels/test.tsv) is a Task 1 input."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.shared import REPO, cli
from tests.tables import table_value

DEMO = REPO / "demo"


@pytest.fixture()
def beir_folder(tmp_path) -> Path:
    """Our demo collection written in the BEIR layout (title = conclusion, text = premises)."""
    from touche.retrieval.formats.topics import read_topics

    folder = tmp_path / "webis-touche2020"
    (folder / "qrels").mkdir(parents=True)
    arguments = json.loads((DEMO / "args.me" / "args-demo.json").read_text())["arguments"]
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for a in arguments:
            text = " ".join(p["text"] for p in a["premises"])
            out.write(json.dumps({"_id": a["id"], "title": a["conclusion"], "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as out:
        for t in read_topics(DEMO / "topics.xml"):
            out.write(json.dumps({"_id": t.number, "text": t.title,
                                  "metadata": {"description": t.description, "narrative": t.narrative}}) + "\n")
    rows = [line.split() for line in (DEMO / "qrels-relevance.txt").read_text().splitlines() if line.strip()]
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                               + "".join(f"{q}\t{d}\t{label}\n" for q, _, d, label in rows))
    return folder


def test_a_beir_folder_is_task1_with_its_queries_and_qrels(beir_folder, tmp_path, jvm_started, index_root):
    from touche.inputs import detect_task

    assert detect_task(beir_folder) == "task1"  # not Task 2's passage JSONL
    code, text = cli("run-all", "-i", str(beir_folder), "-o", str(tmp_path / "out"), "--index-root", str(index_root),
                     "-c", str(REPO / "configs" / "task1" / "1-krovetz-smart-lmd2000-quality.yaml"))
    assert code == 0, text
    assert "task: task1 (detected" in text
    run = (tmp_path / "out" / "run.txt").read_text().splitlines()
    assert {line.split()[0] for line in run} == {"1", "2", "3", "4", "5", "6"}
    table = (tmp_path / "out" / "evaluation.md").read_text()  # BEIR's qrels/test.tsv scored it
    value = table_value(table, "touche.nDCG@5", row=0)
    assert value > 0.5


def test_beir_qrels_and_queries_are_read_as_ours(beir_folder):
    from touche.retrieval.formats.qrels import read_graded_qrels
    from touche.retrieval.formats.topics import read_topics

    ours = read_graded_qrels(DEMO / "qrels-relevance.txt")
    assert read_graded_qrels(beir_folder / "qrels" / "test.tsv") == ours
    assert [(t.number, t.title) for t in read_topics(beir_folder / "queries.jsonl")] == \
           [(t.number, t.title) for t in read_topics(DEMO / "topics.xml")]


def test_a_bad_beir_line_is_named(beir_folder):
    from touche.errors import InputError
    from touche.indexing.beir import read_corpus

    with open(beir_folder / "corpus.jsonl", "a", encoding="utf-8") as out:
        out.write('{"_id": "x y", "title": "t", "text": "u"}\n')
    with pytest.raises(InputError, match=r"corpus.jsonl, line 321: the id 'x y' contains U\+0020"):
        list(read_corpus(beir_folder / "corpus.jsonl"))
    assert len(list(read_corpus(beir_folder / "corpus.jsonl", skip_bad_records=True))) == 320


@pytest.mark.parametrize("version", ["", "/v2"])
def test_beirs_touche_ids_are_read_offline_from_ir_datasets_cache(beir_folder, tmp_path, monkeypatch, jvm_started,
                                                                  index_root, version):
    """beir/webis-touche2020 and /v2: the download zip placed where ir_datasets keeps it, its queries
    and qrels copied as ir_datasets copies them; `touche datasets` lists them and run-all runs."""
    import shutil
    import zipfile

    from touche import datasets as ds
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds"))
    monkeypatch.delenv("TOUCHE_DATASETS_CACHE", raising=False)
    dataset_id = f"beir/webis-touche2020{version}"
    d = ds.dataset(dataset_id)
    code, text = cli("datasets", dataset_id)
    assert code == 1 and text.count("MISSING") == 3 and "source.zip" in text
    archive = ds.cached_path(d.corpus.files[0])
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as zf:
        for f in beir_folder.rglob("*"):
            if f.is_file():
                zf.write(f, f.relative_to(beir_folder.parent).as_posix())
    shutil.copyfile(beir_folder / "queries.jsonl", ds.cached_path(d.topics))
    shutil.copyfile(beir_folder / "qrels" / "test.tsv", ds.cached_path(d.qrels["relevance"]))
    code, text = cli("datasets", dataset_id)
    assert code == 0 and text.count("present") == 3
    variant = str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml")
    code, text = cli("run-all", "--dataset", dataset_id, "-c", variant, "-o", str(tmp_path / "out"),
                     "--index-root", str(index_root))
    assert code == 0, text
    code, text = cli("run", "-c", variant, "-i", str(beir_folder), "-t", str(beir_folder / "queries.jsonl"),
                     "-o", str(tmp_path / "local.txt"), "--index-root", str(index_root))
    assert code == 0, text
    assert (tmp_path / "out" / "run.txt").read_bytes() == (tmp_path / "local.txt").read_bytes()
    assert "relevance:touche.nDCG@5" in (tmp_path / "out" / "evaluation.md").read_text()


def test_the_corpus_file_a_beir_path_stands_for(beir_folder, tmp_path):
    from touche.indexing.beir import corpus_file

    assert corpus_file(beir_folder) == beir_folder / "corpus.jsonl"
    assert corpus_file(beir_folder / "corpus.jsonl") == beir_folder / "corpus.jsonl"
    assert corpus_file(beir_folder / "queries.jsonl") == beir_folder / "queries.jsonl"  # any .jsonl file is one
    assert corpus_file(beir_folder / "qrels") is None and corpus_file(tmp_path / "missing.jsonl") is None


@pytest.mark.parametrize("record", [{"_id": "a", "title": 5, "text": "t"}, {"_id": "a", "title": "t", "text": 5},
                                    {"_id": "a", "title": "t"}, {"_id": "a", "title": None, "text": "t"}])
def test_a_beir_record_whose_title_or_text_is_no_string_is_refused_where_it_is(tmp_path, record):
    from touche.errors import InputError
    from touche.indexing.argsme import ReadReport
    from touche.indexing.beir import read_corpus

    path = tmp_path / "corpus.jsonl"
    path.write_text('{"_id": "z", "text": "no title is an empty one"}\n' + json.dumps(record) + "\n")
    with pytest.raises(InputError, match=r"corpus.jsonl, line 2: 'title' and 'text' must be strings; set corpus"):
        list(read_corpus(path))
    report = ReadReport()
    assert [(a.id, a.conclusion) for a in read_corpus(path, skip_bad_records=True, report=report)] == [("z", "")]
    assert (report.files, report.read, report.skipped) == (1, 1, 1)
    assert str(report.first_skipped[0]) == f"{path}, line 2: 'title' and 'text' must be strings"


def test_the_parts_of_a_beir_corpus_are_disjoint_and_together_the_whole(tmp_path):
    """A shard (or a Ray task) reads part k of n: every n-th argument from the k-th, blank lines
    not counted, so the parts share no argument and together are the corpus in its order."""
    from touche.indexing.argsme import ReadReport
    from touche.indexing.beir import read_corpus

    path = tmp_path / "corpus.jsonl"
    lines = [json.dumps({"_id": f"a{i}", "title": "", "text": f"t{i}"}) for i in range(7)]
    path.write_text("\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]) + "\n\n")
    whole = [a.id for a in read_corpus(path)]
    assert whole == [f"a{i}" for i in range(7)]
    assert [[a.id for a in read_corpus(path, part=(k, 3))] for k in range(3)] == \
        [["a0", "a3", "a6"], ["a1", "a4"], ["a2", "a5"]]
    for n in (1, 2, 4, 7, 9):
        reports = [ReadReport() for _ in range(n)]
        parts = [[a.id for a in read_corpus(path, part=(k, n), report=reports[k])] for k in range(n)]
        assert sorted(sum(parts, [])) == sorted(whole) and len(sum(parts, [])) == len(whole)
        assert all(part == whole[k::n] for k, part in enumerate(parts))
        assert [r.read for r in reports] == [len(p) for p in parts] and all(r.files == 1 for r in reports)


@pytest.mark.parametrize("rid, found", [(5, "5"), ("", "''"), (" \t", "' \\t'"), (None, "None")])
def test_a_beir_record_without_a_string_id_is_refused_where_it_is(tmp_path, rid, found):
    from touche.errors import InputError
    from touche.indexing.beir import read_corpus

    path = tmp_path / "corpus.jsonl"
    path.write_text('{"_id": "z", "text": "t"}\n' + json.dumps({"_id": rid, "title": "t", "text": "t"}) + "\n")
    with pytest.raises(InputError) as err:
        list(read_corpus(path))
    assert str(err.value).startswith(f"{path}, line 2: '_id' must be a non-empty string, found {found}; ")
