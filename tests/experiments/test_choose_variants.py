"""The variant files `touche choose` writes for its picks (retrieval/experiments/choose/picks.py):
each file named by its settings or its point number, its tag cut to the limit and stripped of
the base's words for an overridden setting, relative paths rebased to the folder it is written
to, text written as it reads, and a complete variant where `extends` merging cannot express the
point."""
from __future__ import annotations

import yaml

from tests.experiments.test_choose import BASE
from touche.config import load_variant
from touche.guard import OutputFolder
from touche.retrieval.experiments.choose.picks import (
    TAG_LIMIT,
    Pick,
    _merge_into,
    choice_path,
    derive_tag,
    own_tag,
    rebase_paths,
    write_choice,
)
from touche.retrieval.experiments.sweep import Record


# --------------------------------------------------------------------------- names, tags and variant files
def test_a_picks_file_is_named_by_its_settings_cut_to_60_characters_or_by_its_point_number(tmp_path):
    def named(overrides, point=7):
        return choice_path(Pick(Record("k", point, overrides, {}, "r", 0.0), "why"), 2, tmp_path).name
    assert named({"retrieval.similarity.k1": 1.2}) == "2-k1-1.2.yaml"
    assert named({}) == "2-point7.yaml"
    assert named({"analyzer.stemmer": "s" * 70}) == "2-" + "s" * 60 + ".yaml"
    assert named({"analyzer.stemmer": "s" * 59 + "-x"}) == "2-" + "s" * 59 + ".yaml"  # no dangling dash


def test_the_tag_drops_the_base_words_naming_an_overridden_setting_of_two_characters_or_more():
    base = {"retrieval": {"similarity": {"mu": 40, "k": 1}}}
    assert own_tag("touche-lmd40", base, {"retrieval.similarity.mu": 2000}) == "touche"
    # a one-character value (k 1) would strip any word ending in 1: it names no word
    assert own_tag("touche-run1", base, {"retrieval.similarity.k": 2}) == "touche-run1"


def test_a_tag_of_exactly_the_limit_is_kept_whole():
    record = Record("k", 9, {"retrieval.similarity.k1": 1.2}, {}, "r", 0.0)
    base = "t" * (TAG_LIMIT - len("-k1-1.2"))
    assert derive_tag(base, record, set()) == base + "-k1-1.2"
    assert derive_tag(base + "x", record, set()).endswith("-p9")  # one beyond: cut and numbered


def test_paths_of_a_variant_are_rebased_to_the_folder_the_pick_is_written_to(tmp_path):
    source, target = tmp_path / "configs", tmp_path / "chosen"
    source.mkdir(), target.mkdir()
    merged = {"analyzer": {"stoplist": "stop.txt"}, "corpus": {"path": "/data/args.me"},
              "rerank": [{"name": "fusion", "variants": ["a.yaml", "/abs/b.yaml"]}, {"name": "dense"}]}
    assert rebase_paths(merged, source, target) == {
        "analyzer": {"stoplist": "../configs/stop.txt"}, "corpus": {"path": "/data/args.me"},
        "rerank": [{"name": "fusion", "variants": ["../configs/a.yaml", "/abs/b.yaml"]}, {"name": "dense"}]}
    assert rebase_paths({"corpus": {"path": "data"}}, source, target) == {"corpus": {"path": "../configs/data"}}
    # nothing to move: a named stoplist, stages without variants
    assert rebase_paths({"analyzer": {"stoplist": "smart"}, "rerank": [{"name": "dense"}]}, source, target) == {}


def test_merging_replaces_leaves_and_keeps_the_rest_of_a_mapping():
    target = {"a": {"b": 1, "c": 2}, "d": {"e": 1}, "f": [1]}
    assert _merge_into(target, {"a": {"b": 3}, "d": 5, "g": {"h": 1}}) == \
        {"a": {"b": 3, "c": 2}, "d": 5, "f": [1], "g": {"h": 1}}
    assert target == {"a": {"b": 1, "c": 2}, "d": {"e": 1}, "f": [1]}  # not changed in place


def _base_with_stoplist(tmp_path, words: str):
    """A base variant in configs/ whose stoplist is a relative file with a non-ASCII name."""
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "stopwörter.txt").write_text(words, encoding="utf-8")
    base = configs / "base.yaml"
    base.write_text(f"extends: {BASE}\ntag: t\nanalyzer:\n  stoplist: stopwörter.txt\n", encoding="utf-8")
    return base


