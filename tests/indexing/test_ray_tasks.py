"""Shard tasks on Ray as indexing/distributed.py plans them, without a cluster: which cluster is
joined and left, what each task asks for (cores, retries, a fresh process, the driver's settings),
how results are collected and failures said, and where the shards go. A recording stand-in for the
``ray`` module takes the cluster's place (tests/indexing/test_distributed.py runs the real one)."""
from __future__ import annotations

import sys
import types

import pytest

from tests.indexing.test_builder import ARGUMENTS, Indexer, Searcher, java, variant  # noqa: F401 (the fixture)
from tests.shared import write_argsme
from touche import jvm
from touche.errors import EnvironmentProblem, InputError, ToucheError
from touche.guard import RECORD
from touche.indexing import builder, distributed
from touche.indexing.corpora import open_corpus


class TaskError(Exception):
    def __init__(self, cause):
        super().__init__(f"task failed: {cause}")
        self.cause = cause


class Crashed(Exception):
    pass


class Ref:
    def __init__(self, function, args):
        self.function, self.args = function, args


class Ray(types.ModuleType):
    """What distributed.py calls of ``ray``, recorded; tasks run when their result is asked for."""

    def __init__(self, cpus=4, fail=None):
        super().__init__("ray")
        self.calls, self.cpus, self.fail, self.initialized = [], cpus, fail, False
        self.exceptions = types.SimpleNamespace(RayTaskError=TaskError, WorkerCrashedError=Crashed)

    def is_initialized(self):
        return self.initialized

    def init(self, **options):
        self.calls.append(("init", options))
        if self.fail:
            raise self.fail
        self.initialized = True

    def shutdown(self):
        self.calls.append(("shutdown",))
        self.initialized = False

    def cluster_resources(self):
        return {"CPU": self.cpus} if self.cpus else {}

    def remote(self, **options):
        self.calls.append(("remote", options))
        return lambda function: types.SimpleNamespace(remote=lambda *args: Ref(function, args))

    def wait(self, refs, num_returns):
        assert num_returns == 1
        return refs[:1], refs[1:]

    def get(self, ref):
        try:
            return ref.function(*ref.args)
        except (Crashed, TaskError):
            raise
        except Exception as exc:  # what Ray does with a task's own exception
            raise TaskError(exc) from exc

    def cancel(self, ref, force):
        self.calls.append(("cancel", ref.args, force))


@pytest.fixture
def ray(monkeypatch):
    fake = Ray()
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setattr(jvm, "start", lambda heap=None: fake.calls.append(("jvm", heap)))
    return fake


@pytest.fixture
def corpus(tmp_path):
    return write_argsme(tmp_path / "corpus" / "args.json", ARGUMENTS).parent


def test_without_ray_the_extra_to_install_is_said(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(EnvironmentProblem, match=r"Ray is not installed: pip install 'touche-toolkit\[distributed\]' "
                                                 r"\(or pip install ray\) on every node"):
        distributed.ray_module()


@pytest.mark.parametrize("address, init", [(None, {"num_cpus": 3}), ("", {"num_cpus": 3}), ("local", {"num_cpus": 3}),
                                           ("auto", {"address": "auto"}), ("ray://h:1", {"address": "ray://h:1"})])
def test_a_cluster_is_started_or_joined_once(ray, address, init):
    distributed.connect(address, cpus=3)
    distributed.connect(address, cpus=3)  # joined already: nothing more
    assert ray.calls == [("init", {**init, "include_dashboard": False, "log_to_driver": False})]
    distributed.disconnect()
    assert ray.calls[-1] == ("shutdown",) and not ray.initialized


@pytest.mark.parametrize("failure", [ConnectionError("refused"), RuntimeError("no head"), ValueError("bad address")])
def test_an_unreachable_cluster_is_said_with_how_to_start_one(ray, failure):
    ray.fail = failure
    with pytest.raises(ToucheError, match=rf"cannot reach the Ray cluster at h:1: {failure} \(start one with "
                                          r"`ray start --head`, or leave the address out for a local cluster\)"):
        distributed.connect("h:1")


def test_a_task_asks_for_its_cores_retries_a_fresh_process_and_the_drivers_settings(ray, monkeypatch):
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "3g")
    monkeypatch.setenv("OTHER", "x")

    def work():
        pass
    distributed.remote_task(work, 2, retries=3, max_calls=1)
    distributed.remote_task(work, 1, retries=0)
    first, second = (options for call, options in ray.calls)
    assert first["num_cpus"] == 2 and first["max_retries"] == 3 and first["retry_exceptions"] is False
    assert first["max_calls"] == 1 and "max_calls" not in second and second["max_retries"] == 0
    forwarded = first["runtime_env"]["env_vars"]
    assert forwarded["TOUCHE_JVM_HEAP"] == "3g" and "OTHER" not in forwarded
    assert all(name.startswith("TOUCHE_") for name in forwarded)


