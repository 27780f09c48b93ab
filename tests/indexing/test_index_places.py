"""Where an index goes (indexing/builder.py), with Lucene's classes stood in for: an index, a
shard and an assembled index are placed only where nothing is, a user's folder there refused by
its place's name before any work; a finished index is reused only in the layout asked for."""
from __future__ import annotations

import json
import re
import time

import pytest

from tests.indexing.test_builder import corpus, java, variant  # noqa: F401 (the fixtures)
from touche.errors import ToucheError
from touche.indexing import builder
from touche.indexing.corpora import open_corpus

REFUSED = "; it is no finished index (touche-index.json missing) and touche deletes nothing to make room"


def test_a_users_folder_at_a_shards_place_is_refused_by_its_name_before_any_work(java, corpus, tmp_path):  # noqa: F811
    root = tmp_path / "R"
    target = builder.index_dir(root, variant(), open_corpus("argsme", corpus))
    mine = builder.shards_folder(target).path / "shard-1-of-2"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(ToucheError, match=r"the shard 1 of 2's place in the .* holds .*" + re.escape(REFUSED)):
        builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=1)
    assert java.made == [] and (mine / "notes.txt").read_text() == "mine"


def test_a_users_folder_at_an_assembled_indexs_place_is_refused_by_its_name(java, corpus, tmp_path):  # noqa: F811
    root = tmp_path / "R"
    for k in (0, 1):
        built = builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=k)
    target = root / built.path.parent.name.removesuffix(".shards")
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(ToucheError, match=r"the index's place in the index root holds .*" + re.escape(REFUSED)):
        builder.assemble_shards(variant(), target, 2)
    assert (target / "notes.txt").read_text() == "mine"


def test_a_finished_index_in_another_layout_than_asked_is_refused_not_reused(java, corpus, tmp_path):  # noqa: F811
    root = tmp_path / "R"
    single = builder.ensure_index(variant(), corpus, root, progress=False)
    made = len(java.made)
    with pytest.raises(ToucheError, match=r"this index already exists as one unsharded index, not 2"):
        builder.ensure_index(variant(), corpus, root, progress=False, shards=2)
    assert builder.ensure_index(variant(), corpus, root, progress=False, shards=1).path == single.path
    assert len(java.made) == made  # nothing built again


def test_an_indexs_directories_are_found_from_a_path_given_as_text(tmp_path):
    assert builder.index_paths(str(tmp_path)) == [tmp_path]


def test_a_builds_seconds_are_its_own_duration(java, corpus, tmp_path):  # noqa: F811
    build = builder.ensure_index(variant(), corpus, tmp_path / "R", progress=False).meta["build"]
    assert 0 <= build["seconds"] < 60


def _shard(folder, name: str = "shard-0-of-2", shard=(0, 2), files=("_0.cfs", "segments_1")):
    path = folder / name
    path.mkdir(parents=True)
    for file in files:
        (path / file).write_bytes(b"lucene")
    (path / "touche-index.json").write_text(json.dumps({"shard": list(shard)}))
    return path


def test_a_gathered_shard_is_lucenes_files_and_its_description_naming_it(tmp_path):
    """What a shards folder copied from another machine may hold to be taken as the toolkit's."""
    assert builder._built_shard(_shard(tmp_path / "a"))
    assert not builder._built_shard(_shard(tmp_path / "b", shard=(1, 2)))  # names another shard
    assert not builder._built_shard(_shard(tmp_path / "c", name="shard-zero"))  # not a shard's name
    assert not builder._built_shard(_shard(tmp_path / "d", files=("_0.cfs", "notes.txt")))  # a file of someone's
    linked = _shard(tmp_path / "e", files=("segments_1",))
    (tmp_path / "elsewhere.cfs").write_bytes(b"lucene")
    (linked / "_0.cfs").symlink_to(tmp_path / "elsewhere.cfs")
    assert not builder._built_shard(linked)  # a link, even to a file: nothing is written through it
    no_description = _shard(tmp_path / "f")
    (no_description / "touche-index.json").unlink()
    assert not builder._built_shard(no_description) and not builder._built_shard(tmp_path / "none")


def test_a_gathered_shards_folder_holds_shards_and_the_toolkits_bookkeeping_only(tmp_path):
    folder = tmp_path / "x.shards"
    _shard(folder)
    (folder / ".touche-made").write_text("")
    (folder / ".shard-1-of-2.touche.lock").write_text("")
    assert builder._gathered_shards(folder)
    (folder / "notes.txt").write_text("mine")
    assert not builder._gathered_shards(folder)
    assert not builder._gathered_shards(tmp_path / "empty.shards") and not builder._gathered_shards(tmp_path)


class _Clock:
    """time for the builder: perf_counter from a list of readings, the real strftime."""

    def __init__(self, *readings: float):
        self.readings = list(readings)

    def perf_counter(self) -> float:
        return self.readings.pop(0)

    @staticmethod
    def strftime(form: str) -> str:
        return time.strftime(form)


def test_a_builds_description_holds_its_duration_and_rate_rounded(java, corpus, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(builder, "time", _Clock(100.0, 103.0004))
    meta = builder.ensure_index(variant(), corpus, tmp_path / "R", progress=False).meta
    assert meta["format"] == 1 and meta["build"]["seconds"] == 3.0  # 3.0004 s to the millisecond
    assert meta["build"]["docs_per_second"] == 2.3  # 7 documents / 3.0004 s, to one decimal
    assert json.loads((tmp_path / "R" / meta_path(tmp_path / "R")).read_text()) == meta


def test_an_assembled_index_describes_the_whole_build(java, corpus, tmp_path, monkeypatch):  # noqa: F811
    root = tmp_path / "R"
    for k in (0, 1):
        monkeypatch.setattr(builder, "time", _Clock(0.0, 1.5))
        built = builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=k)
    target = root / built.path.parent.name.removesuffix(".shards")
    meta = builder.assemble_shards(variant(), target, 2, seconds=2.6004).meta
    assert meta["format"] == 1 and meta["corpus"] == {k: v for k, v in built.meta["corpus"].items() if k != "part"}
    assert meta["stats"]["documents"] == 6  # the stand-in Searcher counts three a shard
    assert meta["build"]["seconds"] == 2.6 and meta["build"]["docs_per_second"] == 2.3  # 6 / 2.6004 s
    assert meta["build"]["shard_seconds"] == [1.5, 1.5]
    assert json.loads((target / "touche-index.json").read_text()) == meta


def meta_path(root):
    (name,) = [p.name for p in root.iterdir() if not p.name.startswith(".")]
    return f"{name}/touche-index.json"
