"""Task 1 2022: sentence corpus (2022 CSV and our splitting of the 2020 JSON; the splitter itself is
tests/stemming/test_sentence_splitting.py), pair building and its rules, the five variants end to
end (fixture in the TIRA layout, and the converted demo)."""
from __future__ import annotations

import csv
import itertools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.shared import REPO
from touche.config import load_suite, load_variant
from touche.errors import ConfigError, InputError
from touche.indexing.records import Argument, Premise
from touche.indexing.sentences import (
    CONCLUSION,
    Sentence,
    SentencedArgument,
    SentenceSource,
    parse_sentence_id,
    read_sentence_csv,
    split_argument,
    text_key,
    write_sentence_csv,
)
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runfile import RunFormat, run_file_problems
from touche.retrieval.tasks.task1.features import argument_stance, argumentativeness, polarity, topic_polarity, words
from touche.retrieval.tasks.task1.pairs import PairBuilder
from touche.specs.pairs import ArgumentativenessSpec, PairsSpec, StanceSpec

SUITE = REPO / "configs" / "task1-pairs" / "suite.yaml"
DEMO_CSV = REPO / "demo" / "pairs" / "args-sentences-demo.csv"


# ---------------------------------------------------------------- a sentence corpus of our own
FIXTURE_TOPICS = """<topics>
<topic><number>1</number><title>Should cities ban cars from their centres?</title></topic>
<topic><number>2</number><title>Should voting be compulsory?</title></topic>
</topics>
"""
# Per topic: debates (conclusion), and clause pools that combine into distinct argumentative sentences.
_TOPIC_TEXT = {
    1: {"conclusions": ["Cities should ban cars from their centres", "Car bans would hurt city centre shops",
                        "Car bans help everyone"],  # the last is short: left out of the CSV's sentence list
        "subjects": ["A car ban in the city centre", "Closing the centre to cars",
                     "Removing private cars from downtown",
                     "A car-free city centre", "Banning cars from central streets", "Keeping cars out of the centre"],
        "effects": ["would cut air pollution for residents", "should make streets safer for children",
                    "would reduce traffic noise at night", "must be planned with better buses",
                    "would hurt shops that depend on drivers", "could push traffic into the suburbs",
                    "would free space for trees and cycle lanes"],
        "reasons": ["because fewer engines burn fuel there", "since studies of several cities show it",
                    "because delivery vans need other routes", "as the evidence from pilot schemes suggests",
                    "because people then walk and cycle more"]},
    2: {"conclusions": ["Voting should be compulsory for all adults", "Compulsory voting violates individual freedom",
                        "Mandatory voting works well"],
        "subjects": ["Compulsory voting", "A legal duty to vote", "Making voting mandatory",
                     "Fining people who do not vote",
                     "An obligation to cast a ballot", "Required turnout at elections"],
        "effects": ["would raise turnout among young people", "should make parliaments more representative",
                    "would force uninformed people to vote", "must allow a blank ballot option",
                    "could reduce the influence of extreme campaigns", "would cost money to enforce",
                    "would make politicians address every group"],
        "reasons": ["because research from Australia shows it", "since every citizen then has a say",
                    "because freedom includes the right to abstain", "as evidence from Belgium suggests",
                    "because parties can no longer target only loyal voters"]},
}
ARGUMENTS_PER_DEBATE = 6
PREMISES_PER_ARGUMENT = 5


def fixture_arguments() -> list[SentencedArgument]:
    records = []
    for topic, text in _TOPIC_TEXT.items():
        combos = itertools.product(text["subjects"], text["effects"], text["reasons"])
        for debate, conclusion in enumerate(text["conclusions"]):
            for n in range(ARGUMENTS_PER_DEBATE):
                arg_id = f"S{topic:02x}{debate:06x}-A{topic:02x}{debate:02x}{n:04x}"
                stance = "CON" if n % 3 == 2 else "PRO"
                premises = [f"{s} {e}, {r}." for s, e, r in itertools.islice(combos, PREMISES_PER_ARGUMENT)]
                if topic == 1 and debate == 0 and n == 1:  # the same premise sentence in two arguments
                    premises[0] = records[-1].sentences[1].text
                argument = Argument(arg_id, conclusion, (Premise(" ".join(premises), stance),),
                                    source_id=arg_id[1:9], discussion_title=conclusion)
                records.append(split_argument(argument))
    return records


