"""`touche validate`'s verdicts (retrieval/formats/verdicts.py): every problem named with its file
and line, warnings apart."""
from __future__ import annotations

from tests.shared import cli


def test_validate_checks_every_file_and_names_each_warning_kind_whole(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    gap = tmp_path / "gap.txt"
    gap.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 4 1 t\n")
    code, text = cli("validate", str(empty), str(gap))
    assert code == 1 and f"{empty}: not checked" in text
    assert f"{gap}: valid as Q0 run, 1 warning(s) (1 × gap in the ranks)" in text


def test_validate_says_file_colon_error_when_no_line_is_to_blame(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, text = cli("validate", str(empty))
    assert f"{empty}: error: cannot detect the run format" in text and "::" not in text
    code, text = cli("validate", str(empty), "--format", "q0")
    assert f"{empty}: error: the run has no rows" in text


def test_an_invisible_character_in_a_tag_or_id_is_warned_about(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1.0 t\u202ex\n")
    code, text = cli("validate", str(run), "--verbose")
    assert code == 0 and "U+202E" in text and "RIGHT-TO-LEFT OVERRIDE" in text and "warning" in text


def test_a_score_just_past_the_bound_is_told_apart_from_it_without_a_rank_warning(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3.4028235e38 t\n1 Q0 b 2 1.0 t\n")
    code, text = cli("validate", str(run), "--verbose")
    assert "score 3.4028235e+38 lies beyond ±3.4028234663852886e+38" in text
    assert "ranks start at" not in text and "1 error(s)" in text
