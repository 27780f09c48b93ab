"""An output folder and a link folder entry by entry (touche/guard.py's ``OutputFolder`` and
``LinkFolder``): what the command made may be written again, replaced or removed; anything else in
its place (a user's file, folder, link or device, another command's entry, a file that appeared
while it wrote) is refused, listed and kept; a link folder keeps only its own links; the API
returns paths and says what it kept."""
from __future__ import annotations

import os
import stat

import pytest

from touche.errors import ToucheError
from touche.guard import RECORD, LinkFolder, OutputFolder, made_folder, read_record


@pytest.fixture
def targets(tmp_path):
    made = {}
    for name in ("a.json", "b.json", "c.json"):
        made[name] = tmp_path / "data" / name
        made[name].parent.mkdir(exist_ok=True)
        made[name].write_text("{}")
    return made


def test_a_link_folder_is_made_with_its_links_and_their_record(tmp_path, targets):
    folder = tmp_path / "new" / "links"  # neither exists yet
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert (folder / "a.json").is_symlink() and os.path.realpath(folder / "a.json") == str(targets["a.json"])
    assert {name: entry.kind for name, entry in read_record(folder).items()} == {"a.json": "link"}


def test_a_made_link_is_re_pointed_and_a_stale_one_removed(tmp_path, targets):
    folder = tmp_path / "links"
    LinkFolder(folder).sync({"a.json": targets["a.json"], "b.json": targets["b.json"]})
    LinkFolder(folder).sync({"a.json": targets["c.json"]})
    assert os.path.realpath(folder / "a.json") == str(targets["c.json"])
    assert not (folder / "b.json").exists() and not (folder / "b.json").is_symlink()


def test_a_made_link_the_user_deleted_is_made_again(tmp_path, targets):
    folder = tmp_path / "links"
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    (folder / "a.json").unlink()
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert os.path.realpath(folder / "a.json") == str(targets["a.json"])


def test_a_right_link_made_before_its_record_is_kept_a_foreign_file_refused(tmp_path, targets):
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "a.json").symlink_to(targets["a.json"])  # as a sync that stopped before its record left it
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert read_record(folder)["a.json"].target == str(targets["a.json"])
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(ToucheError, match=r"holds 1 file\(s\) this command did not make \(notes.txt\)"):
        LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert (folder / "notes.txt").read_text() == "mine"


def test_a_refusal_lists_eight_names_and_counts_the_rest(tmp_path):
    for i in range(10):
        (tmp_path / f"user-{i}.txt").write_text("")
    with pytest.raises(ToucheError) as raised:
        OutputFolder(tmp_path).claim(["run.txt"], refuse=lambda entry: True)
    listed = ", ".join(f"user-{i}.txt" for i in range(8))
    assert f"holds 10 file(s) this command did not make ({listed} and 2 more)" in str(raised.value)


# --------------------------------------------------------------------------- choose's folder
def test_choose_never_replaces_its_sources_or_writes_through_a_link_it_did_not_make(tmp_path):
    from touche.guard import LinkFolder, made_folder, read_record
    folder = tmp_path / "DIR" / "corpus"
    folder.mkdir(parents=True)
    mine = tmp_path / "mine.json"
    mine.write_text("{}")
    (folder / "user-link.json").symlink_to(mine)
    target = tmp_path / "data.json"
    target.write_text("{}")
    with pytest.raises(ToucheError, match=r"did not make \(user-link.json\)"):  # round 6: it would be indexed
        LinkFolder(folder).sync({"data.json": target})
    assert (folder / "user-link.json").is_symlink() and not (folder / "data.json").exists()  # refused, not deleted
    (folder / "user-link.json").unlink()
    LinkFolder(folder).sync({"data.json": target})
    assert list(read_record(folder)) == ["data.json"]
    LinkFolder(folder).sync({})
    assert not (folder / "data.json").exists() and read_record(folder) == {}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "DIR2"
    linked.mkdir()
    (linked / "corpus").symlink_to(elsewhere)
    with pytest.raises(ToucheError, match="is a symbolic link"):
        LinkFolder(linked / "corpus").sync({"data.json": target})
    with pytest.raises(ToucheError, match="is a symbolic link"):
        made_folder(linked / "corpus")
    assert list(elsewhere.iterdir()) == []  # nothing written in the folder the link points to


# --------------------------------------------------------------------------- folders a command fills
def test_a_corpus_link_folder_refuses_what_it_did_not_make(tmp_path):
    """A user's link left in `choose --out DIR/corpus` was indexed into the chosen suite."""
    from touche.guard import LinkFolder
    folder = tmp_path / "chosen" / "corpus"
    folder.mkdir(parents=True)
    other = tmp_path / "other.json"
    other.write_text("{}")
    (folder / "extra.json").symlink_to(other)
    (folder / "notes.txt").write_text("mine")
    listed = tmp_path / "args.json"
    listed.write_text("{}")
    with pytest.raises(ToucheError, match=r"did not make \(extra.json, notes.txt\).*indexed"):
        LinkFolder(folder).sync({"args.json": listed})
    assert (folder / "extra.json").is_symlink() and (folder / "notes.txt").read_text() == "mine"
    assert not (folder / "args.json").exists()


def test_an_output_folder_accepts_what_it_wrote_and_temporaries_only(tmp_path):
    from touche.guard import OutputFolder
    folder = OutputFolder(tmp_path, "sweep output folder").claim(["a.txt", "b.txt"], refuse=lambda entry: True)
    folder.write_text("a.txt", "mine")  # b.txt is not written
    (tmp_path / "indexes").mkdir()  # an index root the user placed here: not the command's
    (tmp_path / ".a.txt.~touche.123.abcdef123456.tmp").write_text("")  # a killed writer's temporary
    again = OutputFolder(tmp_path, "sweep output folder")
    again.claim(["a.txt", "c.txt"], refuse=lambda entry: entry.name != "indexes")  # a.txt is its own
    assert again.ours("a.txt") and not again.ours("indexes")
    (tmp_path / "d.txt").write_text("")
    with pytest.raises(ToucheError, match=r"sweep output folder holds 1 file\(s\) this command did not make \(d.txt\)"):
        OutputFolder(tmp_path, "sweep output folder").claim(["c.txt"], refuse=lambda entry: entry.name != "indexes")


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


@pytest.mark.parametrize("name", [RECORD, ".touche.lock", ".sweep.lock", ".touche-links", "", "..", "runs/run.txt"])
def test_the_folders_bookkeeping_and_paths_are_no_entry_a_command_writes(tmp_path, name):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "ours\n")
    before = (tmp_path / RECORD).read_text()
    with pytest.raises(ValueError, match="not an entry name a command writes"):
        out.write_text(name, "{}\n")
    assert (tmp_path / RECORD).read_text() == before


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


def test_a_claim_takes_any_iterable_and_leaves_other_entries_alone_unless_asked(tmp_path):
    (tmp_path / "notes.md").write_text("mine")
    (tmp_path / "run.txt").write_text("mine too")
    out = OutputFolder(tmp_path, command="run-all")
    assert out.claim(name for name in ["a.txt", "b.txt"]) is out  # a generator: read once, used twice
    with pytest.raises(ToucheError, match=r"holds 1 entry run-all would replace but did not make \(run\.txt\)"):
        out.claim(name for name in ["run.txt", "a.txt"])
    assert (tmp_path / "notes.md").read_text() == "mine"


def test_a_refusal_of_nine_names_counts_the_ninth_and_of_eight_lists_all(tmp_path):
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