@pytest.fixture(scope="module")
def fixture_input(tmp_path_factory) -> Path:
    """A TIRA-style input directory: the 2022 sentence CSV and topics.xml."""
    root = tmp_path_factory.mktemp("pairs-input")
    write_sentence_csv(fixture_arguments(), root / "args-sentences.csv", omit_conclusions_below=5)
    (root / "topics.xml").write_text(FIXTURE_TOPICS)
    return root


def corpus_sentences(path: Path) -> dict[str, Sentence]:
    return {s.id: s for r in SentenceSource(path).records() for s in r.sentences}


# ---------------------------------------------------------------- the 2022 CSV and the 2020 JSON
def _write_rows(path: Path, rows: list[list[str]], header=("id", "conclusion", "premises", "context", "sentences")):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _row(arg_id: str, conclusion: str, sentences: list[tuple[str, str]], stance="PRO"):
    premises = [{"text": " ".join(t for s, t in sentences if "PREMISE" in s), "stance": stance, "annotations": []}]
    return [arg_id, conclusion, repr(premises), repr({"sourceId": arg_id[1:9], "discussionTitle": conclusion}),
            repr([{"sent_id": s, "sent_text": t} for s, t in sentences])]


def test_csv_reader_conclusion_rule_and_duplicates(tmp_path):
    a, b = "S0000000a-A0000000a", "S0000000a-A0000000b"
    path = _write_rows(tmp_path / "c.csv", [
        _row(a, "Zoos should close", [(f"{a}__PREMISE__1", "Animals suffer in small cages."),
                                      (f"{a}__PREMISE__2", "Breeding programmes rarely release animals.")]),
        _row(b, "Zoos should close", [(f"{b}__CONC__1", "Zoos should close"),
                                      (f"{b}__PREMISE__1", "Animals suffer in small cages.")], stance="CON"),
    ])
    first, second = read_sentence_csv([path])
    # __CONC__1 rule: a short conclusion missing from the list is still a (resolvable) sentence
    assert first.sentences[0] == Sentence(f"{a}__CONC__1", "Zoos should close", a, CONCLUSION, 1, listed=False)
    assert [s.id for s in first.sentences] == [f"{a}__CONC__1", f"{a}__PREMISE__1", f"{a}__PREMISE__2"]
    assert second.sentences[0].listed and second.stance == "CON"
    # duplicates keep their own ids; they share the text key the pipeline deduplicates by
    assert first.sentences[1].id != second.sentences[1].id
    assert text_key(first.sentences[1].text) == text_key(second.sentences[1].text)
    assert SentencedArgument.from_json(first.to_json()) == first
    quoted = replace(first, sentences=(Sentence(f"{a}__PREMISE__1", "Zoos — «non»", a, "premise", 1),))
    assert '"text":"Zoos — «non»"}]' in quoted.to_json()  # stored as UTF-8, as shown, not as \u escapes
    assert Sentence(f"{a}__PREMISE__1", "Zoos — «non»", a, "premise", 1).to_json() == \
        f'{{"id":"{a}__PREMISE__1","argument":"{a}","role":"premise","position":1,"text":"Zoos — «non»"}}'
    assert parse_sentence_id(f"{a}__PREMISE__12") == (a, "premise", 12)