def test_a_pick_of_a_base_with_a_relative_stoplist_file_still_reads_that_file_and_keeps_its_name(tmp_path):
    from touche.config import load_variant
    base = _base_with_stoplist(tmp_path, "und\noder\n")
    folder = OutputFolder(tmp_path / "chosen")
    path = write_choice(Pick(Record("k", 3, {"retrieval.similarity.k1": 0.9}, {}, "r", 0.0), "best"), 1, base,
                        folder, "t-p3", "# header\n")
    text = path.read_text(encoding="utf-8")
    assert "stopwörter.txt" in text and "extends:" in text  # written as it reads, not escaped
    assert load_variant(path).merged["analyzer"]["stoplist"] == "../configs/stopwörter.txt"
    assert list(yaml.safe_load(text))[:3] == ["extends", "tag", "description"]


def test_a_complete_variant_lists_tag_and_description_first_and_writes_text_as_it_reads(tmp_path):
    from touche.config import load_variant
    base = _base_with_stoplist(tmp_path, "und\n")
    fewer = {"query.field_weights": {"contents": 1.0}}  # the base weighs contents and conclusion: not expressible
    path = write_choice(Pick(Record("k", 3, fewer, {}, "r", 0.0), "best"), 1, base, OutputFolder(tmp_path / "chosen"),
                        "t-p3", "# header\n")
    text = path.read_text(encoding="utf-8")
    assert "# complete variant" in text and "stopwörter.txt" in text
    assert list(yaml.safe_load(text))[:2] == ["tag", "description"]
    assert load_variant(path).variant.query.field_weights == {"contents": 1.0}


def test_a_points_name_and_tag_say_its_settings_and_stay_within_the_limit():
    from touche.retrieval.experiments.choose.picks import TAG_LIMIT, derive_tag, point_slug
    from touche.retrieval.experiments.sweep import Record
    assert point_slug({"analyzer.stemmer": "krovetz", "retrieval.similarity.k1": 1.2}) == "krovetz_k1-1.2"
    assert point_slug({"retrieval.similarity": {"name": "lmdirichlet", "mu": 300}}) == "lmdirichlet-mu-300"
    short = Record("k", 7, {"retrieval.similarity.k1": 1.2}, {}, "r", 0.0)
    assert derive_tag("touche-bm25", short, set()) == "touche-bm25-k1-1.2"
    assert derive_tag("touche-bm25", short, {"touche-bm25-k1-1.2"}) == "touche-bm25-k1-1.2-p7"
    long_ = Record("k", 12, {f"query.field_weights.field{i}": i / 10 for i in range(12)}, {}, "r", 0.0)
    tag = derive_tag("touche-krovetz-bm25", long_, set())
    assert len(tag) <= TAG_LIMIT and tag.endswith("-p12") and tag.startswith("touche-krovetz-bm25-field0-0_field1-0.1")


def test_a_point_extends_cannot_express_is_written_as_a_complete_variant(tmp_path):
    from touche.config import load_variant
    from touche.retrieval.experiments.choose.picks import Pick, write_choice
    from touche.retrieval.experiments.sweep import Record
    base = tmp_path / "configs" / "base.yaml"
    base.parent.mkdir()
    base.write_text("extends: " + str(BASE) + "\ntag: t\n")
    fewer = {"query.field_weights": {"contents": 1.0}}  # the base weighs contents and conclusion
    record = Record("k", 3, fewer, {}, "r", 0.0)
    out = OutputFolder(tmp_path / "chosen")
    path = write_choice(Pick(record, "best"), 1, base, out, "t-p3", "# header\n")
    text = path.read_text()
    assert text.startswith("# header\n# complete variant: `extends` merging cannot express") and "extends:" not in text
    assert load_variant(path).variant.query.field_weights == {"contents": 1.0}
    plain = write_choice(Pick(Record("j", 4, {"retrieval.similarity.k1": 1.0}, {}, "r", 0.0), "next"), 2, base, out,
                         "t-p4", "# header\n")
    assert "extends:" in plain.read_text() and load_variant(plain).variant.retrieval.similarity.k1 == 1.0


def test_tags_and_file_names_say_what_the_point_is() -> None:
    from touche.retrieval.experiments.choose.picks import derive_tag, point_slug
    overrides = {"analyzer.stemmer": "krovetz", "analyzer.stoplist": "none", "retrieval.similarity.k1": 1.2,
                 "retrieval.similarity": {"name": "lmdirichlet", "mu": 300}, "query.text": "title+description"}
    assert point_slug(overrides) == "krovetz_stoplist-none_k1-1.2_lmdirichlet-mu-300_title+description"
    record = Record(key="k", point=12, overrides=overrides, measures={}, run="r", seconds=0)
    short = derive_tag("base", record, set())
    assert short == "base-" + point_slug(overrides)
    assert derive_tag("base", record, {short}) == short[:80 - 4] + "-p12"  # taken: the point number decides
    long_tag = derive_tag("x" * 60, record, set())
    assert len(long_tag) <= 80 and long_tag.endswith("-p12")
    load_variant(BASE, {"tag": long_tag})  # a valid run tag