def test_a_tasks_heap_is_this_machines_share_on_a_local_cluster(monkeypatch):
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "4g")
    assert distributed.worker_heap(None, 4, 1) == "1024m" and distributed.worker_heap("local", 4, 2) == "2048m"
    assert distributed.worker_heap("", 8, 2) == "1024m" and distributed.worker_heap(None, 1, 4) == "4096m"
    assert distributed.worker_heap("auto", 4, 1) == "4g"
    assert distributed.worker_heap(None, 3, 2) == "4096m"  # one task at a time fits: 3 // 2


def test_results_are_collected_as_they_come(ray):
    got = []
    distributed.collect({Ref(lambda *job: 1, ("a",)): "a", Ref(lambda *job: 2, ("b",)): "b"}, lambda job, result:
                        got.append((job, result)), str, 3)
    assert got == [("a", 1), ("b", 2)]


def test_a_failed_task_cancels_the_others_and_is_said(ray):
    def crash(*job):
        raise Crashed()

    def refuse(*job):
        raise InputError("a bad record", path="args.json")

    def fail(*job):
        raise ValueError("boom")
    late = Ref(lambda *job: 3, ("late",))
    with pytest.raises(ToucheError, match=r"shard a: its worker died 4 times; see the Ray logs "
                                          r"\(/tmp/ray/session_latest/logs\)"):
        distributed.collect({Ref(crash, ("a",)): "a", late: "late"}, lambda *a: None, lambda j: f"shard {j}", 3)
    assert ray.calls == [("cancel", ("late",), True)]
    with pytest.raises(InputError, match="args.json: a bad record"):  # raised as itself
        distributed.collect({Ref(refuse, ()): "b"}, lambda *a: None, str, 3)
    with pytest.raises(ToucheError, match="shard c failed on the cluster: task failed: boom"):
        distributed.collect({Ref(fail, ()): "c"}, lambda *a: None, lambda j: f"shard {j}", 3)


def test_shards_are_built_as_tasks_and_assembled(ray, java, corpus, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "4g")
    ray.cpus = 2
    target = builder.index_dir(tmp_path / "R", variant(threads=3), open_corpus("argsme", corpus))
    info = distributed.build_sharded_on_ray(variant(threads=3), corpus, target, 2, address=None, progress=False)
    assert info.path == target and info.meta["shards"] == ["shard-0-of-2", "shard-1-of-2"]
    assert sorted(p.name for p in target.parent.iterdir()) == [RECORD, target.name]
    init, remote, jvm1, jvm2, shutdown = ray.calls
    assert init[0] == "init" and init[1]["num_cpus"] is None and shutdown == ("shutdown",)
    assert remote[1]["num_cpus"] == 2 and remote[1]["max_calls"] == 1 and remote[1]["max_retries"] == 3
    assert jvm1 == jvm2 == ("jvm", "4096m")  # one task at a time on two cores: the whole heap
    assert [i.options[2] for i in java.made] == [2, 2]  # threads capped at the cluster's cores
    assert [i.path.parent.name for i in java.made] == [f"{target.name}.shards"] * 2


