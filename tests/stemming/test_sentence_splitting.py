"""Offline sentence splitting (stemming/sentences.py): nltk's Punkt with the shipped parameters
(nltk's English model united with statistics of real args.me debates), no nltk download, and the
parameters' files written and read back."""
from __future__ import annotations

import json

import pytest

from touche.errors import InputError


def test_splitter_knows_abbreviations_and_debate_text_quirks():
    from touche.stemming.sentences import split_sentences
    text = ("Dr. Smith moved to the U.S. in 2010, e.g. for work. Prices rose by 3.5 percent. "
            "That was bad.Tax cuts followed!\nA new paragraph starts here")
    assert split_sentences(text) == [
        "Dr. Smith moved to the U.S. in 2010, e.g. for work.", "Prices rose by 3.5 percent.",
        "That was bad.", "Tax cuts followed!", "A new paragraph starts here"]
    assert split_sentences("  ...  !!! ") == []


@pytest.fixture(scope="module")
def real_premises():
    from tests.shared import require_shared
    data = json.loads((require_shared() / "corpora" / "argsme-2020-04-01.sample.json").read_text(encoding="utf-8"))
    return {a["id"]: a["premises"][0]["text"] for a in data["arguments"]}


@pytest.mark.parametrize("argument, sentence", [
    # abbreviations inside a sentence stay (nltk's English model and the debate statistics)
    ("S8881963f-A5d10ce07", 'As the famous author C.S. Lewis said, "Atheists express their rage against God although '
                            'in their view He does not exist."'),
    ("S5d68f3d4-A57a3f7d6", "College Education vs. High School Education Salary Comparison."),
    # an ellipsis ends a sentence before a capitalised word the debates use mid-sentence in lower case
    ("Se8b34212-A128ae9c8", "I accept your challenge...."),
])
def test_the_shipped_splitter_on_real_args_me_premises(real_premises, argument, sentence):
    from touche.stemming.sentences import split_sentences
    assert sentence in split_sentences(real_premises[argument])


def test_the_shipped_parameters_hold_nltk_english_and_debate_statistics():
    """Retraining (python -m touche.indexing.punkt train … --with-nltk-english) unites the two."""
    from touche.stemming.sentences import load_parameters, nltk_english_parameters
    shipped, english = load_parameters(), nltk_english_parameters()
    assert english.abbrev_types <= shipped.abbrev_types and english.sent_starters <= shipped.sent_starters
    assert all(shipped.ortho_context[w] & flags == flags for w, flags in english.ortho_context.items())
    assert len(shipped.ortho_context) > 3 * len(english.ortho_context)  # words only debates use


def test_merged_parameters_unite_orthographic_evidence():
    from nltk.tokenize.punkt import PunktParameters

    from touche.stemming.sentences import merge_parameters
    a, b = PunktParameters(), PunktParameters()
    a.abbrev_types, b.abbrev_types = {"dr"}, {"vs"}
    a.ortho_context["the"], b.ortho_context["the"], b.ortho_context["zoo"] = 0b0010, 0b1000, 0b0100
    merged = merge_parameters(a, b)
    assert merged.abbrev_types == {"dr", "vs"}
    assert dict(merged.ortho_context) == {"the": 0b1010, "zoo": 0b0100}


def test_splitter_needs_no_nltk_download(monkeypatch):
    """The shipped parameters load from the repository: nltk's data path is never consulted."""
    import nltk.data

    from touche.stemming import sentences

    def no_data(*args, **kwargs):
        raise LookupError("nltk data must not be needed")
    monkeypatch.setattr(nltk.data, "find", no_data)
    monkeypatch.setattr(nltk.data, "load", no_data)
    splitter = sentences.SentenceSplitter(sentences.load_parameters())
    assert splitter.split("Mr. Jones agreed. Others did not.") == ["Mr. Jones agreed.", "Others did not."]


def test_punkt_parameters_round_trip_and_missing_file(tmp_path):
    from touche.stemming.sentences import ABBREVIATIONS, load_parameters, save_parameters, train_parameters
    params = train_parameters(["The zoo opened in May. It was busy. The staff were happy. the end came."] * 3)
    save_parameters(params, tmp_path / "model")
    loaded = load_parameters(tmp_path / "model")
    assert loaded.abbrev_types == params.abbrev_types | ABBREVIATIONS
    assert dict(loaded.ortho_context) == {k: v for k, v in params.ortho_context.items() if v}
    (tmp_path / "model" / "sent_starters.txt").unlink()
    with pytest.raises(InputError, match="sent_starters.txt"):
        load_parameters(tmp_path / "model")
