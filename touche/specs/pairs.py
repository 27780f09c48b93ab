"""Settings of Task 1 2022 (sentence pairs) variants (the ``pairs:`` section of a variant).

Every weight and threshold of ``retrieval/tasks/task1/pairs.py`` lives here; a variant without a
``pairs:`` section uses these defaults. The stages, in order: candidate sentences
(``candidates``, ``sentence_retrieval``), per-sentence scores (``relevance``,
``argumentativeness``), pair building (``building``), pair scores (``score``), the cut
(``selection``) and the stance label (``stance``).
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from touche.specs import Strict
from touche.specs.similarity import Similarity, bm25_unless_named
from touche.specs.weights import Weight


class CandidateSpec(Strict):
    """Which sentences may appear in a pair."""

    arguments: int = Field(50, ge=1, le=1000, description="the top-ranked arguments whose sentences are candidates")
    sentence_hits: int = Field(0, ge=0, le=10000, description="also take the arguments of this many top hits of the "
                                                              "sentence index (sentence-first retrieval); 0: none")
    expand: bool = Field(True, description="when fewer than selection.min_pairs pairs come out, double the arguments "
                                           "(up to all retrieved), then relax the sentence filters")
    min_words: int = Field(6, ge=1, le=200, description="premise sentences with fewer words are no candidates")
    min_words_conclusion: int = Field(3, ge=1, le=200, description="conclusions with fewer words are no candidates")
    max_words: int = Field(
        60, ge=2, le=2000, description="sentences with more words are no candidates (run-ons, lists)"
    )
    min_argumentativeness: float = Field(0.2, ge=0, le=1, description="sentences with a lower argumentativeness "
                                                                      "score are no candidates")

    @model_validator(mode="after")
    def _lengths(self):
        if self.max_words < max(self.min_words, self.min_words_conclusion):
            raise ValueError(f"max_words ({self.max_words}) must be >= min_words and min_words_conclusion")
        return self


class SentenceRetrievalSpec(Strict):
    """The sentence-level index, searched with the topic's query to score single sentences."""

    depth: int = Field(5000, ge=10, le=100000, description="sentence hits per topic; candidates below this depth get "
                                                           "sentence relevance 0")
    similarity: Similarity | None = Field(None, description="similarity for the sentence index; null: the "
                                                                    "variant's retrieval.similarity")

    _bm25_unless_named = field_validator("similarity", mode="before")(bm25_unless_named)


class RelevanceSpec(Strict):
    """A sentence's relevance: a weighted sum of two normalised retrieval scores."""

    formula = ("sentence", "argument")

    sentence: Weight = Field(0.5, ge=0, le=10, description="weight of the sentence's own score in the sentence index "
                                                          "(divided by the topic's best)")
    argument: Weight = Field(0.5, ge=0, le=10,
                             description="weight of its argument's score (min-max normalised per topic)")


class ArgumentativenessSpec(Strict):
    """A sentence's argumentativeness in [0, 1] from lexical cues and length."""

    formula = ("markers", "length")

    markers: Weight = Field(1.0, ge=0, le=10,
                            description="weight of argumentative markers (because, therefore, should, evidence, "
                                        "leads to, ...): 0 markers → 0, 2 or more → 1")
    length: Weight = Field(0.5, ge=0, le=10, description="weight of the length feature: 1 inside ideal_words, "
                                                        "falling linearly to 0 at half / twice the bounds")
    ideal_words: tuple[int, int] = Field((10, 35), description="[shortest, longest] sentence length in words that "
                                                               "counts as ideal")
    noise_penalty: Weight = Field(1.0, ge=0, le=10, description="subtracted for debate procedure or spam cues "
                                                               "(vote pro, next round, my opponent, forfeit, links)")
    question_penalty: Weight = Field(0.3, ge=0, le=10,
                                     description="subtracted for questions, which rarely state a claim")
    conclusion_prior: float = Field(0.5, ge=0, le=1, description="a conclusion is a claim by the corpus' own account: "
                                                                 "its marker and length score is at least this "
                                                                 "(penalties still apply)")

    @model_validator(mode="after")
    def _ideal(self):
        low, high = self.ideal_words
        if not 1 <= low <= high:
            raise ValueError(f"ideal_words must be [low, high] with 1 <= low <= high, got {list(self.ideal_words)}")
        return self


