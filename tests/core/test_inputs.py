"""Resolving inputs once (touche/inputs.py): runs and qrels given together told apart, reports left out;
a qrels path holding "=" is a path; runs or qrels of one file name get distinct labels, one given twice is
refused."""
from __future__ import annotations

from pathlib import Path

from tests.shared import RELEVANCE, cli, demo_run, judged_documents, one_topic_run


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


def test_a_qrels_path_holding_an_equals_sign_is_a_path(tmp_path):
    from touche.inputs import parse_named_qrels

    assert parse_named_qrels(["runs/a=b/q.txt", "quality=runs/a=b/q2.txt", "relevance=x.txt"]) == {
        "q": Path("runs/a=b/q.txt"), "quality": Path("runs/a=b/q2.txt"),
        "relevance": Path("x.txt")}
    folder = tmp_path / "a=b"
    folder.mkdir()
    (folder / "qrels.txt").write_text("1 0 a 2\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1.0 t\n")
    code, text = cli("evaluate", str(run), str(folder / "qrels.txt"), "--measures", "touche.nDCG@5")
    assert code == 0 and "1.000" in text


def test_two_runs_of_one_file_name_are_two_rows_and_one_file_twice_is_refused(tmp_path):
    judged = judged_documents()
    good = one_topic_run(tmp_path / "c1" / "run.txt", judged[:5])
    bad = one_topic_run(tmp_path / "st2" / "run.txt", judged[::-1][:5])
    code, text = cli("evaluate", str(good), str(RELEVANCE), "--also", str(bad), "--measures", "touche.nDCG@5")
    assert code == 0, text
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if "run.txt" in line}
    assert set(rows) == {"c1/run.txt", "st2/run.txt"}
    assert rows["c1/run.txt"] != rows["st2/run.txt"].replace("st2", "c1")  # two different scores
    code, text = cli("evaluate", str(good), str(RELEVANCE), "--also", str(good))
    assert code == 2 and "given twice" in text


def test_files_of_one_stem_in_one_folder_get_distinct_labels_and_the_labelling_ends(tmp_path):
    """Labelled by stem, x/qrels.txt and x/qrels.tsv clash in every folder above them: the whole
    paths tell them apart (the prepending of folders once looped forever)."""
    from touche.inputs import distinct_labels
    a, b, c = tmp_path / "x" / "qrels.txt", tmp_path / "x" / "qrels.tsv", tmp_path / "y" / "other.txt"
    labels = distinct_labels([a, b, c], label=lambda p: p.stem)
    assert labels == [str(a.resolve()), str(b.resolve()), "other"]


def test_two_qrels_of_one_name_are_two_columns_and_one_name_twice_is_refused(tmp_path):
    from touche import api
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "qrels.txt").write_text(RELEVANCE.read_text())
    (tmp_path / "y" / "qrels.txt").write_text(
        "\n".join(line.replace(" 2", " 0") for line in RELEVANCE.read_text().splitlines())
    )
    run = one_topic_run(tmp_path / "run.txt", judged_documents()[:5])
    code, text = cli("evaluate", str(run), str(tmp_path / "x" / "qrels.txt"), str(tmp_path / "y" / "qrels.txt"),
                     "--measures", "touche.nDCG@5")
    assert code == 0 and "x/qrels:touche.nDCG@5" in text and "y/qrels:touche.nDCG@5" in text, text
    code, text = cli("evaluate", str(run), f"relevance={RELEVANCE}", f"relevance={tmp_path / 'x' / 'qrels.txt'}")
    assert code == 2 and "'relevance' is given twice" in text
    scores = api.evaluate(run, [tmp_path / "x" / "qrels.txt", tmp_path / "y" / "qrels.txt"], ["touche.nDCG@5"])
    assert set(scores) == {"x/qrels:touche.nDCG@5", "y/qrels:touche.nDCG@5"}
    assert scores["x/qrels:touche.nDCG@5"] != scores["y/qrels:touche.nDCG@5"]
