"""An output folder's record (``.touche-made``, touche/record.py): it survives a full disk (a write
the record could not take is taken back, the record keeps what it held, the error names the
path), a forged or stale record or one that is a link gives no licence, a growing file is the
command's only up to the states it recorded, each line is synced once appended, and a long record
is compacted once, keeping every licence."""
from __future__ import annotations

import errno
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from touche.errors import ToucheError
from touche.guard import RECORD, LinkFolder, OutputFolder, read_record

COMMAND = "touche run-all"
REAL_WRITE = os.write


class Disk:
    """``os.write`` that fails with ENOSPC for the files named ``full`` after ``room`` more bytes."""

    def __init__(self):
        self.full: set[str] = set()
        self.room = 0

    def write(self, fd: int, data) -> int:
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        if name in self.full:
            if self.room <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            data = bytes(data)[: self.room]
            self.room -= len(data)
        return REAL_WRITE(fd, data)


@pytest.fixture
def disk(monkeypatch):
    found = Disk()
    monkeypatch.setattr(os, "write", found.write)
    return found


@pytest.mark.parametrize("room", [0, 7, 40])
def test_a_full_disk_at_the_records_append_takes_the_write_back_and_names_the_record(tmp_path, disk, room):
    out = OutputFolder(tmp_path / "out", command=COMMAND)
    out.write_text("1-bm25.txt", "first\n")
    before = (tmp_path / "out" / RECORD).read_bytes()
    disk.full, disk.room = {RECORD}, room
    with pytest.raises(OSError) as full:
        out.write_text("run.txt", "1 Q0 d1 1 1.0 t\n")
    assert full.value.errno == errno.ENOSPC and full.value.filename == str(tmp_path / "out" / RECORD)
    assert "No space left on device" in str(full.value)
    assert (tmp_path / "out" / RECORD).read_bytes() == before  # whole lines only, as it was
    assert not (tmp_path / "out" / "run.txt").exists()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [RECORD, "1-bm25.txt"]  # no temporary left
    disk.full = set()  # space freed: the rerun writes it, and it is the command's own
    again = OutputFolder(tmp_path / "out", command=COMMAND)
    again.claim(["run.txt", "1-bm25.txt"], refuse=lambda entry: entry.name.endswith(".txt"))
    again.write_text("run.txt", "1 Q0 d1 1 1.0 t\n")
    assert OutputFolder(tmp_path / "out", command=COMMAND).ours("run.txt")


def test_a_full_disk_at_the_first_record_leaves_no_empty_record(tmp_path, disk):
    out = OutputFolder(tmp_path / "out", command=COMMAND)
    disk.full = {RECORD}
    with pytest.raises(OSError, match="No space left on device"):
        out.write_text("run.txt", "x\n")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_replaced_file_keeps_its_old_content_and_licence_when_the_record_is_full(tmp_path, disk):
    out = OutputFolder(tmp_path / "out", command=COMMAND)
    out.write_text("run.txt", "old\n")
    disk.full, disk.room = {RECORD}, 3
    with pytest.raises(OSError):
        out.write_text("run.txt", "new\n")
    assert (tmp_path / "out" / "run.txt").read_text() == "old\n"
    assert OutputFolder(tmp_path / "out", command=COMMAND).ours("run.txt")


@pytest.mark.parametrize("full", ["results.jsonl", RECORD])
def test_an_append_on_a_full_disk_leaves_the_file_as_recorded(tmp_path, disk, full):
    out = OutputFolder(tmp_path / "out", command=COMMAND)
    out.append("results.jsonl", b'{"a": 1}\n')
    disk.full, disk.room = {full}, 5
    with pytest.raises(OSError) as refused:
        out.append("results.jsonl", b'{"b": 2}\n')
    assert refused.value.filename == str(tmp_path / "out" / full)
    assert (tmp_path / "out" / "results.jsonl").read_bytes() == b'{"a": 1}\n'
    assert OutputFolder(tmp_path / "out", command=COMMAND).ours("results.jsonl")


def test_a_folder_or_link_the_record_cannot_name_is_taken_back(tmp_path, disk):
    out = OutputFolder(tmp_path / "out", command=COMMAND)
    disk.full = {RECORD}
    with pytest.raises(OSError):
        out.folder("runs")
    with pytest.raises(OSError):
        out.link("corpus.json", tmp_path)
    assert list((tmp_path / "out").iterdir()) == []


OPERATIONS = st.lists(st.tuples(st.sampled_from(["write", "append", "remove", "folder", "link"]),
                                st.sampled_from(["a.txt", "b.txt", "r.jsonl", "sub", "l"]),
                                st.sampled_from([None, RECORD, "data"]), st.integers(0, 60)), max_size=8)