def test_a_joined_cluster_is_not_left_and_finished_shards_are_not_rebuilt(ray, java, corpus, tmp_path):  # noqa: F811
    root = tmp_path / "R"
    for k in (0, 1):
        built = builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=k)
    target = root / built.path.parent.name.removesuffix(".shards")
    ray.initialized = True
    info = distributed.build_sharded_on_ray(variant(), corpus, target, 2, address="auto", progress=False)
    assert info.meta["shards"] == ["shard-0-of-2", "shard-1-of-2"] and ray.calls == [] and len(java.made) == 2


def test_a_cluster_joined_for_the_build_is_left_when_a_task_fails(ray, java, corpus, tmp_path, monkeypatch):  # noqa: F811
    def broken(*args, **kwargs):
        raise InputError("a bad shard")
    monkeypatch.setattr(distributed, "ensure_shard", broken)
    target = builder.index_dir(tmp_path / "R", variant(), open_corpus("argsme", corpus))
    with pytest.raises(InputError, match="a bad shard"):
        distributed.build_sharded_on_ray(variant(), corpus, target, 2, address="h:1", progress=True)
    assert ray.calls[0] == ("init", {"address": "h:1", "include_dashboard": False, "log_to_driver": False})
    assert ray.calls[-1] == ("shutdown",) and ("cancel", ray.calls[-2][1], True) == ray.calls[-2]


def test_a_shard_task_starts_its_jvm_with_its_heap_and_builds_its_shard_where_told(ray, java, corpus, tmp_path):  # noqa: F811
    target = builder.index_dir(tmp_path / "R", variant(), open_corpus("argsme", corpus))
    builder.shards_folder(target)
    metas = [distributed._build_shard_task(variant(threads=2).model_dump_json(), str(corpus), str(target), k, 2,
                                           None, "5g") for k in (0, 1)]
    assert ray.calls == [("jvm", "5g"), ("jvm", "5g")]
    assert [m["shard"] for m in metas] == [[0, 2], [1, 2]] and [m["index"]["threads"] for m in metas] == [2, 2]
    assert [m["corpus"]["part"] for m in metas] == [[0, 2], [1, 2]]  # each read its own share
    assert sorted(p.name for p in builder.shards_folder(target).path.iterdir() if not p.name.startswith(".")) == \
        ["shard-0-of-2", "shard-1-of-2"]


def test_the_progress_counts_the_shards_built_and_their_documents(ray, java, corpus, tmp_path, monkeypatch):  # noqa: F811
    """With shard 1 of 3 built before, the bar starts at one of three and the tasks add shards 0 and
    2, with their documents (the stand-in Searcher counts three in each shard)."""
    bars = []

    class Bar:
        def __init__(self, **options):
            self.options, self.n, self.postfix = options, options["initial"], ""
            bars.append(self)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, done):
            self.n += done

        def set_postfix_str(self, text):
            self.postfix = text
    monkeypatch.setattr(distributed, "progress_bar", Bar)
    root = tmp_path / "R"
    built = builder.ensure_index(variant(), corpus, root, progress=False, shards=3, shard=1)
    target = root / built.path.parent.name.removesuffix(".shards")
    info = distributed.build_sharded_on_ray(variant(), corpus, target, 3, address=None, progress=True)
    (bar,) = bars
    assert (bar.options["total"], bar.options["initial"], bar.options["disable"], bar.n) == (3, 1, False, 3)
    assert bar.postfix == "6 documents" and info.meta["stats"]["documents"] == 9



def test_a_cluster_that_reports_no_cores_is_taken_for_one(ray, java, corpus, tmp_path):  # noqa: F811
    ray.cpus = 0
    target = builder.index_dir(tmp_path / "R", variant(threads=3), open_corpus("argsme", corpus))
    distributed.build_sharded_on_ray(variant(threads=3), corpus, target, 2, address=None, progress=False)
    assert [call[1]["num_cpus"] for call in ray.calls if call[0] == "remote"] == [1]
    assert [i.options[2] for i in java.made] == [1, 1]