@pytest.mark.parametrize("cell,message", [
    ("premises", "'premises' is not a Python literal list"),
    ("sentences", "belongs to argument"),
])
def test_csv_bad_records_name_file_line_and_id(tmp_path, cell, message):
    a = "S0000000a-A0000000a"
    row = _row(a, "Zoos should close", [(f"{a}__PREMISE__1", "Animals suffer in cages.")])
    good = _row("S0000000a-A000000ff", "Zoos", [("S0000000a-A000000ff__PREMISE__1", "Fine text here.")])
    if cell == "premises":
        row[2] = "[{'text': 'unclosed"
    else:
        row[4] = repr([{"sent_id": "S0000000b-A0000000c__PREMISE__1", "sent_text": "x"}])
    path = _write_rows(tmp_path / "bad.csv", [good, row])
    with pytest.raises(InputError) as error:
        list(read_sentence_csv([path]))
    assert message in str(error.value) and "bad.csv" in str(error.value)
    assert "line 3, argument #2 (1-based)" in str(error.value) and a in str(error.value)
    source = SentenceSource(path, skip_bad_records=True)
    assert [r.id for r in source.records()] == ["S0000000a-A000000ff"] and source.report.skipped == 1



@pytest.mark.parametrize("column, cell, message", [
    (2, "[{'text': 'Cages are small.'}, 'a premise as text']", "premise #2 must be a dict with a string 'text'"),
    (2, "[{'stance': 'PRO'}]", "premise #1 must be a dict with a string 'text'"),
    (4, "[3]", "sentence #1 must be a dict with string 'sent_id' and 'sent_text'"),
    (4, "[{'sent_id': 'S0000000a-A0000000a__PREMISE__1'}]", "sentence #1 must be a dict with string 'sent_id' and"),
    (4, "[{'sent_text': 'Cages are small.'}]", "sentence #1 must be a dict with string 'sent_id' and 'sent_text'"),
])
def test_a_premise_or_sentence_of_the_wrong_shape_is_named_by_its_number(tmp_path, column, cell, message):
    a = "S0000000a-A0000000a"
    row = _row(a, "Zoos should close", [(f"{a}__PREMISE__1", "Cages are small.")])
    row[column] = cell
    with pytest.raises(InputError, match=re.escape(message)):
        list(read_sentence_csv([_write_rows(tmp_path / "bad.csv", [row])]))


def test_a_sentence_id_twice_in_one_argument_is_a_bad_record(tmp_path):
    a, b = "S0000000a-A0000000a", "S0000000a-A0000000b"
    path = _write_rows(tmp_path / "d.csv", [
        _row(b, "Zoos", [(f"{b}__PREMISE__1", "Fine text here.")]),
        _row(a, "Zoos should close", [(f"{a}__PREMISE__1", "Animals suffer."), (f"{a}__PREMISE__2", "They do."),
                                      (f"{a}__PREMISE__1", "Said again.")])])
    with pytest.raises(InputError) as error:
        list(read_sentence_csv([path]))
    assert str(error.value).startswith(f"{path}, line 3, argument #2 (1-based), id '{a}': sentence #3: duplicate "
                                       f"sentence id '{a}__PREMISE__1'; set corpus.skip_bad_records: true")


def test_the_csv_read_report_counts_files_arguments_and_skipped_rows(tmp_path):
    a, b, c = "S0000000a-A0000000a", "S0000000a-A0000000b", "S0000000a-A0000000c"
    _write_rows(tmp_path / "1.csv", [_row(a, "Zoos", [(f"{a}__PREMISE__1", "One.")]),
                                     _row(a, "Zoos", [(f"{a}__PREMISE__1", "Again.")])])
    _write_rows(tmp_path / "2.csv", [_row(b, "Zoos", [(f"{b}__PREMISE__1", "Two.")]),
                                     _row(c, "Zoos", [(f"{c}__PREMISE__1", "Three.")])])
    source = SentenceSource(tmp_path, skip_bad_records=True)
    assert [r.id for r in source.records()] == [a, b, c]
    assert (source.report.files, source.report.read, source.report.skipped) == (2, 3, 1)
    assert source.report.summary() == (f"3 arguments read from 2 file(s), 1 bad record(s) skipped\n  "
                                       f"{tmp_path / '1.csv'}, argument #2 (1-based), id '{a}': duplicate argument id "
                                       "(expected every id once)")


