"""Building an index's shards on a Ray cluster (``touche index --shards N --ray [ADDRESS]``).

Ray (``pip install 'touche-toolkit[distributed]'``) does what a home-made recipe did by hand:
it places one task per shard on the cluster's nodes, retries a task whose worker died, and
reports back. Each task runs in a worker process of its own (``max_calls=1``: a fresh process,
so a fresh JVM with the configured heap, per shard), reads only its share of the corpus
(``builder.partition``) and writes ``shard-k-of-N`` under the index root, which every node
must see (a shared file system). A half-written shard never counts: a shard is built under a
temporary name and renamed into place when whole, so a retried task starts it again and a
finished one is reused. The driver then assembles the N shards as ``touche index --shards N``
does on one machine.

Without an address Ray starts a local cluster (all cores of this machine); with one
(``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``) it joins the cluster that ``ray start --head``
and ``ray start --address HEAD:PORT`` made (docs/performance.md has the recipe).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Callable

from touche import jvm
from touche.config import VariantSpec
from touche.errors import EnvironmentProblem, ToucheError
from touche.indexing.builder import (
    IndexInfo,
    assemble_shards,
    check_shards,
    ensure_shard,
    open_index,
    shard_dir,
    shard_heap,
)
from touche.progress import progress_bar

log = logging.getLogger(__name__)

RETRIES = 3  # a shard task whose worker process dies is run again this many times


def ray_module():
    try:
        import ray  # noqa: PLC0415 (optional and heavy: only distributed builds need it)
    except ImportError:
        raise EnvironmentProblem("Ray is not installed: pip install 'touche-toolkit[distributed]' "
                                 "(or pip install ray) on every node") from None
    return ray


def connect(address: str | None, cpus: int | None = None) -> None:
    """Join the cluster at ``address``, or start a local one (``None`` or ``"local"``)."""
    ray = ray_module()
    if ray.is_initialized():
        return
    options = dict(include_dashboard=False, log_to_driver=False)
    try:
        with jvm.native_signal_handlers_kept():  # Ray's crash handler would take the JVM's SIGSEGV
            if address in (None, "", "local"):
                ray.init(num_cpus=cpus, **options)
            else:
                ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ToucheError(f"cannot reach the Ray cluster at {address}: {exc} (start one with `ray start --head`, "
                          "or leave the address out for a local cluster)") from None


def disconnect() -> None:
    """Leave the cluster (a local one stops), keeping the JVM's signal handlers (ray.shutdown resets them)."""
    ray = ray_module()
    with jvm.native_signal_handlers_kept():
        ray.shutdown()


def _build_shard_task(variant_json: str, corpus_path: str, target: str, k: int, n: int, base_dir: str | None,
                      heap: str) -> dict:
    """One shard, in a Ray worker process of its own (its own JVM)."""
    jvm.start(heap)
    variant = VariantSpec.model_validate_json(variant_json)
    info = ensure_shard(variant, corpus_path, Path(target), k, n, base_dir=Path(base_dir) if base_dir else None,
                         progress=False)
    return info.meta


def build_sharded_on_ray(variant: VariantSpec, corpus_path: str | Path, target: Path, n: int, *,
                         address: str | None = None, base_dir: Path | None = None,
                         progress: bool = True) -> IndexInfo:
    """Build the missing shards of ``target`` as Ray tasks, then assemble the N shards."""
    ray = ray_module()
    missing = [k for k in range(n) if open_index(shard_dir(target, k, n)) is None]
    if missing:
        ours = not ray.is_initialized()  # a cluster we joined for this build is left after it
        connect(address)
        try:
            _run_shard_tasks(variant, corpus_path, target, n, missing, address=address, base_dir=base_dir,
                             progress=progress)
        finally:
            if ours:
                disconnect()
    return assemble_shards(variant, target, n, base_dir=base_dir)


def _run_shard_tasks(variant: VariantSpec, corpus_path: str | Path, target: Path, n: int, missing: list[int], *,
                     address: str | None, base_dir: Path | None, progress: bool) -> None:
    ray = ray_module()
    threads = variant.index.threads
    cpus = int(ray.cluster_resources().get("CPU", 1))
    if threads > cpus:  # a task asking for more cores than the cluster has would wait forever
        threads = cpus
    shard_variant = variant.model_copy(update={"index": variant.index.model_copy(update={"threads": threads})})
    heap = worker_heap(address, cpus, threads)
    task = remote_task(_build_shard_task, threads, retries=RETRIES, max_calls=1)
    check_shards(target, n, missing)  # the shards folder made and recorded here, before the tasks fill it
    pending = {task.remote(shard_variant.model_dump_json(), str(Path(corpus_path).resolve()), str(target.resolve()),
                           k, n, str(base_dir) if base_dir else None, heap): k for k in missing}
    documents = 0
    with progress_bar(total=n, initial=n - len(missing), desc=f"shards on Ray ({n})", unit=" shard",
              disable=not progress) as bar:
        def built(k: int, meta: dict) -> None:
            nonlocal documents
            documents += meta["stats"]["documents"]
            bar.set_postfix_str(f"{documents:,} documents")
            bar.update(1)

        collect(pending, built, lambda k: f"shard {k} of {n}", RETRIES)


def remote_task(fn, threads: int, *, retries: int, max_calls: int | None = None):
    """``fn`` as a Ray task taking ``threads`` CPUs, run again ``retries`` times if its worker
    dies (never for an exception it raises). The driver's TOUCHE_* settings (heap, caches, lock
    timeout) hold in the workers too."""
    forwarded = {k: v for k, v in os.environ.items() if k.startswith("TOUCHE_")}
    options = {"num_cpus": threads, "max_retries": retries, "retry_exceptions": False,
               "runtime_env": {"env_vars": forwarded}}
    if max_calls is not None:
        options["max_calls"] = max_calls
    return ray_module().remote(**options)(fn)


def worker_heap(address: str | None, cpus: int, threads: int) -> str:
    """A task's JVM heap: this machine's share per concurrent task on a local cluster, the
    default on a real one (whose nodes' memory the driver does not know)."""
    return shard_heap(max(1, cpus // threads)) if address in (None, "", "local") else jvm.jvm_heap()


def collect(pending: dict, on_result: Callable[[Any, Any], None], what: Callable[[Any], str], retries: int) -> None:
    """Hand each finished task's result to ``on_result(job, result)`` as it comes (``pending``:
    object ref → job). At the first failure the other tasks are cancelled and a ToucheError the
    task raised is raised as itself; any other failure names the job by ``what(job)``."""
    ray = ray_module()
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        job = pending.pop(done[0])
        try:
            result = ray.get(done[0])
        except (ray.exceptions.RayTaskError, ray.exceptions.WorkerCrashedError) as exc:
            for other in pending:
                ray.cancel(other, force=True)
            if isinstance(exc, ray.exceptions.WorkerCrashedError):
                raise ToucheError(f"{what(job)}: its worker died {retries + 1} times; see the Ray logs "
                                  "(/tmp/ray/session_latest/logs)") from None
            cause = getattr(exc, "cause", None)
            if isinstance(cause, ToucheError):
                raise cause from None
            raise ToucheError(f"{what(job)} failed on the cluster: {exc}") from None
        on_result(job, result)
