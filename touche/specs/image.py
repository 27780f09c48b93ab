"""Settings of image retrieval variants (the ``image:`` section of a variant).

The first stage (analyzer, indexed fields, field weights, similarity) is the ordinary variant
schema over the image collection's text fields (``indexing/images.py``: contents, page_title,
near_text, alt_text, ocr_text, queries, url_text, page_text). This section configures what
``retrieval/tasks/image/handlers.py`` does with the hits: near-duplicate collapse, argumentativeness, the
stance formula, and how the 10 PRO and 10 CON images per topic are chosen.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from touche.specs import Strict
from touche.specs.weights import FieldWeights, Weight

# Fields whose text is stored with each image (the index's raw record) and can be scored.
STORED_TEXT_FIELDS = ("page_title", "near_text", "alt_text", "ocr_text", "url_text")


def _check_weights(value: dict[str, float]) -> dict[str, float]:
    unknown = [f for f in value if f not in STORED_TEXT_FIELDS]
    if unknown:
        raise ValueError(f"unknown text field(s) {', '.join(unknown)} (valid: {', '.join(STORED_TEXT_FIELDS)})")
    for name, weight in value.items():
        if not 0 <= weight <= 100:
            raise ValueError(f"weight of '{name}' must be in [0, 100], got {weight}")
    return value


class DuplicateSpec(Strict):
    """Near-duplicate images (the same picture crawled from several pages) are collapsed so
    a topic's list never shows one picture twice: the best-scored copy stays."""

    enabled: bool = Field(True, description="collapse images whose perceptual hashes (image-phash.txt) agree")
    max_distance: int = Field(0, ge=0, le=32, description="largest Hamming distance between two 64-bit phashes "
                                                          "that still counts as the same picture (0: identical)")


class StanceSpec(Strict):
    """stance = clip(sentiment_weight × sentiment' + cue_weight × cues + prior, -1, 1), > 0 is PRO.

    sentiment' is the weighted mean over ``text_weights`` of VADER's compound score (the
    lexicon shipped in the vaderSentiment package), sign-flipped for topics that ask whether
    to ban, abolish … something (arguing *for* a ban speaks negatively of its object).
    cues = (pro − con) / (pro + con + 1), counting ``pro_cues`` and ``con_cues`` words in the
    same texts — only those within ``cue_window`` words of a topic term when the window is > 0
    (topic-specific cues: "against lowering the voting age", not any "against").
    """

    formula = ("sentiment_weight", "cue_weight")

    text_weights: FieldWeights = Field(
        {"alt_text": 1.0, "ocr_text": 1.0, "near_text": 0.5, "page_title": 0.5},
        description="field → weight of its sentiment and cues (fields: " + ", ".join(STORED_TEXT_FIELDS) + ")")
    sentiment_weight: Weight = Field(1.0, ge=0, le=10, description="weight of the VADER sentiment term")
    cue_weight: Weight = Field(1.0, ge=0, le=10, description="weight of the pro/con cue-word term")
    cue_window: int = Field(0, ge=0, le=100, description="count cue words only within this many words of a topic "
                                                         "term (0: anywhere in the text)")
    pro_cues: tuple[str, ...] = Field(
        ("yes", "support", "supports", "favor", "favour", "pro", "benefit", "benefits", "beneficial", "agree",
         "should", "must", "allow", "right", "rights", "deserve", "good", "better", "best", "advantages"),
        description="words that speak for the topic's proposition (lowercase; matched whole)")
    con_cues: tuple[str, ...] = Field(
        ("no", "against", "oppose", "opposed", "stop", "con", "cons", "harm", "harmful", "danger", "dangerous",
         "risk", "risks", "bad", "worse", "worst", "myth", "problem", "problems", "disadvantages", "never", "kill"),
        description="words that speak against the topic's proposition (lowercase; matched whole)")
    negative_topic_words: tuple[str, ...] = Field(
        ("ban", "banned", "banning", "abolish", "abolished", "prohibit", "prohibited", "outlaw", "outlawed",
         "forbid", "forbidden", "illegal", "eliminate", "eliminated", "restrict", "restricted", "end", "stop"),
        description="a topic title with one of these words asks to remove something: sentiment is sign-flipped")
    flip_negative_topics: bool = Field(True, description="apply the sign flip of negative_topic_words")
    prior: float = Field(0.0, ge=-1, le=1, description="added to every stance score (> 0 leans PRO)")
    neutral_band: float = Field(0.05, ge=0, le=1, description="|stance| up to this is neutral: such an image has no "
                                                              "preferred side and only fills a list")

    @field_validator("text_weights")
    @classmethod
    def _weights(cls, value):
        return _check_weights(value)

    @field_validator("pro_cues", "con_cues", "negative_topic_words")
    @classmethod
    def _lowercase_words(cls, value):
        bad = [w for w in value if not w or w != w.lower() or " " in w]
        if bad:
            raise ValueError(f"cue words must be single lowercase words, got {bad[:3]}")
        return value


