"""Index shards built as Ray tasks (touche index --shards N --ray): on a local Ray cluster the
two shards search exactly as the single index, and a shard task killed mid-way is run again
with the same result."""
from __future__ import annotations

import contextlib
import ctypes
import io
import signal
from functools import partial

import pytest

from tests.shared import REPO, write_argsme
from touche.config import VariantSpec
from touche.errors import ToucheError

ray = pytest.importorskip("ray", reason="Ray is the optional extra [distributed]; run_tests.sh installs it")

from tests.indexing.ray_faults import KILL_ONCE_ENV  # noqa: E402
from tests.indexing.test_sharding import FIELDS, _arguments  # noqa: E402
from touche import jvm  # noqa: E402
from touche.indexing.builder import ensure_index  # noqa: E402
from touche.indexing.distributed import build_sharded_on_ray, connect, disconnect  # noqa: E402
from touche.retrieval.search import Searcher  # noqa: E402

QUERIES = {"1": "school uniforms students", "2": "nuclear energy is bad", "3": "homework"}
VARIANT = VariantSpec(tag="t", index={"fields": FIELDS, "threads": 1}, analyzer={"stemmer": "krovetz"})


def _start_cluster() -> None:
    """A local Ray cluster of this machine's two cores, started as connect starts one, whose workers
    install the tests' fault injection as they start (tests/indexing/ray_faults.py)."""
    with jvm.native_signal_handlers_kept():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"worker_process_setup_hook": "tests.indexing.ray_faults.install",
                              "env_vars": {"PYTHONPATH": str(REPO)}})


@pytest.fixture(scope="module")
def cluster(jvm_started):
    _start_cluster()  # joined after the JVM started
    yield
    disconnect()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("ray-corpus")
    write_argsme(root / "args.me" / "args.json", _arguments(40))
    return root / "args.me"


@pytest.fixture(scope="module")
def single(jvm_started, corpus, tmp_path_factory):
    return ensure_index(VARIANT, corpus, tmp_path_factory.mktemp("single"), progress=False)


def _same_runs(a, b) -> None:
    with Searcher(a.path, VARIANT.analyzer) as one, Searcher(b.path, VARIANT.analyzer) as two:
        for weights in ({"contents": 1.0}, {"contents": 1.0, "conclusion": 0.5}):
            assert two.search(QUERIES, weights, k=10) == one.search(QUERIES, weights, k=10)


def test_two_shards_on_a_local_ray_cluster_search_as_the_single_index(cluster, corpus, single, tmp_path):
    sharded = ensure_index(VARIANT, corpus, tmp_path, progress=False, shards=2,
                           sharded_builder=partial(build_sharded_on_ray, address=None))
    assert sharded.meta["shards"] == ["shard-0-of-2", "shard-1-of-2"]
    assert sharded.meta["stats"] == single.meta["stats"]
    _same_runs(single, sharded)


def test_a_shard_task_killed_midway_is_retried_and_the_index_is_the_same(cluster, corpus, single, tmp_path,
                                                                         monkeypatch):
    marker_folder = tmp_path / "fault"
    marker_folder.mkdir()
    monkeypatch.setenv(KILL_ONCE_ENV, str(marker_folder))
    sharded = ensure_index(VARIANT, corpus, tmp_path / "indexes", progress=False, shards=2,
                           sharded_builder=partial(build_sharded_on_ray, address=None))
    assert "shard" in (marker_folder / "killed").read_text()  # a worker did die mid-build …
    assert sharded.meta["stats"] == single.meta["stats"]      # … and its shard was built again, whole
    _same_runs(single, sharded)
    assert not list((tmp_path / "indexes").glob(".*tmp*"))    # the dead worker's partial shard is gone


def test_the_command_line_builds_on_ray_and_refuses_ray_without_shards(cluster, corpus, tmp_path):
    from touche.cli import main
    config = tmp_path / "v.yaml"
    config.write_text("tag: t\nindex: {fields: [contents, conclusion], threads: 1}\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["index", "-c", str(config), "-i", str(corpus), "--index-root", str(tmp_path / "idx"),
                     "--shards", "2", "--ray"])
    assert code == 0, err.getvalue()
    assert "shards: 2 (searched as one)" in out.getvalue() and "documents: 40" in out.getvalue()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["index", "-c", str(config), "-i", str(corpus), "--index-root", str(tmp_path / "idx2"), "--ray"])
    assert code == 2 and "ray builds the shards of shards=N (--shards N, N >= 2) as Ray tasks" in err.getvalue()


def test_an_unreachable_cluster_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    with pytest.raises(ToucheError, match="cannot reach the Ray cluster at 127.0.0.1:1"):
        connect("127.0.0.1:1")


def _native_handler(number: int) -> int:
    action = ctypes.create_string_buffer(256)
    assert ctypes.CDLL(None).sigaction(number, None, action) == 0
    return ctypes.cast(action, ctypes.POINTER(ctypes.c_void_p))[0] or 0


def test_joining_and_leaving_ray_keeps_the_jvms_crash_signal_handlers(cluster):
    """ray.init put abseil's failure handler on SIGSEGV and ray.shutdown reset it to the default: the
    next implicit null check in JIT-compiled Lucene code then killed pytest ("segfault at c", no hs_err)."""
    jvm_handlers = {number: _native_handler(number) for number in (signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE)}
    assert all(jvm_handlers.values())  # the JVM's own, not the default
    disconnect()
    assert {number: _native_handler(number) for number in jvm_handlers} == jvm_handlers
    connect(None, cpus=2)  # joining, as a build does
    assert {number: _native_handler(number) for number in jvm_handlers} == jvm_handlers
    disconnect()
    _start_cluster()  # the module's cluster again, for its teardown
    assert {number: _native_handler(number) for number in jvm_handlers} == jvm_handlers