class BuildingSpec(Strict):
    """Which pairs are formed from the candidates."""

    conclusion_premises: int = Field(3, ge=0, le=100, description="per argument: pair its conclusion with this many "
                                                                  "of its best premises (0: no conclusion pairs)")
    window: int = Field(1, ge=0, le=50, description="per argument: pair premises at most this many positions apart "
                                                    "(1: adjacent only; 0: no premise pairs)")
    cross_arguments: int = Field(20, ge=0, le=500, description="per stance: pair sentences across the top this-many "
                                                               "arguments of that stance (0: no cross-argument pairs)")
    cross_same_conclusion: bool = Field(
        True,
        description="pair across arguments only where they share their "
        "conclusion (one debate's claim): args.me stances are toward "
        "the conclusion, so only there does one stance mean agreement",
    )
    cross_sentences: int = Field(2, ge=1, le=20, description="best sentences per argument used in cross-argument pairs")
    conclusion_needs_support: bool = Field(
        True,
        description="args.me stance is the premise's toward its conclusion: in "
        "an argument whose premises are CON, the conclusion is the "
        "claim they attack, so it is no candidate",
    )


class ScoreSpec(Strict):
    """A pair's score: weighted means of its sentences' features plus pair features."""

    formula = ("relevance", "argumentativeness", "representativeness", "coherence")

    relevance: Weight = Field(1.0, ge=0, le=10, description="weight of the mean sentence relevance")
    argumentativeness: Weight = Field(0.5, ge=0, le=10,
                                      description="weight of the mean argumentativeness")
    representativeness: Weight = Field(0.3, ge=0, le=10,
                                       description="weight of the mean similarity of each sentence to the rest of "
                                                   "its argument")
    coherence: Weight = Field(0.5, ge=0, le=10, description="weight of the topical overlap of the two sentences "
                                                           "(cosine of their stemmed content words)")
    same_argument: Weight = Field(0.2, ge=0, le=10, description="bonus for two sentences of one argument")
    conclusion: Weight = Field(0.1, ge=0, le=10, description="bonus for a pair holding a conclusion")
    contradiction: Weight = Field(1.0, ge=0, le=10, description="penalty for a contradiction cue: overlapping "
                                                               "sentences of which exactly one is negated")
    contradiction_overlap: float = Field(0.3, ge=0, le=1, description="the overlap from which differing negation "
                                                                      "counts as a contradiction cue")
    max_overlap: float = Field(0.75, gt=0, le=1, description="pairs whose overlap reaches this are near-duplicates "
                                                             "(paraphrases repeat, they do not summarise): not built")


class SelectionSpec(Strict):
    """How many pairs per topic, and how varied."""

    min_pairs: int = Field(100, ge=1, le=1000, description="Touché asks for at least 100 pairs per topic; fewer only "
                                                           "when the collection cannot supply them (with a warning)")
    max_pairs: int = Field(1000, ge=1, le=1000, description="pairs written per topic (Touché allows at most 1,000)")
    max_per_sentence: int = Field(3, ge=1, le=1000, description="a sentence (by text) appears in at most this many "
                                                                "pairs until no other pairs are left")

    @model_validator(mode="after")
    def _order(self):
        if self.max_pairs < self.min_pairs:
            raise ValueError(f"max_pairs ({self.max_pairs}) must be >= min_pairs ({self.min_pairs})")
        return self


class StanceSpec(Strict):
    """The PRO/CON label of a pair, toward the topic; Q0 when unknown."""

    source: Literal["corpus", "lexicon", "corpus+lexicon", "none"] = Field(
        "corpus",
        description="corpus: args.me's premise stance; lexicon: pro/con cue words of the argument against the "
        "topic's polarity; corpus+lexicon: the lexicon where the corpus has no stance; none: Q0",
    )
    conclusion_polarity: bool = Field(False, description="args.me stance is toward the argument's conclusion: flip it "
                                                         "when the lexicon finds the conclusion opposed to the topic "
                                                         "('Zoos are essential' for 'Should zoos be abolished?')")
    lexicon_margin: float = Field(1.0, ge=0, le=100, description="the lexicon decides only when pro and con cues "
                                                                  "differ by at least this much; otherwise Q0")


class PairsSpec(Strict):
    """Task 1 2022: pairs of argumentative sentences with a stance."""

    candidates: CandidateSpec = Field(default_factory=CandidateSpec, description="which sentences may be paired")
    sentence_retrieval: SentenceRetrievalSpec = Field(default_factory=SentenceRetrievalSpec,
                                                      description="the sentence-level index and its search")
    relevance: RelevanceSpec = Field(default_factory=RelevanceSpec, description="a sentence's relevance")
    argumentativeness: ArgumentativenessSpec = Field(default_factory=ArgumentativenessSpec,
                                                     description="a sentence's argumentativeness")
    building: BuildingSpec = Field(default_factory=BuildingSpec, description="which pairs are formed")
    score: ScoreSpec = Field(default_factory=ScoreSpec, description="how pairs are scored")
    selection: SelectionSpec = Field(default_factory=SelectionSpec, description="how many pairs per topic")
    stance: StanceSpec = Field(default_factory=StanceSpec, description="the stance label of a pair")