def test_the_csv_writer_says_how_many_arguments_it_wrote(tmp_path):
    records = fixture_arguments()[:3]
    assert write_sentence_csv(records, tmp_path / "three.csv") == 3
    assert write_sentence_csv([], tmp_path / "none.csv") == 0
    assert [r.id for r in read_sentence_csv([tmp_path / "three.csv"])] == [r.id for r in records]


def test_sentence_texts_by_id_and_pairs_one_sentence_a_line(tmp_path):
    a, b = "S0000000a-A0000000a", "S0000000a-A0000000b"
    path = _write_rows(tmp_path / "t.csv", [
        _row(a, "Zoos should close", [(f"{a}__CONC__1", "Zoos should close"),
                                      (f"{a}__PREMISE__1", "Cages are small.")]),
        _row(b, "Zoos help", [(f"{b}__PREMISE__1", "Breeding saves species.")])])
    pair, half_missing = f"{a}__PREMISE__1,{b}__PREMISE__1", f"{a}__CONC__1,{b}__PREMISE__9"
    texts = SentenceSource(path).texts({f"{a}__CONC__1", pair, half_missing, f"{b}__PREMISE__7"})
    assert texts == {f"{a}__CONC__1": "Zoos should close", pair: "Cages are small.\nBreeding saves species."}
    assert SentenceSource(path).holds({pair, half_missing, f"{b}__PREMISE__1"}) == {pair, f"{b}__PREMISE__1"}



def test_without_a_premises_cell_the_premise_is_the_premise_sentences(tmp_path):
    a = "S0000000a-A0000000a"
    row = _row(a, "Zoos should close", [(f"{a}__CONC__1", "Zoos should close"), (f"{a}__PREMISE__1", "Cages."),
                                        (f"{a}__PREMISE__2", "Small ones.")])
    row[2] = ""
    (record,) = read_sentence_csv([_write_rows(tmp_path / "p.csv", [row])])
    assert record.argument.premises == (Premise("Cages. Small ones.", ""),)


def test_a_sentence_corpus_fingerprint_adds_the_splitter_only_where_we_split(tmp_path):
    from tests.shared import write_argsme
    from touche.indexing.corpora import files_fingerprint
    from touche.stemming.sentences import model_fingerprint
    json_path = write_argsme(tmp_path / "args" / "args.json")
    csv_path = _write_rows(tmp_path / "c.csv", [_row("S0000000a-A0000000a", "Zoos", [])])
    assert SentenceSource(csv_path).fingerprint() == files_fingerprint([csv_path])
    assert SentenceSource(json_path).fingerprint() == files_fingerprint([json_path]) + model_fingerprint()[:8]


def test_csv_missing_column_is_reported(tmp_path):
    path = _write_rows(tmp_path / "x.csv", [["a", "b"]], header=("id", "text"))
    with pytest.raises(InputError, match="missing column.*conclusion.*sentences"):
        list(read_sentence_csv([path]))


def test_json_split_matches_csv_round_trip(tmp_path):
    from tests.shared import write_argsme
    json_path = write_argsme(tmp_path / "args" / "args.json")
    from_json = list(SentenceSource(json_path).records())
    write_sentence_csv(from_json, tmp_path / "csv" / "corpus.csv")
    from_csv = list(SentenceSource(tmp_path / "csv").records())
    assert [r.sentences for r in from_json] == [r.sentences for r in from_csv]
    ids = [s.id for s in from_json[1].sentences]
    assert ids == ["Sa0000001-A00000002__CONC__1", "Sa0000001-A00000002__PREMISE__1", "Sa0000001-A00000002__PREMISE__2"]
    assert SentenceSource(json_path).fingerprint() != SentenceSource(tmp_path / "csv").fingerprint()


