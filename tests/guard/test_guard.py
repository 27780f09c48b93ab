"""What the mutation run (python -m bench.mutation, docs/testing.md) found the output guard's own
tests not to notice: a corpus link folder made, kept, re-pointed, emptied of stale links and
rebuilt after a user's deletion, never touching what it did not make; the files of two commands
joined; a refusal listing at most eight names."""
from __future__ import annotations

import os

import pytest

from touche.errors import ToucheError
from touche.guard import Files, LinkFolder, OutputFolder, read_record


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


def test_the_files_of_two_commands_join():
    joined = Files.of(reads=[("run", "a.txt")], folders=[("out", "o")]) + Files.of(writes=[("page", "p.html")],
                                                                                  reads=[("qrels", "q.txt")])
    assert [str(p) for _, p in joined.reads] == ["a.txt", "q.txt"]
    assert [str(p) for _, p in joined.writes] == ["p.html"] and [str(p) for _, p in joined.folders] == ["o"]
