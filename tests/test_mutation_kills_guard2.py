"""The one owner of an output folder (``touche/guard.py``, ``OutputFolder``): what the mutation run
(``python -m bench.mutation``) found no fast test to run: a record grown long is compacted to one
line per entry and keeps every licence (a growing file's earlier states too); a ``check`` that
refuses a file leaves nothing written and nothing recorded; a folder the command made is removed
when empty and kept when someone put a file in it; an entry the command made and a user then
deleted or replaced by a folder is no longer the command's own: never deleted, never written over."""
from __future__ import annotations

import json
import os
import stat

import pytest

from touche.errors import ToucheError
from touche.guard import RECORD, LinkFolder, OutputFolder, read_record


def _record_lines(folder) -> list[str]:
    return (folder / RECORD).read_text().splitlines()


def test_a_long_record_is_compacted_and_keeps_every_licence(tmp_path):
    """A record of many lines (a file written again and again: here its line repeated, as
    rewrites of the same text leave it) and three appends to another: claiming the folder
    rewrites it as one line per entry (a growing file's earlier states first); a results file cut
    back to its first line (a power cut that lost the last appends) is still the command's own."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    out.append("results.jsonl", b'{"run": 2}\n')
    out.append("results.jsonl", b'{"run": 3}\n')
    out.write_text("summary.md", "round 1\n")
    last = _record_lines(tmp_path)[-1]
    with open(tmp_path / RECORD, "a") as record:
        record.write((last + "\n") * 80)
    before = read_record(tmp_path)
    again = OutputFolder(tmp_path, command="sweep").claim(["summary.md", "results.jsonl"])
    assert len(_record_lines(tmp_path)) == 4  # summary.md, and results.jsonl's two earlier states and its last
    assert read_record(tmp_path) == before
    assert again.ours("summary.md") and again.ours("results.jsonl")
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')
    assert OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_a_check_that_refuses_a_file_leaves_nothing_written_or_recorded(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")

    def refuse(temporary):
        raise ToucheError("not a valid run")

    with pytest.raises(ToucheError, match="not a valid run"):
        with out.open("run.txt", check=refuse) as handle:
            handle.write("a bad run\n")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != RECORD) == []
    assert "run.txt" not in read_record(tmp_path) and not out.ours("run.txt")


def test_a_folder_the_command_made_is_removed_when_empty(tmp_path):
    out = OutputFolder(tmp_path, command="sweep")
    out.folder("runs")
    assert out.remove("runs")
    assert not (tmp_path / "runs").exists() and "runs" not in read_record(tmp_path)


def test_a_folder_the_command_made_is_kept_when_someone_put_a_file_in_it(tmp_path):
    out = OutputFolder(tmp_path, command="sweep")
    out.folder("runs")
    (tmp_path / "runs" / "notes.txt").write_text("mine")
    assert not out.remove("runs")
    assert (tmp_path / "runs" / "notes.txt").read_text() == "mine"
    assert OutputFolder(tmp_path, command="sweep").ours("runs")  # still its own: nothing was removed


def test_a_made_file_the_user_deleted_is_no_longer_the_commands_and_is_written_again(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("evaluation.md", "scores\n")
    (tmp_path / "evaluation.md").unlink()
    assert not out.ours("evaluation.md")
    assert not out.remove("evaluation.md")  # nothing to remove, and no error
    out.write_text("evaluation.md", "new scores\n")
    assert (tmp_path / "evaluation.md").read_text() == "new scores\n"


def test_a_made_file_a_user_replaced_by_a_folder_is_refused_and_kept(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("evaluation.md", "scores\n")
    (tmp_path / "evaluation.md").unlink()
    (tmp_path / "evaluation.md").mkdir()
    (tmp_path / "evaluation.md" / "mine.txt").write_text("mine")
    assert not out.ours("evaluation.md")
    with pytest.raises(ToucheError, match=r"evaluation.md in the output folder is changed since run-all made it"):
        out.write_text("evaluation.md", "new scores\n")
    assert not out.remove("evaluation.md")
    assert (tmp_path / "evaluation.md" / "mine.txt").read_text() == "mine"


def test_a_folder_of_another_command_is_named_in_the_refusal(tmp_path):
    OutputFolder(tmp_path, command="sweep").write_text("summary.md", "theirs\n")
    with pytest.raises(ToucheError, match=r"summary.md in the output folder is what sweep made, not choose"):
        OutputFolder(tmp_path, command="choose").write_text("summary.md", "mine\n")
    assert (tmp_path / "summary.md").read_text() == "theirs\n"


def test_an_output_folder_shows_its_path(tmp_path):
    assert repr(OutputFolder(tmp_path / "out")) == f"OutputFolder({str(tmp_path / 'out')!r})"


# --------------------------------------------------------------------------- what the record licenses
def test_an_empty_file_the_command_made_replaced_by_a_device_is_not_its_own(tmp_path):
    """An empty run the command wrote, replaced by a character device (as empty as it when read):
    not the command's any more, so never written into or deleted."""
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "")
    (tmp_path / "run.txt").unlink()
    try:
        os.mknod(tmp_path / "run.txt", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("cannot make a device node here")
    assert not out.ours("run.txt")
    with pytest.raises(ToucheError, match=r"run.txt in the output folder is changed since run-all made it"):
        out.write_text("run.txt", "1 Q0 d 1 1.0 t\n")
    assert not out.remove("run.txt")
    assert stat.S_ISCHR(os.lstat(tmp_path / "run.txt").st_mode)


def test_a_growing_file_noted_again_at_the_same_size_keeps_its_earlier_states(tmp_path):
    """An append of nothing (a run that added no line) notes the same size again: a power cut
    that later leaves the file at its first line still leaves it the command's own."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    out.append("results.jsonl", b'{"run": 2}\n')
    out.append("results.jsonl", b"")
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')
    assert OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_a_record_that_is_a_link_is_no_record(tmp_path):
    """A link in the record's place (to a record that would license everything) licenses
    nothing, and a command refuses to use the folder until it is removed."""
    elsewhere = tmp_path / "elsewhere"
    OutputFolder(elsewhere, command="run-all").write_text("run.txt", "ours\n")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "run.txt").write_text("ours\n")  # the same content: a record would license it
    (folder / RECORD).symlink_to(elsewhere / RECORD)
    assert read_record(folder) == {}
    assert not OutputFolder(folder, command="run-all").ours("run.txt")
    with pytest.raises(ToucheError, match=r"\.touche-made, where run-all records what it makes, is a link or no file"):
        OutputFolder(folder, command="run-all").claim(["run.txt"])


def test_a_record_line_carrying_its_own_earlier_field_is_read_without_it(tmp_path):
    """Earlier states come from the record's earlier lines only: a line with an 'earlier' field
    of any form (a later toolkit's, an edited one) is read as the rest of it says."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    line = json.loads(_record_lines(tmp_path)[-1])
    (tmp_path / RECORD).write_text(json.dumps({**line, "earlier": 5}) + "\n")
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')  # a copy: another inode, the same content
    again = OutputFolder(tmp_path, command="sweep")
    assert again.made["results.jsonl"].earlier == ()
    assert again.ours("results.jsonl")


@pytest.mark.parametrize("name", [RECORD, ".touche.lock", ".sweep.lock", ".touche-links", "", "..", "runs/run.txt"])
def test_the_folders_bookkeeping_and_paths_are_no_entry_a_command_writes(tmp_path, name):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "ours\n")
    before = (tmp_path / RECORD).read_text()
    with pytest.raises(ValueError, match="not an entry name a command writes"):
        out.write_text(name, "{}\n")
    assert (tmp_path / RECORD).read_text() == before


def test_each_record_line_is_synced_once_appended(tmp_path, monkeypatch):
    """What licenses a later replace survives a power cut: the record is synced after each line."""
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append((os.fstat(fd).st_ino, os.fstat(fd).st_size))
                        or real(fd))
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "ours\n")
    record = os.stat(tmp_path / RECORD)
    assert (record.st_ino, record.st_size) in synced
    synced.clear()
    out.append("results.jsonl", b'{"run": 1}\n')
    results, record = os.stat(tmp_path / "results.jsonl"), os.stat(tmp_path / RECORD)
    assert synced == [(results.st_ino, results.st_size), (record.st_ino, record.st_size)]