def test_source_yields_two_levels_and_refuses_mixing(fixture_input):
    source = SentenceSource(fixture_input)
    arg_id, values, raw = next(source.documents(["contents", "conclusion"]))
    assert values[1] == "Cities should ban cars from their centres" and values[0].startswith(values[1])
    assert SentencedArgument.from_json(raw).id == arg_id
    sid, (text,), raw = next(SentenceSource(fixture_input).documents(["sentence"]))
    assert sid == f"{arg_id}__CONC__1" and '"role":"conclusion"' in raw and f'"argument":"{arg_id}"' in raw
    with pytest.raises(ConfigError, match="either arguments or sentences"):
        next(SentenceSource(fixture_input).documents(["sentence", "contents"]))


def test_demo_csv_is_what_the_converter_writes(tmp_path):
    """demo/pairs is regenerated from the demo JSON; a changed splitter must regenerate it too."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_pairs_demo", REPO / "demo" / "pairs" / "make_pairs_demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from touche.indexing.argsme import read_arguments
    records = [split_argument(a) for a in read_arguments(REPO / "demo" / "args.me" / "args-demo.json")]
    write_sentence_csv(records, tmp_path / "demo.csv", omit_conclusions_below=module.SHORT_CONCLUSION)
    assert (tmp_path / "demo.csv").read_bytes() == DEMO_CSV.read_bytes()


# ---------------------------------------------------------------- sentence features and stance
def test_argumentativeness_prefers_reasons_over_procedure():
    spec = ArgumentativenessSpec()
    def score(text):
        return argumentativeness(text, len(words(text)), spec)
    reason = "A car ban would cut air pollution, because fewer engines burn fuel in the centre."
    assert score(reason) > 0.6
    assert score("Thanks to my opponent, I look forward to the next round.") == 0.0
    assert score("Why would anyone want that?") < score("Nobody would want that, because it costs too much.")


def test_argumentativeness_tracks_webis_argquality20():
    """On real args.me arguments judged for quality (Webis-ArgQuality-20), our cue-based score
    correlates with the combined quality and separates arguments from non-arguments."""
    from scipy.stats import mannwhitneyu, spearmanr

    from tests.shared import require_shared
    from touche.stemming.sentences import split_sentences
    path = require_shared() / "corpora" / "webis-argquality20-full.csv"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    spec = ArgumentativenessSpec()
    scores, quality, is_argument = [], [], []
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            values = [argumentativeness(s, len(words(s)), spec) for s in split_sentences(row["Premise"])] or [0.0]
            scores.append(sum(values) / len(values))
            quality.append(float(row["Combined Quality"]))
            is_argument.append(row["Is Argument?"] == "True")
    assert len(scores) == 1610
    assert spearmanr(scores, quality).statistic > 0.25  # measured: 0.32
    positives = [s for s, a in zip(scores, is_argument) if a]
    negatives = [s for s, a in zip(scores, is_argument) if not a]
    auc = mannwhitneyu(positives, negatives).statistic / (len(positives) * len(negatives))
    assert auc > 0.65  # measured: 0.70


def _record(arg_id: str, conclusion: str, premises: list[str], stance: str = "PRO") -> SentencedArgument:
    return split_argument(Argument(arg_id, conclusion, (Premise(" ".join(premises), stance),)))


def test_stance_sources_and_conclusion_polarity():
    topic = topic_polarity("Should zoos be abolished?")
    assert topic == -1 and topic_polarity("Should teachers get tenure?") == 1
    opposed = _record("S1-A1", "Zoos are essential for conservation", ["Zoos protect species that would die out."])
    agreeing = _record("S1-A2", "Zoos should be closed", ["Cages are cruel."], stance="CON")
    unknown = _record("S1-A3", "Zoos", ["Zoos are cruel and should be abolished because animals suffer."], stance="")
    corpus = StanceSpec()
    assert argument_stance(opposed, topic, corpus) == "PRO"  # args.me as given
    flip = StanceSpec(conclusion_polarity=True)
    assert argument_stance(opposed, topic, flip) == "CON" and argument_stance(agreeing, topic, flip) == "CON"
    assert argument_stance(unknown, topic, corpus) == "Q0"
    # abolish, cruel: with the topic
    assert argument_stance(unknown, topic, StanceSpec(source="corpus+lexicon")) == "PRO"
    assert argument_stance(agreeing, topic, StanceSpec(source="none")) == "Q0"
    assert polarity("Smartphones should not be allowed") == -1 and polarity("Zoos do more good than harm") == 1


# ---------------------------------------------------------------- pair building (no JVM)
def _build(records: list[SentencedArgument], spec: PairsSpec, title="Should cities ban cars from their centres?"):
    hits = [(r.id, 10.0 - i * 0.1) for i, r in enumerate(records)]
    sentence_hits = [(s.id, 5.0) for r in records for s in r.sentences][:50]
    by_id = {r.id: r for r in records}
    return PairBuilder(spec).build("1", title, hits, sentence_hits,
                                   lambda ids: {i: by_id[i] for i in ids if i in by_id})


def _topic1(tmp_path: Path) -> list[SentencedArgument]:
    """Topic 1's arguments as read back from the CSV (short conclusions left out of the list)."""
    write_sentence_csv(fixture_arguments(), tmp_path / "c.csv", omit_conclusions_below=5)
    return [r for r in read_sentence_csv([tmp_path / "c.csv"]) if r.id.startswith("S01")]


