"""Where a dataset's file comes from (touche/datasets.py): a file in ir_datasets' cache is used as
it is, a missing one fetched once through the fetcher; one that cannot be had is named with where
to put it offline (the downloads folder for a big member of a download only), and why the fetch
failed is said in at most 160 characters."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.core.test_datasets import DEMO, REPO, T1_2020, T1_2021, T2_2020, never_fetch, place
from touche import datasets as ds
from touche.errors import InputError


def test_a_cached_file_is_used_without_fetching(irds):
    f = ds.dataset(T1_2021).topics
    place(f, DEMO / "topics.xml")
    assert ds.topics_path(T1_2021, fetcher=never_fetch) == irds / "touche/2021/task-1/queries.xml"


def test_a_missing_file_is_fetched_once(irds):
    calls = []

    def fetch_from_demo(f: ds.CacheFile) -> None:  # a local source behind the fetcher interface
        calls.append(f.relpath)
        place(f, DEMO / "qrels-relevance.txt")

    paths = ds.qrels_paths(T1_2020, fetcher=fetch_from_demo)
    assert paths == {"relevance": irds / "touche/2020/task-1/qrels.qrels"}
    assert ds.qrels_paths(T1_2020, fetcher=fetch_from_demo) == paths
    assert calls == ["touche/2020/task-1/qrels.qrels"]


def test_a_file_that_cannot_be_fetched_is_named_with_where_to_put_it(irds):
    def offline(f):
        raise ConnectionError("Failed to resolve 'zenodo.org'")

    with pytest.raises(InputError) as err:
        ds.topics_path(T1_2021, fetcher=offline)
    message = str(err.value)
    assert message.startswith(str(irds / "touche/2021/task-1/queries.xml"))
    assert "ConnectionError: Failed to resolve 'zenodo.org'" in message
    assert "place topics-task-1-only-titles.xml (from https://zenodo.org/" in message



@pytest.mark.parametrize("length, said", [(146, "RuntimeError: " + "x" * 146),
                                          (147, "RuntimeError: " + "x" * 145 + "…")])
def test_why_a_fetch_failed_is_said_in_at_most_160_characters(irds, length, said):
    def failing(f):
        raise RuntimeError("x" * length + "\nsecond line")
    with pytest.raises(InputError) as err:
        ds.topics_path(T1_2021, fetcher=failing)
    assert f"ir_datasets could not fetch it ({said}); offline: place " in str(err.value) and len(said) == 160



def test_the_downloads_folder_is_named_for_a_big_member_of_a_download_only(irds):
    big, small = ds.ARGSME.files[0], ds.ARGSME.files[4]  # debateorg.json (1.1 GB), parliamentary.json (27 KB)
    assert ds.placement_hint(big) == (
        f"place debateorg.json (from https://zenodo.org/record/3734893/files/debateorg.zip) at "
        f"{irds / 'argsme/2020-04-01/debateorg.json'}, or the download itself at "
        f"{irds / 'downloads/0368ee47ce0ec8bed837c7e22c024493'}")
    assert ds.placement_hint(small) == (f"place parliamentary.json (from https://zenodo.org/record/3734893/files/"
                                        f"parliamentary.zip) at {irds / 'argsme/2020-04-01/parliamentary.json'}")


def test_without_ir_datasets_a_file_has_no_known_source(irds, monkeypatch):
    import importlib.util
    ds._downloads.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    try:
        assert ds.source_of(ds.ARGSME.files[0]) == {"url": None, "md5": None, "size": None, "instructions": None}
        assert ds.placement_hint(ds.ARGSME.files[0]) == (f"place debateorg.json (from None) at "
                                                         f"{irds / 'argsme/2020-04-01/debateorg.json'}")
    finally:
        ds._downloads.cache_clear()


def test_fetched_elsewhere_is_an_error(irds):
    with pytest.raises(InputError, match="IR_DATASETS_HOME changed"):
        ds.topics_path(T1_2021, fetcher=lambda f: None)


def test_ir_datasets_itself_offline_gives_the_placement_hint(tmp_path):
    """The real fetcher, with the network namespace taken away: ir_datasets fails and we say where
    the file goes. (With a network the file is downloaded instead: then its md5 must be right.)"""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "true"]).returncode != 0:
        pytest.skip("unshare -n (a process without network) is not available here")
    home = tmp_path / "home"
    code = ("from touche.datasets import *\n"
            f"f = dataset({T2_2020!r}).qrels['relevance']\n"
            "try:\n    print('FETCHED', ensure_file(f))\n"
            "except InputError as e:\n    print('ERROR', e)\n")
    done = subprocess.run(["unshare", "-n", sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "IR_DATASETS_HOME": str(home), "IR_DATASETS_DL_TRIES": "1"},
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ERROR " + str(home / "touche/2020/task-2/qrels.qrels"))
    assert "offline: place https://zenodo.org/record/6797876/files/touche2020-task2-relevance-withbaseline.qrels" \
           in done.stdout
