"""Each analyzer chain, as YAML declares it, yields exactly these Lucene tokens; a stoplist file is
found beside its variant, and one Lucene cannot read (not UTF-8, a separator in its path) is a
located error."""
from __future__ import annotations

import pytest

from tests.shared import REPO, VARIANT, cli, yaml_dump
from touche.config import AnalyzerSpec, ShingleSpec
from touche.errors import ConfigError

SENTENCE = "The teachers' unions were banning smartphones in Schools, aren't they?"

CHAINS = {
    "plain": (AnalyzerSpec(),
              ["the", "teachers", "unions", "were", "banning", "smartphones", "in", "schools", "aren't", "they"]),
    "no-lowercase-whitespace": (AnalyzerSpec(tokenizer="whitespace", lowercase=False, possessive=False),
                                ["The", "teachers'", "unions", "were", "banning", "smartphones", "in", "Schools,",
                                 "aren't", "they?"]),
    "lucene-stop-krovetz": (AnalyzerSpec(stoplist="lucene", stemmer="krovetz"),
                            ["teacher", "union", "were", "ban", "smartphone", "school", "aren't"]),
    "smart-krovetz": (AnalyzerSpec(stoplist="smart", stemmer="krovetz"),
                      ["teacher", "union", "ban", "smartphone", "school"]),
    # Terrier's list has no contractions: "aren't" survives.
    "terrier-porter": (AnalyzerSpec(stoplist="terrier", stemmer="porter"),
                       ["teacher", "union", "ban", "smartphon", "school", "aren't"]),
    "snowball-porter": (AnalyzerSpec(stoplist="snowball", stemmer="porter"),
                        ["teacher", "union", "ban", "smartphon", "school"]),
    "letter": (AnalyzerSpec(tokenizer="letter", stoplist="lucene"),
               ["teachers", "unions", "were", "banning", "smartphones", "schools", "aren", "t"]),
    "krovetz-bigrams": (AnalyzerSpec(stoplist="lucene", stemmer="krovetz",
                                     shingles=ShingleSpec(min_size=2, max_size=2, keep_unigrams=False)),
                        # "_" fills the positions of removed stopwords (Lucene's ShingleFilter default)
                        ["_ teacher", "teacher union", "union were", "were ban", "ban smartphone", "smartphone _",
                         "_ school", "school aren't", "aren't _"]),
}


@pytest.mark.parametrize("name", CHAINS)
def test_chain_tokens(jvm_started, name):
    from touche.stemming.analyzers import tokens
    spec, expected = CHAINS[name]
    assert tokens(spec, SENTENCE) == expected


def test_shingles_keep_unigrams_interleaves(jvm_started):
    from touche.stemming.analyzers import tokens
    spec = AnalyzerSpec(stemmer="krovetz", shingles=ShingleSpec(min_size=2, max_size=3))
    assert tokens(spec, "school uniforms help") == [
        "school", "school uniform", "school uniform help", "uniform", "uniform help", "help"]


def test_custom_stoplist_file(jvm_started, tmp_path):
    from touche.stemming.analyzers import build, tokens
    stop = tmp_path / "mine.txt"
    stop.write_text("# our own list\nteachers\nschools\n")
    spec = AnalyzerSpec(stoplist=str(stop))
    assert "teachers" not in tokens(spec, SENTENCE)
    assert "schools" not in tokens(spec, SENTENCE)
    with pytest.raises(ConfigError, match="neither a known list"):
        build(AnalyzerSpec(stoplist="no-such-list.txt"))


def test_stoplist_sizes():
    from touche.stemming.analyzers import STOPLIST_DIR
    def words(name):
        return [w for w in (STOPLIST_DIR / name).read_text().split("\n") if w.strip() and not w.startswith("#")]
    assert len(words("smart.txt")) == 571
    assert len(words("terrier.txt")) == 733




# --------------------------------------------------------------------------- shingles
def test_the_shingle_filler_is_lucenes_underscore_another_word_or_none(jvm_started):
    from touche.config import load_variant
    from touche.stemming.analyzers import tokens
    variant = load_variant(VARIANT, {"analyzer.stoplist": "smart", "analyzer.stemmer": "none"}).variant

    def shingled(**shingles):
        spec = variant.analyzer.model_copy(update={"shingles": _shingle_spec(**shingles)})
        return tokens(spec, "Should teachers get tenure?")
    assert shingled() == ["_ teachers", "teachers", "teachers _", "_ tenure", "tenure"]
    assert shingled(filler="*") == ["* teachers", "teachers", "teachers *", "* tenure", "tenure"]
    assert shingled(filler="") == ["teachers", "teachers tenure", "tenure"]
    with pytest.raises(ConfigError, match="filler 'a b'"):
        load_variant(VARIANT, {"analyzer.shingles": {"filler": "a b"}})


def _shingle_spec(**values):
    from touche.config import ShingleSpec
    return ShingleSpec(**values)


def test_the_default_filler_keeps_every_index_key():
    from touche.config import load_variant
    shingled = REPO / "configs" / "task1" / "examples" / "4-krovetz-shingles.yaml"
    plain, explicit = load_variant(shingled), load_variant(shingled, {"analyzer.shingles.filler": "_"})
    assert plain.variant.index_key() == explicit.variant.index_key()
    assert load_variant(shingled, {"analyzer.shingles.filler": ""}).variant.index_key() != plain.variant.index_key()


def test_analyze_resolves_a_relative_stoplist_as_runs_do(tmp_path, monkeypatch):
    """`touche analyze` read a relative stoplist from the working directory, `run` from the
    variant's folder: one rule now, the variant's folder."""
    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "stop.txt").write_text("uniforms\n")
    variant = folder / "v.yaml"
    variant.write_text(
        f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nanalyzer: {{stoplist: stop.txt}}\n"
    )
    monkeypatch.chdir(tmp_path)  # no stop.txt here
    code, text = cli("analyze", "-c", str(variant), "school uniforms")
    assert code == 0 and text.strip().splitlines()[-1] == "[school]"


def test_a_stoplist_path_with_a_separator_lucene_cannot_read_is_a_located_error(tmp_path):
    folder = tmp_path / "a|b"
    folder.mkdir()
    (folder / "stop.txt").write_text("the\n")
    variant = folder / "v.yaml"
    variant.write_text(
        f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nanalyzer: {{stoplist: stop.txt}}\n"
    )
    code, text = cli("analyze", "-c", str(variant), "the school")
    assert code == 2 and "holds '|', '=' or ','" in text and "Traceback" not in text


def test_a_stoplist_that_is_not_utf8_is_a_located_error(tmp_path):
    variant = tmp_path / "v.yaml"
    (tmp_path / "stop.txt").write_bytes("the\nf\xfcr\n".encode("latin-1"))
    variant.write_text(yaml_dump({"extends": str(REPO / "configs" / "task1" / "base.yaml"), "tag": "t",
                                  "analyzer": {"stoplist": "stop.txt"}}))
    code, text = cli("analyze", "-c", str(variant), "für the school")
    assert code == 2 and str(tmp_path / "stop.txt") in text and "offset 5" in text and "line 2" in text, text
