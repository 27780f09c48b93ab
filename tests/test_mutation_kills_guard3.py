"""The one owner of an output folder (``touche/guard.py``): what the whole mutation run (every
site, python -m bench.mutation) found no fast test to notice: a file of the command's rewritten in
place with other content of the same size, and a link of its own replaced by another link, are
no longer its own; a growing file's verdict reads what follows the longest state that matches;
the record is appended to until it is long, then rewritten once; claims take any iterable of
names and leave other entries alone unless asked; the values the API returns."""
from __future__ import annotations

import os
import stat

import pytest

from touche.errors import ToucheError
from touche.guard import RECORD, OutputFolder, made_folder


def test_a_file_rewritten_in_place_with_other_bytes_of_the_same_size_is_no_longer_the_commands(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "1 Q0 a 1 2.0 t\n")
    with open(tmp_path / "run.txt", "r+b") as handle:  # same inode, same size, other bytes
        handle.write(b"9")
    os.utime(tmp_path / "run.txt", ns=(1, 1))  # and a time of the user's
    assert not OutputFolder(tmp_path, command="run-all").ours("run.txt")
    with pytest.raises(ToucheError, match="changed since run-all made it"):
        OutputFolder(tmp_path, command="run-all").write_text("run.txt", "new\n")
    assert (tmp_path / "run.txt").read_text() == "9 Q0 a 1 2.0 t\n"


def test_a_link_of_the_commands_replaced_by_another_link_is_no_longer_its_own(tmp_path):
    out = OutputFolder(tmp_path / "out", command="sweep")
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    out.link("corpus.json", tmp_path / "a")
    assert OutputFolder(tmp_path / "out", command="sweep").ours("corpus.json")
    (tmp_path / "out" / "corpus.json").unlink()
    (tmp_path / "out" / "corpus.json").symlink_to(tmp_path / "b")  # the user's link now
    assert not OutputFolder(tmp_path / "out", command="sweep").ours("corpus.json")
    assert OutputFolder(tmp_path / "out", command="sweep").remove("corpus.json") is False
    assert os.readlink(tmp_path / "out" / "corpus.json") == str(tmp_path / "b")


def test_what_follows_the_longest_matching_state_decides_a_growing_files_owner(tmp_path):
    """Recorded states a, a+b; the file now holds a, then a user's note, then a line that looks
    like a record: the note after state a makes it the user's, wherever the longer state's
    length falls."""
    out = OutputFolder(tmp_path, command="sweep")
    line_a, line_b = b'{"key": "a"}\n', b'{"key": "b"}\n'
    out.append("results.jsonl", line_a)
    out.append("results.jsonl", line_b)
    note = b"# my note ..\n"
    assert len(note) == len(line_b)  # the longer state's length ends exactly where the record-like line begins
    (tmp_path / "results.jsonl").write_bytes(line_a + note + b'{"key": "c"}\n')
    assert not OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_the_record_is_appended_to_until_it_is_long_then_rewritten_once(tmp_path):
    """Each write appends one line (cheap, safe with workers appending at once); a claim
    rewrites the record only past twice its entries' lines plus 64, as one line per entry."""
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "x\n")
    line = (tmp_path / RECORD).read_text()
    limit = 2 * 1 + 64  # one entry, no earlier states
    (tmp_path / RECORD).write_text(line * limit)
    OutputFolder(tmp_path, command="run-all").claim(["run.txt"])
    assert (tmp_path / RECORD).read_text() == line * limit  # at the limit: left as it is
    (tmp_path / RECORD).write_text(line * (limit + 1))
    OutputFolder(tmp_path, command="run-all").claim(["run.txt"])
    assert (tmp_path / RECORD).read_text() == line  # one past it: one line per entry


def test_a_claim_takes_any_iterable_and_leaves_other_entries_alone_unless_asked(tmp_path):
    (tmp_path / "notes.md").write_text("mine")
    (tmp_path / "run.txt").write_text("mine too")
    out = OutputFolder(tmp_path, command="run-all")
    assert out.claim(name for name in ["a.txt", "b.txt"]) is out  # a generator: read once, used twice
    with pytest.raises(ToucheError, match=r"holds 1 entry run-all would replace but did not make \(run\.txt\)"):
        out.claim(name for name in ["run.txt", "a.txt"])
    assert (tmp_path / "notes.md").read_text() == "mine"


def test_a_refusal_lists_eight_names_and_counts_the_rest(tmp_path):
    for i in range(9):
        (tmp_path / f"u{i}.txt").write_text("mine")
    out = OutputFolder(tmp_path, command="run-all")
    with pytest.raises(ToucheError) as nine:
        out.claim([], refuse=lambda entry: True)
    assert "(u0.txt, u1.txt, u2.txt, u3.txt, u4.txt, u5.txt, u6.txt, u7.txt and 1 more)" in str(nine.value)
    (tmp_path / "u8.txt").unlink()
    with pytest.raises(ToucheError) as eight:
        out.claim([], refuse=lambda entry: True)
    assert "(u0.txt, u1.txt, u2.txt, u3.txt, u4.txt, u5.txt, u6.txt, u7.txt);" in str(eight.value)


def test_a_subfolder_of_the_users_is_refused_not_adopted(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "theirs.txt").write_text("theirs")
    out = OutputFolder(tmp_path, command="sweep")
    with pytest.raises(ToucheError, match="runs in the output folder is a folder sweep did not make"):
        out.folder("runs")
    assert not out.ours("runs") and (tmp_path / "runs" / "theirs.txt").read_text() == "theirs"
    made = out.folder("sets")  # absent: made and recorded
    assert made.path == tmp_path / "sets" and out.ours("sets") and OutputFolder(tmp_path, command="sweep").ours("sets")


def test_what_the_api_returns(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    out = OutputFolder(str(tmp_path / "out"), command="sweep")  # a plain string is a path too
    assert out.path == tmp_path / "out" and made_folder(str(tmp_path / "x")) == tmp_path / "x"
    assert out.write_text("a.md", "a\n") == tmp_path / "out" / "a.md"
    assert out.write_bytes("b.bin", b"b") == tmp_path / "out" / "b.bin"
    out.append("results.jsonl", b'{"k": 1}\n')
    assert stat.S_IMODE(os.stat(tmp_path / "out" / "results.jsonl").st_mode) == 0o666 & ~umask
    sub = out.folder("runs")
    sub.write_text("r.txt", "r\n")
    assert out.remove("runs") is False  # not empty: kept, and said so with a bool
    assert out.ours("runs") and (tmp_path / "out" / "runs" / "r.txt").exists()