def test_pairs_obey_the_rules(tmp_path):
    records = _topic1(tmp_path)
    by_sentence = {s.id: (r, s) for r in records for s in r.sentences}
    result = _build(records, PairsSpec())
    pairs = result.pairs
    assert 100 <= len(pairs) <= 1000 and result.warning is None
    texts = set()
    for pair in pairs:
        (ra, a), (rb, b) = by_sentence[pair.first.id], by_sentence[pair.second.id]  # both ids exist
        assert text_key(a.text) != text_key(b.text)  # never two copies of one text
        key = frozenset((text_key(a.text), text_key(b.text)))
        assert key not in texts  # never the same two texts twice
        texts.add(key)
        if ra.id != rb.id:  # across arguments: one stance, one debate
            assert ra.stance == rb.stance == pair.stance and ra.argument.conclusion == rb.argument.conclusion
        assert not (a.role == CONCLUSION and ra.stance == "CON")  # a CON argument's conclusion is attacked
    scores = [p.score for p in pairs]
    assert all(x > y for x, y in zip(scores, scores[1:]))
    # the __CONC__1 rule: the 4-word conclusion left out of the sentence list can be paired
    assert any(p.first.id.endswith("__CONC__1") and not p.first.sentence.listed for p in pairs)
    assert {p.kind for p in pairs} == {"conclusion-premise", "premises", "cross"}


def test_duplicate_sentences_are_paired_once_and_keep_their_ids():
    shared = "A car ban would cut air pollution for residents, because fewer engines burn fuel there."
    records = [_record("S0a-A01", "Cities should ban cars",
                       [shared, "Streets would be safer for children, since fewer cars pass."]),
               _record("S0a-A02", "Cities should ban cars",
                       [shared, "Streets would be safer for children, since fewer cars pass."])]
    spec = PairsSpec(selection={"min_pairs": 1}, candidates={"expand": False})
    pairs = _build(records, spec).pairs
    keys = [frozenset((p.first.key, p.second.key)) for p in pairs]
    assert len(keys) == len(set(keys)) and all(p.first.key != p.second.key for p in pairs)
    ids = {s.id for r in records for s in r.sentences}
    assert all(p.first.id in ids and p.second.id in ids for p in pairs)
    # the conclusion is shared too: conclusion + premise comes out once for the two arguments
    assert sum(1 for p in pairs if p.kind == "conclusion-premise" and p.second.key == text_key(shared)) == 1


