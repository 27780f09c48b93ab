"""Where an index goes (indexing/builder.py), with Lucene's classes stood in for: an index, a
shard and an assembled index are placed only where nothing is, a user's folder there refused by
its place's name before any work; a finished index is reused only in the layout asked for."""
from __future__ import annotations

import re

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