class ArgumentSpec(Strict):
    """argumentativeness ∈ [0, 1] = weighted mean of four signals, each in [0, 1]:
    text (OCR words / ``text_words``, capped: text-heavy images such as memes, posters and
    slides argue more often than photos), chart (chart vocabulary, percentages and many numbers
    in the image), emotion (|VADER compound| of the image's own text) and cues (argument words:
    because, should, pros, cons …)."""

    formula = ("text_weight", "chart_weight", "emotion_weight", "cue_weight")

    text_weight: Weight = Field(1.0, ge=0, le=10, description="weight of the amount of text inside the image")
    text_words: int = Field(25, ge=1, le=1000, description="OCR words at which the text signal reaches 1")
    chart_weight: Weight = Field(1.0, ge=0, le=10, description="weight of chart/statistics cues")
    emotion_weight: Weight = Field(0.5, ge=0, le=10, description="weight of the emotional strength of the image's text")
    cue_weight: Weight = Field(0.5, ge=0, le=10, description="weight of argument words")
    text_fields: tuple[str, ...] = Field(("ocr_text", "alt_text"),
                                         description="the image's own text for the emotion and cue signals")
    chart_words: tuple[str, ...] = Field(
        ("chart", "graph", "percent", "percentage", "survey", "poll", "statistics", "stats", "data", "infographic",
         "figure", "rate", "turnout", "vs", "versus", "million", "billion"),
        description="words that mark charts and statistics (a '%' sign counts too)")
    argument_words: tuple[str, ...] = Field(
        ("because", "should", "must", "why", "reasons", "reason", "pros", "cons", "vs", "versus", "fact", "facts",
         "myth", "debate", "argument", "therefore", "but", "if", "yes", "no", "need", "stop"),
        description="words that mark argumentative text")

    @field_validator("text_fields")
    @classmethod
    def _fields(cls, value):
        unknown = [f for f in value if f not in STORED_TEXT_FIELDS]
        if unknown or not value:
            raise ValueError(
                f"text_fields must name stored fields ({', '.join(STORED_TEXT_FIELDS)}), got {list(value)}"
            )
        return value



class ImageSpec(Strict):
    """What happens after first-stage retrieval: a topic's hits are collapsed, scored for
    argumentativeness and stance, and split into 10 PRO and 10 CON images.

    Each image goes to the side its stance prefers; a side's images are ordered by
    ``relevance_weight`` × relevance (retrieval score / the topic's best) + ``argumentative_weight``
    × argumentativeness + ``stance_weight`` × |stance| + ``crawl_weight`` × crawl prior.
    A side with fewer than 10 preferred images is filled with the best remaining retrieved
    images, and then — when ``fill`` is ``collection`` — with unretrieved images of the
    collection, most argumentative first (only tiny collections need this). The score column
    says which: 2 + s for preferred, 1 + s for filled from the hits, s for collection fill
    (s ∈ [0, 1]), so the rank order never mixes the tiers.
    """

    formula = ("relevance_weight", "argumentative_weight", "stance_weight", "crawl_weight")

    candidates: int = Field(200, ge=20, le=1000, description="hits per topic considered (retrieval.top_k caps it)")
    duplicates: DuplicateSpec = Field(default_factory=DuplicateSpec, description="near-duplicate collapse")
    stance: StanceSpec = Field(default_factory=StanceSpec, description="the stance formula")
    argumentative: ArgumentSpec = Field(default_factory=ArgumentSpec, description="the argumentativeness formula")
    relevance_weight: Weight = Field(1.0, ge=0, le=10, description="weight of the normalised retrieval score")
    argumentative_weight: Weight = Field(0.5, ge=0, le=10, description="weight of argumentativeness")
    stance_weight: Weight = Field(0.5, ge=0, le=10, description="weight of stance confidence |stance|")
    min_relevance: float = Field(0.25, ge=0, le=1, description="images below this normalised retrieval score never "
                                                               "get a preferred side: they only fill a list")
    crawl_weight: Weight = Field(0.0, ge=0, le=10, description="weight of the crawl prior: 1 / (1 + log2 rank) when "
                                                              "rankings.jsonl ranked the image for this topic's number")
    fill: Literal["collection", "none"] = Field(
        "collection", description="a topic with fewer than 20 distinct hits: 'collection' fills it with unretrieved "
                                  "images (the run stays valid); 'none' fails, naming the topic")
