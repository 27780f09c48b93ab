"""Resolving inputs once (touche/inputs.py): runs and qrels given together told apart, reports left out."""
from __future__ import annotations

from tests.shared import RELEVANCE, cli, demo_run


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
