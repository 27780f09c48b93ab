"""Variant files: validation on load, extends, overrides, index sharing."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import DEMO, REPO, VARIANT, cli, yaml_dump
from touche.config import apply_overrides, load_suite, load_variant
from touche.errors import ConfigError

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "task1"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_shipped_variants_load_and_five_are_distinct():
    suite_path, suite = load_suite(CONFIGS / "suite.yaml")
    assert len(suite.variants) == 5
    loaded = [load_variant(CONFIGS / v) for v in suite.variants]
    assert len({v.variant.tag for v in loaded}) == 5
    assert suite.primary in suite.variants


def test_unknown_key_names_key_file_and_valid_keys(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nanalyzer:\n  stemer: krovetz\n")
    with pytest.raises(ConfigError) as err:
        load_variant(path)
    message = str(err.value)
    assert str(path) in message
    assert "unknown key 'analyzer.stemer'" in message
    assert "stemmer" in message  # the valid keys are listed


def test_unknown_top_level_key(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nretreival: {}\n")
    with pytest.raises(ConfigError, match="unknown key 'retreival'"):
        load_variant(path)


def test_bad_choice_lists_the_valid_ones(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nanalyzer: {stemmer: krovets}\n")
    with pytest.raises(
        ConfigError, match=r"analyzer.stemmer: 'krovets' is not allowed; expected 'none', 'krovetz' or 'porter'"
    ):
        load_variant(path)


def test_value_out_of_range(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nretrieval: {top_k: 5000}\n")
    with pytest.raises(ConfigError, match=r"retrieval.top_k: must be at most 1000"):
        load_variant(path)


def test_unknown_similarity_name(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nretrieval: {similarity: {name: tfidf}}\n")
    with pytest.raises(ConfigError, match=r"unknown name 'tfidf'; expected 'bm25', 'lmdirichlet'"):
        load_variant(path)


def test_similarity_parameter_typo(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nretrieval: {similarity: {name: bm25, k: 1.2}}\n")
    with pytest.raises(ConfigError, match=r"unknown key 'retrieval.similarity.k' \(valid keys here: b, k1, name\)"):
        load_variant(path)


def test_weights_must_name_indexed_fields(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nquery: {field_weights: {title: 2}}\n")
    with pytest.raises(ConfigError, match="field_weights names title but index.fields is"):
        load_variant(path)


def test_invalid_yaml_reports_line(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nanalyzer: [unclosed\n")
    with pytest.raises(ConfigError, match=r"line \d+, column \d+"):
        load_variant(path)


def test_extends_merges_and_detects_cycles(tmp_path):
    write(tmp_path / "base.yaml", "tag: base\nanalyzer: {stemmer: krovetz, stoplist: smart}\n")
    child = write(tmp_path / "child.yaml", "extends: base.yaml\ntag: child\nanalyzer: {stoplist: lucene}\n")
    v = load_variant(child).variant
    assert (v.tag, v.analyzer.stemmer, v.analyzer.stoplist) == ("child", "krovetz", "lucene")
    write(tmp_path / "a.yaml", "extends: b.yaml\ntag: a\n")
    write(tmp_path / "b.yaml", "extends: a.yaml\ntag: b\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_variant(tmp_path / "a.yaml")


def test_overrides_set_dotted_keys(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\n")
    v = load_variant(path, {"retrieval.similarity.k1": "1.5", "analyzer.stemmer": "porter"}).variant
    assert v.retrieval.similarity.k1 == 1.5 and v.analyzer.stemmer == "porter"
    assert apply_overrides({"a": {"b": 1}}, {"a.c": "[1, 2]"}) == {"a": {"b": 1, "c": [1, 2]}}


def test_index_key_shared_only_when_index_relevant_parts_agree():
    bm25 = load_variant(CONFIGS / "examples" / "2-krovetz-bm25.yaml").variant
    lmd = load_variant(CONFIGS / "examples" / "3-krovetz-lmdirichlet.yaml").variant
    plain = load_variant(CONFIGS / "examples" / "1-bm25.yaml").variant
    assert bm25.index_key() == lmd.index_key()  # similarity is a search-time choice
    assert plain.index_key() != bm25.index_key()  # another analyzer, another index
    more_threads = load_variant(CONFIGS / "examples" / "2-krovetz-bm25.yaml", {"index.threads": "1"}).variant
    assert more_threads.index_key() == bm25.index_key()  # threads do not change the index


def test_suite_primary_must_be_a_variant(tmp_path):
    path = write(tmp_path / "s.yaml", "variants: [a.yaml]\nprimary: b.yaml\n")
    with pytest.raises(ConfigError, match="primary 'b.yaml' is not among variants"):
        load_suite(path)


def test_unknown_key_inside_a_rerank_stage(tmp_path):
    path = write(tmp_path / "v.yaml", "tag: x\nrerank:\n  - {name: argument_quality, depht: 3}\n")
    with pytest.raises(ConfigError, match=r"unknown key 'rerank.0.depht' \(valid keys here: depth, length_weight"):
        load_variant(path)


def test_query_keys_that_task2_ignores_are_errors(tmp_path):
    base = CONFIGS.parent / "task2-stance" / "base.yaml"
    path = write(tmp_path / "v.yaml", f"extends: {base}\ntag: x\nquery: {{text: title+description}}\n")
    with pytest.raises(ConfigError, match=r"query.text has no effect in task2-stance variants: .*task2.query"):
        load_variant(path)


def test_a_shipped_variant_loads_by_name_where_no_file_has_it(tmp_path, monkeypatch):
    """touche run -c task1/examples/2-krovetz-bm25, as tpt.Variant takes the name; a file of that
    name wins, and only names inside configs/ count."""
    from touche.config import load_variant
    from touche.paths import CONFIGS, shipped_variant
    monkeypatch.chdir(tmp_path)
    loaded = load_variant("task1/examples/2-krovetz-bm25")
    assert loaded.path == (CONFIGS / "task1" / "examples" / "2-krovetz-bm25.yaml").resolve()
    assert shipped_variant("task1/examples/2-krovetz-bm25.yaml") == CONFIGS / "task1/examples/2-krovetz-bm25.yaml"
    for outside in ("../configs/task1/base", str(tmp_path / "elsewhere.yaml"), "", "task1/../../pyproject"):
        assert shipped_variant(outside) is None
    own = tmp_path / "task1" / "examples" / "2-krovetz-bm25"
    own.parent.mkdir(parents=True)
    own.write_text("extends: " + str(CONFIGS / "task1" / "examples" / "2-krovetz-bm25.yaml") + "\ntag: mine\n")
    assert load_variant("task1/examples/2-krovetz-bm25").variant.tag == "mine"


def test_a_variant_typo_names_the_nearest_shipped_variant(tmp_path):
    with pytest.raises(ConfigError, match=r"task1/1-krovetz-smart-lmd200-quality: no variant file of this name, and no "
                                          r"shipped variant; did you mean task1/1-krovetz-smart-lmd2000-quality"):
        load_variant("task1/1-krovetz-smart-lmd200-quality")
    with pytest.raises(ConfigError, match=r"did you mean task1/examples/1-bm25 or"):
        load_variant("configs/task1/1-bm25.yaml")  # the file name of a shipped one, in another folder
@pytest.mark.parametrize("reference", ["task2-stance/1-bm25", "task2-stance/1-bm25.yaml",
                                       "task1/examples/2-krovetz-bm25"])
def test_extends_names_a_shipped_variant_from_any_folder(tmp_path, monkeypatch, reference):
    """extends: task2-stance/1-bm25 once read '…/task2-stance/1-bm25 is not a file' outside the
    checkout, though touche run -c and tpt.Variant take the name: one rule (variant_file) for all."""
    from touche.config import load_variant, variant_file
    from touche.paths import shipped_variant
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)  # neither the checkout nor the variant's own folder
    mine = write(elsewhere / "mine.yaml", f"extends: {reference}\ntag: mine\nretrieval: {{top_k: 7}}\n")
    loaded = load_variant(mine)
    shipped = load_variant(reference).variant
    assert (loaded.variant.tag, loaded.variant.retrieval.top_k) == ("mine", 7)
    assert loaded.variant.analyzer == shipped.analyzer and loaded.variant.task == shipped.task
    assert variant_file(reference, elsewhere) == shipped_variant(reference)
    (elsewhere / reference).parent.mkdir(parents=True)
    beside = write(elsewhere / reference, "tag: beside\n")  # a file of that path beside the YAML wins
    assert variant_file(reference, elsewhere) == beside
    assert load_variant(write(elsewhere / "two.yaml", f"extends: {reference}\n")).variant.tag == "beside"


def test_extends_of_neither_a_file_nor_a_shipped_name_says_both(tmp_path):
    mine = write(tmp_path / "mine.yaml", "extends: task2-stance/9-nothing\ntag: mine\n")
    with pytest.raises(ConfigError, match=r"is not a file, and 'task2-stance/9-nothing' is no shipped variant's name "
                                          r"\(shipped: .*task2-stance/1-bm25") as raised:
        load_variant(mine)
    assert raised.value.path == str(mine.resolve()) or str(mine.resolve()) in str(raised.value)


# --------------------------------------------------------------------------- found in review
def test_a_stance_variant_dumped_whole_loads_again():
    """Shard workers receive the whole variant (every default written out): a learned-stance
    variant was refused there for the pattern settings it does not read."""
    from touche.config import VariantSpec, load_variant
    for name in ("2-comparative-query", "3-rerank", "5-compquery-rerank"):
        variant = load_variant(REPO / "configs" / "task2-stance" / f"{name}.yaml").variant
        assert VariantSpec.model_validate_json(variant.model_dump_json()) == variant


def test_true_is_not_a_number(tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nretrieval: {{top_k: true}}\n")
    code, text = cli("analyze", "-c", str(variant), "x")
    assert code == 2 and "top_k: expected a number, not true" in text and "Traceback" not in text


def test_fusion_cycles_are_named_by_their_files_and_long_extends_chains_load(tmp_path):
    from touche.config import load_variant
    from touche.errors import ConfigError
    from touche.retrieval.fingerprint import check_fusion_cycles
    base = str(REPO / "configs" / "task1" / "base.yaml")
    (tmp_path / "self.yaml").write_text(yaml_dump({"extends": base, "tag": "s", "rerank": [
        {"name": "rrf", "variants": ["self.yaml"]}]}))
    (tmp_path / "a.yaml").write_text(yaml_dump({"extends": base, "tag": "a", "rerank": [
        {"name": "rrf", "variants": ["b.yaml"]}]}))
    (tmp_path / "b.yaml").write_text(yaml_dump({"extends": base, "tag": "b", "rerank": [
        {"name": "rrf", "variants": ["a.yaml"]}]}))
    with pytest.raises(ConfigError, match="cycle: self.yaml → self.yaml"):
        check_fusion_cycles(load_variant(tmp_path / "self.yaml"))
    with pytest.raises(ConfigError, match="cycle: a.yaml → b.yaml → a.yaml"):
        check_fusion_cycles(load_variant(tmp_path / "a.yaml"))
    code, text = cli("run", "-c", str(tmp_path / "a.yaml"), "-i", str(DEMO / "args.me"), "-t",
                     str(DEMO / "topics.xml"), "-o", str(tmp_path / "run.txt"))
    assert code == 2 and "a.yaml → b.yaml → a.yaml" in text and "Recursion" not in text
    previous = base
    for level in range(1500):
        path = tmp_path / f"chain-{level}.yaml"
        path.write_text(f"extends: {previous}\ntag: level-{level}\n")
        previous = str(path)
    assert load_variant(previous).variant.tag == "level-1499"


# --------------------------------------------------------------------------- --set, and errors naming their cause
def run_args(corpus: Path, folder: Path, variant=VARIANT) -> list[str]:
    """``touche run`` of ``variant`` on ``corpus`` and its topics, the run written into ``folder``."""
    return ["run", "-c", str(variant), "-i", str(corpus), "-t", str(corpus / "topics.xml"), "-o", str(folder / "r.txt")]


def test_a_set_error_blames_the_set_at_fault_not_the_first():
    code, text = cli("analyze", "-c", VARIANT, "--set", "retrieval.similarity.k1=1.2", "--set",
                     "retrieval.similarity.name=foo", "x")
    assert code == 2 and text.startswith("error: --set retrieval.similarity.name=foo: retrieval.similarity: unknown "
                                         "name 'foo'")
    with pytest.raises(ConfigError) as error:
        load_variant(VARIANT, {"query.field_weights.contents": "2", "retrieval.similarity.name": "foo"})
    assert error.value.where == "--set retrieval.similarity.name=foo"


def test_a_key_of_another_kind_says_which_name_makes_it_one():
    with pytest.raises(ConfigError, match=r"unknown key 'retrieval\.similarity\.mu' \(valid keys here: b, k1, name\); "
                                          r"mu is a key of lmdirichlet, not of bm25: name: lmdirichlet makes mu one "
                                          r"\(--set retrieval\.similarity\.name=lmdirichlet\)"):
        load_variant(VARIANT, {"retrieval.similarity.mu": "500"})
    with pytest.raises(ConfigError) as plain:  # a key no kind has: no such hint
        load_variant(VARIANT, {"retrieval.similarity.mux": "500"})
    assert "makes" not in plain.value.message


def test_a_huge_integer_in_set_is_a_config_error():
    code, text = cli("analyze", "-c", VARIANT, "--set", "retrieval.top_k=" + "9" * 5000, "x")
    assert code == 2 and "an integer of 5,000 digits" in text and len(text) < 500


def test_invalid_yaml_in_set_is_a_located_error():
    code, text = cli("analyze", "-c", str(REPO / "configs" / "task1" / "base.yaml"), "--set",
                     "retrieval.similarity={name: bm25, k1: [1", "x")
    assert code == 2 and "--set retrieval.similarity=" in text and "not valid YAML" in text
    assert "Traceback" not in text


def test_nan_in_a_variant_is_called_not_a_number(tmp_path, fixture_corpus):
    code, text = cli(*run_args(fixture_corpus, tmp_path), "--set", "retrieval.similarity.k1=.nan")
    assert code == 2 and "expected a finite number (not .nan or .inf)" in text and "≤" not in text


def test_config_errors_stay_config_errors(tmp_path, fixture_corpus):
    """The same --set error from Python and from the command line: the --set, the key, our words, the variant."""
    with pytest.raises(ConfigError, match=r"^--set retrieval.similarity.k1=abc: retrieval.similarity.k1: expected a "
                                          r"number \(got 'abc'\) \(in variant .*1-bm25.yaml\)$"):
        load_variant(VARIANT, {"retrieval.similarity.k1": "abc"})
    code, text = cli(*run_args(fixture_corpus, tmp_path), "--set", "retrieval.similarity.k1=abc")
    assert code == 2 and text.startswith("error: --set retrieval.similarity.k1=abc: retrieval.similarity.k1: "
                                         "expected a number (got 'abc') (in variant")


def test_config_errors_name_the_set_the_variant_and_say_it_in_our_words(tmp_path, fixture_corpus):
    code, text = cli(*run_args(fixture_corpus, tmp_path), "--set", "analyzer.shingles=2")
    assert code == 2 and "expected a mapping of the keys filler, keep_unigrams, max_size, min_size (got 2)" in text
    variant = tmp_path / "v.yaml"
    variant.write_text(f"extends: {VARIANT}\ntag: x\nanalyzer: {{stoplist: nosuch.txt}}\n")
    code, text = cli(*run_args(fixture_corpus, tmp_path, variant))
    assert code == 2 and text.startswith(f"error: {variant}: analyzer.stoplist: 'nosuch.txt' is neither a known list")