EXAMPLES = int(os.environ.get("TOUCHE_RECORD_EXAMPLES", "60"))  # 600 ran in 25 s


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(OPERATIONS)
def test_whatever_fills_the_disk_the_folder_stays_the_commands_own(tmp_path_factory, monkeypatch, operations):
    """Any sequence of writes, appends, removals, folders and links, the disk full at the record
    or at the data (after 0-60 bytes) at any of them: after each, every entry in the folder is one
    the command made (it may replace or delete it on a rerun), the record is whole lines, and an
    operation that failed left nothing of itself."""
    disk = Disk()
    monkeypatch.setattr(os, "write", disk.write)
    folder = tmp_path_factory.mktemp("out")
    for op, name, full, room in operations:
        out = OutputFolder(folder, command=COMMAND)
        before = sorted(p.name for p in folder.iterdir())
        disk.full = {RECORD} if full == RECORD else {name} if full == "data" else set()
        disk.room = room
        try:
            if op == "write" and out.foreign(name) is None:
                out.write_text(name, f"{name} {room}\n")
            elif op == "append" and out.foreign(name) is None:
                out.append(name, f'{{"n": {room}}}\n'.encode())
            elif op == "remove":
                out.remove(name)
            elif op == "folder" and out.foreign(name) is None and not (folder / name).is_file():
                out.folder(name)
            elif op == "link" and out.foreign(name) is None and not (folder / name).exists():
                out.link(name, folder.parent)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC and exc.filename in (str(folder / RECORD), str(folder / name))
            after = sorted(p.name for p in folder.iterdir())
            assert set(after) - {RECORD} <= set(before) - {RECORD}, (op, name)
        except ToucheError:  # a refusal before any write (a file over its own folder): nothing changed
            assert sorted(p.name for p in folder.iterdir()) == before
        disk.full = set()
        check = OutputFolder(folder, command=COMMAND)
        for entry in folder.iterdir():
            if entry.name != RECORD:
                assert check.ours(entry.name), (op, name, full, room, entry.name)
        lines = (folder / RECORD).read_bytes().split(b"\n") if (folder / RECORD).exists() else [b""]
        assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])
        assert (folder / RECORD).exists() or not any(folder.iterdir())  # never an empty record
        assert not (folder / RECORD).exists() or (folder / RECORD).stat().st_size > 0


def test_a_forged_or_stale_record_gives_no_licence(tmp_path):
    """A forged record (names only, or a copy with another content) once got a user's symlink
    deleted: the content has to match what the command made."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    target = tmp_path / "data.json"
    target.write_text("{}")
    (folder / "mine.json").symlink_to(target)
    (folder / RECORD).write_text('{"name": "mine.json", "kind": "link", "target": "/elsewhere"}\n'
                                 'mine.json\n{"name": "notes.txt", "kind": "file", "size": 4, "sha256": "00"}\n')
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(ToucheError, match=r"did not make \(mine.json, notes.txt\)"):
        LinkFolder(folder).sync({"data.json": target})
    assert (folder / "mine.json").is_symlink() and (folder / "notes.txt").read_text() == "mine"
    made = OutputFolder(tmp_path / "out")
    made.write_text("a.txt", "ours")
    assert made.ours("a.txt")
    (tmp_path / "out" / "a.txt").write_text("edited")  # changed since: no longer the command's
    assert not made.ours("a.txt") and not made.remove("a.txt") and (tmp_path / "out" / "a.txt").exists()
    with pytest.raises(ToucheError, match=r"changed since this command made it"):
        made.write_text("a.txt", "again")


def test_a_growing_file_cut_back_to_a_state_it_had_stays_the_commands(tmp_path):
    """A power cut may keep the record's last line and lose the file's last append (the sweep's
    results.jsonl then lacks a line the record counts): the file is still the command's, to repair;
    an edit inside what it wrote is not."""
    folder = OutputFolder(tmp_path / "out", command="touche sweep")
    lines = [b'{"key": "a"}\n', b'{"key": "b"}\n', b'{"key": "c"}\n']
    for line in lines:
        folder.append("results.jsonl", line)
    path = tmp_path / "out" / "results.jsonl"
    for cut in (len(lines[0]) + len(lines[1]), len(lines[0]) + len(lines[1]) + 5, len(lines[0])):
        os.truncate(path, cut)  # an earlier state, or one with a torn (here zeroed) line after it
        fresh = OutputFolder(tmp_path / "out", command="touche sweep")
        assert fresh.ours("results.jsonl"), cut
    path.write_bytes(b'{"key": "X"}\n')  # not a state it wrote
    assert not OutputFolder(tmp_path / "out", command="touche sweep").ours("results.jsonl")
    os.truncate(path, 0)  # empty: no state it recorded (its first append had a line)
    assert not OutputFolder(tmp_path / "out", command="touche sweep").ours("results.jsonl")


def test_a_growing_file_with_a_users_text_after_what_the_command_wrote_is_no_longer_its(tmp_path):
    """What follows the last recorded state may be a crash's unrecorded or torn append (JSON
    lines, the command's to repair) or a user's edit (any other text), which the command must
    not rewrite away: the state machine of tests/guard/test_output_folders.py found a sweep compacting
    a hand-appended note out of results.jsonl."""
    out = tmp_path / "out"
    folder = OutputFolder(out, command="touche sweep")
    folder.append("results.jsonl", b'{"key": "a"}\n')
    path = out / "results.jsonl"
    recorded = path.read_bytes()
    for tail in (b'{"key": "b"}\n', b'{"ke', b'{"ke\n{"key": "c"}\n', b'{"ke\n\n{"key": "c"}\n', b"\0" * 9,
                 b'\0\0{"key": "c"}\n'):
        path.write_bytes(recorded + tail)  # unrecorded appends, whole, torn or zeroed by a power cut
        assert OutputFolder(out, command="touche sweep").ours("results.jsonl"), tail
    for tail in (b"\nedited by hand\n", b"note", b'{"key": "b"}\n# mine\n', b" {", b"\0x"):
        path.write_bytes(recorded + tail)
        assert not OutputFolder(out, command="touche sweep").ours("results.jsonl"), tail
    with pytest.raises(ToucheError, match="results.jsonl"):
        OutputFolder(out, command="touche sweep").append("results.jsonl", b'{"key": "d"}\n')
    assert path.read_bytes() == recorded + b"\0x"  # refused before writing
    with pytest.raises(ValueError, match="only JSON lines"):
        OutputFolder(tmp_path / "other", command="touche sweep").append("results.jsonl", b"plain text\n")


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
