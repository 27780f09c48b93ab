"""Fault injection for the Ray tests, installed in every worker of the tests' cluster as it starts
(Ray's ``worker_process_setup_hook``, tests/indexing/test_distributed.py): with KILL_ONCE_ENV
naming a folder, the first shard task to leave its marker there kills its own worker process
mid-build, once for the whole cluster. It lives here, not in the product: no build of a user's
ever reads the setting."""
from __future__ import annotations

import os
import signal

KILL_ONCE_ENV = "TOUCHE_RAY_KILL_ONCE"  # a TOUCHE_ setting: remote_task forwards it to the workers
MIDWAY = 2  # documents handed to Lucene before the kill: the shard's temporary index exists and holds some


def kill_once(folder: str, k: int) -> None:
    """Leave the marker (an exclusive create: one task of the cluster wins) and die as a crash does."""
    try:
        descriptor = os.open(os.path.join(folder, "killed"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    os.write(descriptor, f"shard {k} pid {os.getpid()}\n".encode())
    os.close(descriptor)
    os.kill(os.getpid(), signal.SIGKILL)


def install() -> None:
    """In a worker: wrap the builder's partition so that the shard's documents die mid-way."""
    folder = os.environ.get(KILL_ONCE_ENV)
    if not folder:
        return
    from touche.indexing import builder
    original = builder.partition

    def partition_then_die(source, k, n):
        shard = original(source, k, n)
        documents = shard.documents

        def dying(fields):
            for number, document in enumerate(documents(fields)):
                if number == MIDWAY:
                    kill_once(folder, k)
                yield document
        shard.documents = dying
        return shard
    builder.partition = partition_then_die
