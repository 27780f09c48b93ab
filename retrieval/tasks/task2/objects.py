"""Task 2: what a comparative question compares, and the query built from it.

2022 topics list their objects (``<objects>a, b</objects>``); 2020/21 topics do not, so they are
extracted from the title by a handful of patterns over the question's surface ("X or Y",
"X vs Y", "X better than Y", "prefer X over Y", "difference between X and Y", lists "X, Y or
Z"), with an elliptic first object completed by the second's head ("steel or ceramic knives").
The aspect is what the title asks about beyond the objects ("for back pain"). Rules, not a
tagger: titles are short questions of a few fixed shapes, and a tagger model would have to be
downloaded.

The query is a bag of words (the Lucene side sums a term's weight by its count): title content
words, the objects' words and the aspect repeated by their weights, comparative cue words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from touche.retrieval.formats.topics import Topic
from touche.specs.task2 import ComparativeQuerySpec, ObjectsSpec
from touche.stemming.stoplists import shipped as stoplist
from touche.stemming.words import punctuated_tokens
from touche.stemming.words import technical_words as words

# Question scaffolding and comparison words: neither objects nor aspect.
SCAFFOLD = frozenset("""
a an the is are was were be been do does did can could would will should shall must may might i you we one
it its they their my your our me which what who whom whose why how when where whether or and vs versus than
better best worse worst more most less least over prefer preferred preferable choose choice buy get take
learn use pick go good great difference differences different between compare compared comparison
advantages disadvantages pros cons vice versa really any think there this that these those of to in on at
for with by as about from into terms way thing things
""".split())
COMPARATIVE_ADJECTIVE = re.compile(
    r"^(?:better|worse|best|worst|more|less|most|least|[a-z]{2,}iest|[a-z]{2,}ier|[a-z]{3,}er)$")
_NOT_COMPARATIVE_ER = frozenset("""
water paper computer laptop desktop player number other under after never ever over order power tower
super river summer winter partner member brother mother father sister matter either neither whether
rather answer cancer center water filter user server manager poster cider beer burger charger toner
printer blender processor father later layer leather fever soccer corner dinner lager camera engineer
""".split())
OBJECT_STOP_RIGHT = frozenset("""
better best worse worst which for in is are to when what that than with as because and why who whose
should would could can do does did more less most least better? healthier stronger faster cheaper safer
in terms at on regarding concerning
""".split())
OBJECT_STOP_LEFT = frozenset("""
is are was were which what who better best worse prefer buy take learn use choose get should i you we one
do does did can could would will it between of to a an the major study go pick play watch drink eat
prefer over about for in on at with as more less most least that this really any much even actually think
""".split())


@dataclass(frozen=True)
class ComparedObjects:
    """What a topic compares: objects (first = the one stance is measured toward) and aspect."""

    objects: tuple[str, ...]
    aspect: tuple[str, ...]  # content words of the aspect

    @property
    def first(self) -> str | None:
        return self.objects[0] if self.objects else None


def _clean_object(tokens: list[str]) -> list[str]:
    while tokens and tokens[0] in ("a", "an", "the", "to", "of", "whether"):
        tokens = tokens[1:]
    while tokens and tokens[-1] in ("a", "an", "the", "to", "of"):
        tokens = tokens[:-1]
    return tokens


def _right_object(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok in (",", ":", "?", ";", "(", ")"):
            break
        if tok in OBJECT_STOP_RIGHT and out:
            break
        if tok == "the" and i + 1 < len(tokens) and tokens[i + 1] in ("best", "better", "most", "least"):
            break
        if out and COMPARATIVE_ADJECTIVE.match(tok) and tok not in _NOT_COMPARATIVE_ER and i + 1 < len(tokens) \
                and tokens[i + 1] in ("than", "for", "at", "in", "to", "?"):
            break
        out.append(tok)
    return _clean_object(out)


def _left_object(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for tok in reversed(tokens):
        if tok in (",", ":", "?", ";", "(", ")"):
            break
        if tok in OBJECT_STOP_LEFT and tok not in ("a", "an", "the", "to"):
            break
        if COMPARATIVE_ADJECTIVE.match(tok) and tok not in _NOT_COMPARATIVE_ER and out:
            break
        out.insert(0, tok)
    return _clean_object(out)


_BEFORE_COMPARATIVE = frozenset("more less much far even really any actually a lot is are was were be".split())


def _strip_comparative(tokens: list[str]) -> list[str]:
    """What stands before 'than': 'pasta healthier' → 'pasta'; 'it healthier to bake' → 'bake';
    'Java code more readable' → 'java code'. The comparative is the last one before 'than'."""
    for i in range(len(tokens) - 1, -1, -1):
        tok = tokens[i]
        if not (COMPARATIVE_ADJECTIVE.match(tok) and tok not in _NOT_COMPARATIVE_ER):
            continue
        before, after = tokens[:i], tokens[i + 1:]
        while before and before[-1] in _BEFORE_COMPARATIVE:
            before = before[:-1]
        left = _left_object(before)
        if left and left not in (["it"], ["there"]):
            return left
        return _clean_object([t for t in after if t not in OBJECT_STOP_LEFT])
    return _left_object(tokens)


def extract_objects(title: str, share_head: bool = True) -> tuple[str, ...]:
    """The compared objects of a comparative question title (empty if none is found)."""
    text = re.sub(r"\bvs\.?(?=\s)|\bversus\b", " vs ", title)
    segments = [s for s in re.split(r"\?\s*", text) if s.strip()]
    for segment in segments:
        tokens = punctuated_tokens(segment)
        found = (_between_and(tokens) or _vs(tokens) or _or_list(tokens, share_head) or _than(tokens)
                 or _over(tokens))
        if found and len(found) >= 2 and all(found):
            return tuple(" ".join(o) for o in found)
    return ()


def _share_head(left: list[str], right: list[str]) -> list[str]:
    """'steel' + 'ceramic knives' → 'steel knives'; not 'quicksort' + 'merge sort' (the head is
    already in the word) nor 'Disneyland' + 'Disney World' (the word extends the right's first)."""
    if len(left) != 1 or len(right) < 2:
        return left
    word = left[0]
    if word.endswith(right[-1]) or word.startswith(right[0]) or right[0].startswith(word):
        return left
    return left + right[1:]


def _split_items(tokens: list[str]) -> list[list[str]]:
    items: list[list[str]] = []
    current: list[str] = []
    for tok in tokens:
        if tok == ",":
            items.append(_clean_object(current))
            current = []
        else:
            current.append(tok)
    items.append(_clean_object(current))
    return [i for i in items if i]


def _between_and(tokens: list[str]) -> list[list[str]] | None:
    if "between" not in tokens:
        return None
    rest = tokens[tokens.index("between") + 1:]
    if "and" not in rest:
        return None
    cut = rest.index("and")
    lefts, right = _split_items(rest[:cut]), _right_object(rest[cut + 1:])
    if len(lefts) == 1:
        lefts[0] = _share_head(lefts[0], right)
    return [*lefts, right]


def _vs(tokens: list[str]) -> list[list[str]] | None:
    if "vs" not in tokens:
        return None
    cut = tokens.index("vs")
    left, right = _left_object(tokens[:cut]), _right_object(tokens[cut + 1:])
    return [_share_head(left, right), right]


def _or_list(tokens: list[str], share_head: bool) -> list[list[str]] | None:
    if "or" not in tokens:
        return None
    cut = len(tokens) - 1 - tokens[::-1].index("or")
    right = _right_object(tokens[cut + 1:])
    before = tokens[:cut]
    lefts = [_left_object(before)]
    # "…: coffee, green tea or black tea": earlier comma-separated items count only when the
    # list starts after a colon or at the start ("better for the environment, a real or …" is
    # an aspect followed by the objects, not a list).
    start = cut
    while start > 0 and before[start - 1] not in (":",) and not (before[start - 1] in OBJECT_STOP_LEFT
                                                                    and before[start - 1] not in ("a", "an", "the")):
        start -= 1
    items = _split_items(before[start:])
    if len(items) > 1 and (start == 0 or before[start - 1] == ":"):
        lefts = items
    if share_head and len(lefts) == 1:
        lefts[0] = _share_head(lefts[0], right)
    return [*lefts, right]


def _than(tokens: list[str]) -> list[list[str]] | None:
    if "than" not in tokens:
        return None
    cut = tokens.index("than")
    left, right = _strip_comparative(tokens[:cut]), _right_object(tokens[cut + 1:])
    if not left:
        return None
    right = _clean_object([t for t in right if t not in ("that", "those")])
    return [left, right]


def _over(tokens: list[str]) -> list[list[str]] | None:
    if "over" not in tokens:
        return None
    cut = tokens.index("over")
    return [_left_object(tokens[:cut]), _right_object(tokens[cut + 1:])]


def extract_aspect(title: str, objects: Sequence[str]) -> tuple[str, ...]:
    object_words = {w for o in objects for w in words(o)}
    kept = []
    for w in words(title):
        if w in object_words or w in SCAFFOLD or w in stoplist("smart") or len(w) < 2:
            continue
        if COMPARATIVE_ADJECTIVE.match(w) and w not in _NOT_COMPARATIVE_ER:
            continue
        kept.append(w)
    return tuple(dict.fromkeys(kept))


def comparison(topic: Topic, spec: ObjectsSpec | None = None) -> ComparedObjects:
    spec = spec or ObjectsSpec()
    if spec.source == "topic" or (spec.source == "auto" and topic.objects):
        objects = tuple(topic.objects)
    else:
        objects = extract_objects(topic.title, spec.share_head)
    return ComparedObjects(objects, extract_aspect(topic.title, objects))


# --------------------------------------------------------------------------- queries

def comparative_query(topic: Topic, spec: ComparativeQuerySpec, objects: ObjectsSpec | None = None) -> str:
    """The topic's query text; a word repeated n times weighs n in the Lucene query."""
    comp = comparison(topic, objects)
    parts: list[str] = []
    title_words = [w for w in words(topic.title) if w not in SCAFFOLD or w in comp_words(comp)]
    parts += title_words * spec.title_weight
    for obj in comp.objects:
        parts += words(obj) * spec.object_weight
    parts += list(comp.aspect) * spec.aspect_weight
    parts += [w for t in spec.comparative_terms for w in words(t)] * spec.comparative_weight
    if spec.description and topic.description:
        parts += words(topic.description)
    if not parts:
        parts = words(topic.title)
    return " ".join(parts)


def comp_words(comp: ComparedObjects) -> set[str]:
    return {w for o in comp.objects for w in words(o)}