def test_a_link_folder_inside_an_output_folder_names_itself_in_a_refusal(tmp_path):
    """A corpus link folder kept in a command's output folder: a name it would link that holds a
    file it did not make (here one named like a writer's temporary, which the first listing
    passes over) is refused as the corpus folder's, and the file is kept."""
    target = tmp_path / "a.json"
    target.write_text("{}")
    folder = OutputFolder(tmp_path / "links", "output folder", command="run-all")
    name = ".a.json.~touche.1.0123456789ab.tmp"
    (folder.path / name).write_text("a user's")
    with pytest.raises(ToucheError, match=rf"{name} in the corpus folder is a file run-all did not make"):
        LinkFolder(folder, "corpus folder").sync({name: target})
    assert (folder.path / name).read_text() == "a user's"


def test_writing_and_appending_leave_no_descriptor_open(tmp_path):
    out = OutputFolder(tmp_path, command="sweep")
    before = len(os.listdir("/proc/self/fd"))  # read only
    for i in range(5):
        out.write_text("summary.md", f"round {i}\n")
        out.append("results.jsonl", b'{"run": 1}\n')
    out.remove("summary.md")
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_file_the_command_removed_and_wrote_anew_is_licensed_by_its_new_content_only(tmp_path):
    """Removed, then begun again: the old file's states license nothing (in this process as in
    the record): a user's file holding the old first line is not the command's."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    out.append("results.jsonl", b'{"run": 2}\n')
    assert out.remove("results.jsonl")
    out.append("results.jsonl", b'{"run": 3, "again": true}\n')
    assert out.made == read_record(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')  # a user's file now
    assert not out.ours("results.jsonl")
    assert not OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_a_file_that_appears_while_the_command_writes_the_same_name_is_kept(tmp_path):
    """Checked again just before the rename: a user's file that slipped in meanwhile is refused,
    not replaced."""
    out = OutputFolder(tmp_path, command="run-all")
    with pytest.raises(ToucheError, match=r"run.txt in the output folder is a file run-all did not make"):
        with out.open("run.txt") as handle:
            handle.write("1 Q0 d 1 1.0 t\n")
            (tmp_path / "run.txt").write_text("a user's run\n")
    assert (tmp_path / "run.txt").read_text() == "a user's run\n"
    assert "run.txt" not in read_record(tmp_path)