def test_minimum_of_100_pairs_expands_then_warns(tmp_path):
    records = _topic1(tmp_path)
    narrow = PairsSpec(candidates={"arguments": 2})
    result = _build(records, narrow)
    assert len(result.pairs) >= 100 and result.arguments_used > 2  # took more arguments to reach 100
    few = _build(records[:3], PairsSpec())
    assert len(few.pairs) < 100 and few.relaxed and "only" in few.warning and "at least 100" in few.warning
    capped = _build(records, PairsSpec(selection={"max_pairs": 120, "min_pairs": 100}))
    assert len(capped.pairs) == 120


def test_near_duplicates_and_contradictions():
    records = [_record("S0b-A01", "Cities should ban cars", [
        "A car ban would cut air pollution for residents, because fewer engines run.",
        "A car ban would cut the air pollution for residents, because fewer engines run there.",
        "A car ban would not cut air pollution, because traffic moves to the ring road.",
        "Delivery vans would need other routes, since shops still need goods every day."])]
    spec = PairsSpec(selection={"min_pairs": 1}, candidates={"expand": False}, building={"window": 3})
    pairs = {(p.first.sentence.position, p.second.sentence.position): p for p in _build(records, spec).pairs
             if p.kind == "premises"}
    assert {(1, 3), (1, 4), (2, 3)} <= pairs.keys()
    assert (1, 2) not in pairs  # paraphrases: no pair
    assert pairs[(1, 3)].score < pairs[(1, 4)].score  # one of two overlapping sentences negated: penalised


# ---------------------------------------------------------------- configuration
def test_variants_load_and_differ():
    _, suite = load_suite(SUITE)
    variants = [load_variant(SUITE.parent / v).variant for v in suite.variants]
    assert all(v.task == "task1-pairs" and v.corpus.format == "argsme-sentences" for v in variants)
    assert (
        len({v.tag for v in variants}) == 5
        and len({v.model_dump_json(exclude={"tag", "description"}) for v in variants}) == 5
    )


