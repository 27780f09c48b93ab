"""Query formulation from topics: which topic parts, and optional question/stance rewriting.

With a stoplist most question scaffolding disappears anyway; these options matter for chains
without one (and for shingles, which would otherwise join "should" to the first content word).
"""
from __future__ import annotations

from touche.config import QuerySpec
from touche.errors import InputError
from touche.retrieval.formats.topics import Topic
from touche.stemming.words import has_query_word, query_words

QUESTION_WORDS = frozenset("""
should shall is are was were be being been do does did can could would will must may might
has have had which what who whom whose why how when where whether we you our us i it its
""".split())
STANCE_WORDS = frozenset("""
ban banned banning bans allow allowed allowing legal legalize legalized legalise legalised
illegal abolish abolished mandatory compulsory required permitted prohibit prohibited
forbid forbidden outlaw outlawed good bad better worse beneficial harmful
""".split())


def query_text(topic: Topic, spec: QuerySpec, topics_path: str | None = None) -> str:
    text = topic.title if spec.text == "title" else f"{topic.title} {topic.description}"
    if spec.drop_question_words or spec.stance_neutral:
        drop = (QUESTION_WORDS if spec.drop_question_words else frozenset()) | (
            STANCE_WORDS if spec.stance_neutral else frozenset())
        kept = [w for w in query_words(text) if w.lower() not in drop]
        text = " ".join(kept)
    if not has_query_word(text):
        raise InputError("the query is empty after processing (title has no words"
                         + (" left after question/stance word removal" if text != topic.title else "") + ")",
                         path=topics_path, where=f"topic {topic.number}")
    return text