def test_pairs_section_is_strict(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(
        f"extends: {SUITE.parent / 'base.yaml'}\ntag: t\npairs:\n  selection: {{min_pairs: 200, max_pairs: 150}}\n"
    )
    with pytest.raises(ConfigError, match="max_pairs"):
        load_variant(path)
    path.write_text(f"extends: {SUITE.parent / 'base.yaml'}\ntag: t\npairs:\n  building: {{windw: 2}}\n")
    with pytest.raises(ConfigError, match="unknown key 'pairs.building.windw'"):
        load_variant(path)
    path.write_text(
        f"extends: {SUITE.parent / 'base.yaml'}\ntag: t\npairs:\n  sentence_retrieval: {{similarity: {{k1: 1.1}}}}\n"
    )
    assert load_variant(path).variant.pairs.sentence_retrieval.similarity.name == "bm25"


# ---------------------------------------------------------------- end to end (one JVM)
VARIANTS = ["1-bm25-within", "2-krovetz-bm25", "3-krovetz-lmd-selective", "4-krovetz-coherence",
            "5-sentence-first-stance"]


def _check_runs(out: Path, corpus: Path, topics_path: Path):
    from touche.retrieval.formats.topics import read_topics
    titles = {t.number: t.title for t in read_topics(topics_path)}
    sentences = corpus_sentences(corpus)
    arguments = {r.id: r for r in SentenceSource(corpus).records()}
    for name in VARIANTS:
        run = out / f"{name}.txt"
        assert [p for p in run_file_problems(run, RunFormat.PAIRS, set(titles)) if p.is_error] == [], name
        rows = read_run(run, RunFormat.PAIRS)
        counts = {q: sum(1 for r in rows if r.qid == q) for q in titles}
        assert all(100 <= c <= 1000 for c in counts.values()), (name, counts)
        stance_spec = load_variant(SUITE.parent / f"{name}.yaml").variant.pairs.stance
        for row in rows:
            first, second = (sentences[i] for i in row.docid.split(","))  # both ids exist
            assert text_key(first.text) != text_key(second.text), (name, row)
            # coherent: one argument, or arguments of one (known) stance toward the topic; the label is that stance
            stances = {argument_stance(arguments[s.argument_id], topic_polarity(titles[row.qid]), stance_spec)
                       for s in (first, second)}
            assert stances == {row.column2}, (name, row, stances)
            if first.argument_id != second.argument_id:
                assert row.column2 in ("PRO", "CON"), (name, row)


@pytest.fixture(scope="module")
def fixture_runs(jvm_started, fixture_input, tmp_path_factory):
    from touche.retrieval.suite import run_suite
    out = tmp_path_factory.mktemp("pairs-tira-out")
    index_root = tmp_path_factory.mktemp("pairs-indexes")
    assert run_suite(SUITE, fixture_input, out, index_root=index_root, progress=False).run_txt.is_file()
    return out, index_root


def test_five_variants_on_the_fixture_in_tira_layout(fixture_runs, fixture_input):
    out, index_root = fixture_runs
    _check_runs(out, fixture_input, fixture_input / "topics.xml")
    assert (out / "run.txt").read_bytes() == (out / "3-krovetz-lmd-selective.txt").read_bytes()
    built = [p.name for p in index_root.iterdir() if p.is_dir()]
    # three analyzer chains, each with an argument-level and a sentence-level index, shared by variants
    assert len(built) == 6 and all(name.startswith("argsme-sentences-") for name in built)


def test_five_variants_on_the_converted_demo(jvm_started, tmp_path, fixture_runs):
    from touche.retrieval.suite import run_suite
    _, index_root = fixture_runs
    assert run_suite(SUITE, None, tmp_path, index_root=index_root, progress=False).run_txt.is_file()
    _check_runs(tmp_path, DEMO_CSV.parent, REPO / "demo" / "topics.xml")
    table = (tmp_path / "evaluation.md").read_text()
    assert all(name in table for name in VARIANTS) and "relevance:touche.nDCG@5" in table


def test_argsme_2020_json_input_is_split_by_us(jvm_started, tmp_path, fixture_runs):
    """A TIRA input directory with the 2020 JSON instead of the 2022 CSV: we split it ourselves."""
    import shutil

    from touche.retrieval.suite import run_suite
    _, index_root = fixture_runs
    source = tmp_path / "in"
    source.mkdir()
    shutil.copy(REPO / "demo" / "args.me" / "args-demo.json", source)
    shutil.copy(REPO / "demo" / "topics.xml", source)
    only = SUITE.parent / "1-bm25-within.yaml"
    assert run_suite(SUITE, source, tmp_path / "out", only_config=only, index_root=index_root,
                     progress=False).run_txt.is_file()
    assert [p for p in run_file_problems(tmp_path / "out" / "run.txt", RunFormat.PAIRS) if p.is_error] == []
    sentences = corpus_sentences(source)
    rows = read_run(tmp_path / "out" / "run.txt", RunFormat.PAIRS)
    assert len(rows) >= 600 and all(sid in sentences for r in rows for sid in r.docid.split(","))


def test_every_pairs_setting_is_described():
    """The config reference is generated from the descriptions: none may be missing."""
    import typing

    from pydantic import BaseModel

    def undocumented(model, prefix=""):
        for name, info in model.model_fields.items():
            if not info.description:
                yield prefix + name
            for arg in (info.annotation, *typing.get_args(info.annotation)):
                for inner in (arg, *typing.get_args(arg)):
                    if isinstance(inner, type) and issubclass(inner, BaseModel):
                        yield from undocumented(inner, f"{prefix}{name}.")
    assert list(undocumented(PairsSpec)) == []
