"""Generate the project's own small demo collection for Touché Task 1.

Writes, next to this script:

* ``args.me/args-demo.json``  arguments in the args.me 2020-04-01 JSON format,
* ``topics.xml``              six topics in the Touché topic format,
* ``qrels-relevance.txt``     TREC qrels, relevance labels -2/0/1/2,
* ``qrels-quality.txt``       TREC qrels, quality labels 0/1/2,
* ``README.md``               a short description with the resulting counts.

Why: tests, examples and quick benchmark runs need a corpus that is small, ships
with the repository and carries no licence questions.  Every text (topic_pools.py,
filler_pools.py beside this script) was written for this project; nothing is taken
from args.me or any other source.

Arguments are assembled from hand-written sentence pools (with ``{a|b}`` slots
for lexical variation) by a seeded random generator, so that running
``python demo/make_demo.py`` reproduces the files byte for byte.  Relevance and
quality labels follow from how each argument was built (on-topic, tangential,
bare claim, procedural, spam, distractor), not from human assessment.
Standard library only.
"""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from xml.sax.saxutils import escape

# The hand-written material: the topics with their sentence pools, and the filler every debate shares.
from filler_pools import CLOSERS, DIGRESSIONS, DISTRACTORS, META, OPENERS, REBUTTALS, SPAM, DistractorDebate
from topic_pools import TOPICS, Topic

SEED = 20200401
OUT_DIR = Path(__file__).resolve().parent
DOMAIN = "debate-example.org"
ID_RE = re.compile(r"^S[0-9a-f]{8}-A[0-9a-f]{8}$")
MAX_JSON_BYTES = 600 * 1024


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------

_SLOT = re.compile(r"\{([^{}]*)\}")
# Weights for the number of body sentences in an on-topic argument.
_LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8)
_LENGTH_WEIGHTS = (2, 3, 4, 4, 3, 2, 1, 1)


def expand(text: str, rng: random.Random) -> str:
    """Replace every ``{a|b|c}`` slot by one of its alternatives."""
    return _SLOT.sub(lambda m: rng.choice(m.group(1).split("|")), text)


class Pool:
    """Draws items so that the least-used ones come first (ties broken randomly).

    Balancing the use of each sentence keeps generated arguments apart from
    each other instead of repeating a few favourites.
    """

    def __init__(self, items: tuple[str, ...], rng: random.Random) -> None:
        self.items = list(items)
        self.uses = [0] * len(self.items)
        self.rng = rng
        self.drawn: set[frozenset[int]] = set()

    def take(self, k: int) -> list[str]:
        """Draw ``k`` distinct items, avoiding a combination drawn before."""
        k = min(k, len(self.items))
        for attempt in range(20):
            if attempt < 10:
                order = sorted(
                    range(len(self.items)), key=lambda i: (self.uses[i], self.rng.random())
                )
                chosen = order[:k]
            else:  # balancing keeps producing a repeat: fall back to any subset
                chosen = self.rng.sample(range(len(self.items)), k)
            if k == len(self.items) or frozenset(chosen) not in self.drawn:
                break
        self.drawn.add(frozenset(chosen))
        for i in chosen:
            self.uses[i] += 1
        self.rng.shuffle(chosen)
        return [self.items[i] for i in chosen]

    def one(self) -> str:
        return self.take(1)[0]


@dataclass
class Debate:
    source_id: str
    title: str
    polarity: int  # +1/-1 for topic debates, 0 for distractors
    topic: int | None
    url: str
    start: datetime
    args: list[Argument] = field(default_factory=list)


@dataclass
class Argument:
    debate: Debate
    kind: str  # direct, rambling, rebuttal, tangential, bare, meta, spam, distractor
    conclusion: str
    premise: str
    stance: str
    relevance: int | None  # for its own topic; None for distractors
    quality: int
    arg_id: str = ""


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used_hex: set[str] = set()
        self.debates: list[Debate] = []
        self.openers = Pool(OPENERS, self.rng)
        self.closers = Pool(CLOSERS, self.rng)
        self.rebuttals = Pool(REBUTTALS, self.rng)
        self.digressions = Pool(DIGRESSIONS, self.rng)
        self.meta = Pool(META, self.rng)
        self.spam = Pool(SPAM, self.rng)
        self.clock = datetime(2019, 4, 18, 11, 0, 0, tzinfo=timezone.utc)

    # -- small helpers -----------------------------------------------------

    def new_hex(self) -> str:
        while True:
            value = f"{self.rng.getrandbits(32):08x}"
            if value not in self.used_hex:
                self.used_hex.add(value)
                return value

    def new_debate(self, title: str, polarity: int, topic: int | None) -> Debate:
        source_id = self.new_hex()
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
        url = f"https://www.{DOMAIN}/debates/{self.rng.randint(1000, 99999)}-{slug}/"
        self.clock += timedelta(seconds=self.rng.randint(20, 900))
        debate = Debate(source_id, title, polarity, topic, url, self.clock)
        self.debates.append(debate)
        return debate

    def length(self) -> int:
        return self.rng.choices(_LENGTHS, weights=_LENGTH_WEIGHTS)[0]

    def quality_for(self, n_sentences: int) -> int:
        """Quality of a coherent argument from how much support it gives."""
        if n_sentences >= 4:
            return 2
        if n_sentences == 3:
            return 2 if self.rng.random() < 0.5 else 1
        if n_sentences == 2:
            return 1
        return 1 if self.rng.random() < 0.5 else 0

    def frame(self, body: list[str], subject: str, vote: str) -> str:
        """Optionally wrap body sentences with a debate-style opener and closer."""
        parts = list(body)
        if self.rng.random() < 0.35:
            parts.insert(0, self.openers.one().replace("<X>", subject))
        if self.rng.random() < 0.35:
            parts.append(self.closers.one().replace("<V>", vote))
        return " ".join(parts)

    # -- topic arguments ---------------------------------------------------

    def topic_arguments(self, topic: Topic) -> None:
        rng = self.rng
        debates = [self.new_debate(t, p, topic.number) for t, p in topic.debates]
        pools = {1: Pool(topic.pro, rng), -1: Pool(topic.con, rng)}
        claims = {1: Pool(topic.pro_claims, rng), -1: Pool(topic.con_claims, rng)}
        tangential = Pool(topic.tangential, rng)
        bare = {1: Pool(topic.bare_pro, rng), -1: Pool(topic.bare_con, rng)}

        plan: list[tuple[str, int]] = []
        for side, low, high in ((1, 14, 17), (-1, 13, 16)):
            count = rng.randint(low, high)
            kinds = ["rambling"] * 2 + ["rebuttal"] * 3
            kinds += ["direct"] * (count - len(kinds))
            plan += [(kind, side) for kind in kinds]
        plan += [("tangential", rng.choice((1, -1))) for _ in range(rng.randint(4, 6))]
        plan += [("bare", side) for side in (1, -1, rng.choice((1, -1)))]
        plan += [("meta", 0)] * rng.randint(2, 3) + [("spam", 0)] * rng.randint(2, 3)

        # Every debate gets at least three arguments, the rest are spread randomly.
        slots = [d for d in debates for _ in range(3)]
        slots += [rng.choice(debates) for _ in range(len(plan) - len(slots))]
        rng.shuffle(slots)

        for (kind, side), debate in zip(plan, slots):
            subject = rng.choice(topic.subjects)
            if side == 0:
                side = rng.choice((1, -1))
            stance = "PRO" if side == debate.polarity else "CON"
            conclusion = debate.title
            if kind in ("direct", "rebuttal", "rambling") and rng.random() < 0.3:
                conclusion, stance = claims[side].one(), "PRO"
            vote = stance.capitalize()

            if kind == "direct":
                n = self.length()
                body = [expand(s, rng) for s in pools[side].take(n)]
                premise, rel, qual = self.frame(body, subject, vote), 2, self.quality_for(n)
            elif kind == "rebuttal":
                n = rng.randint(2, 5)
                quoted = expand(pools[-side].one(), rng)
                body = [f'My opponent claims: "{quoted}"', self.rebuttals.one()]
                body += [expand(s, rng) for s in pools[side].take(n)]
                premise, rel, qual = self.frame(body, subject, vote), 2, self.quality_for(n + 1)
            elif kind == "rambling":
                body = [expand(s, rng) for s in pools[side].take(rng.randint(5, 7))]
                for digression in self.digressions.take(rng.randint(2, 3)):
                    body.insert(rng.randint(1, len(body)), digression)
                premise, rel, qual = self.frame(body, subject, vote), 2, 1
            elif kind == "tangential":
                n = rng.randint(1, 4)
                body = [expand(s, rng) for s in tangential.take(n)]
                premise, rel, qual = " ".join(body), 1, 0 if n == 1 else 1
            elif kind == "bare":
                premise, rel, qual = bare[side].one(), 1, 0
            elif kind == "meta":
                premise, rel, qual = self.meta.one().replace("<X>", subject), 0, 0
            else:  # spam
                premise, rel, qual = self.spam.one(), -2, 0
            debate.args.append(
                Argument(debate, kind, conclusion, premise, stance, rel, qual)
            )

    # -- distractors -------------------------------------------------------

    def distractor_arguments(self, spec: DistractorDebate, count: int) -> None:
        rng = self.rng
        debate = self.new_debate(spec.title, 0, None)
        pools = {"PRO": Pool(spec.pro, rng), "CON": Pool(spec.con, rng)}
        stances = ["PRO", "CON"] * (count // 2) + ["PRO"] * (count % 2)
        rng.shuffle(stances)
        for stance in stances:
            n = rng.choices((1, 2, 3), weights=(2, 3, 2))[0]
            body = [expand(s, rng) for s in pools[stance].take(n)]
            premise = self.frame(body, spec.subject, stance.capitalize())
            debate.args.append(
                Argument(debate, "distractor", spec.title, premise, stance, None, self.quality_for(n))
            )

    # -- assembly ----------------------------------------------------------

    def build(self) -> list[Argument]:
        for topic in TOPICS:
            self.topic_arguments(topic)
        for spec in DISTRACTORS:
            self.distractor_arguments(spec, 6)
        self.rng.shuffle(self.debates)
        arguments: list[Argument] = []
        for debate in self.debates:
            self.rng.shuffle(debate.args)
            for arg in debate.args:
                arg.arg_id = f"S{debate.source_id}-A{self.new_hex()}"
            arguments.extend(debate.args)
        return arguments

    def judgments(self, arguments: list[Argument]) -> dict[int, list[tuple[Argument, int]]]:
        """Relevance pool per topic: its own arguments, the distractors that share
        its vocabulary, and on-topic arguments of a related topic (all judged 0
        except the topic's own)."""
        by_topic: dict[int, list[Argument]] = {t.number: [] for t in TOPICS}
        for arg in arguments:
            if arg.debate.topic is not None:
                by_topic[arg.debate.topic].append(arg)
        pools: dict[int, list[tuple[Argument, int]]] = {}
        for topic in TOPICS:
            pool = [(a, a.relevance) for a in by_topic[topic.number]]
            pool += [
                (a, 0)
                for a in arguments
                if a.kind == "distractor" and topic.number in _judged_for(a.debate.title)
            ]
            candidates = [
                a for a in by_topic[topic.partner] if a.kind in ("direct", "rebuttal")
            ]
            n_cross = min(14, max(6, 66 - len(pool)))
            pool += [(a, 0) for a in self.rng.sample(candidates, n_cross)]
            pools[topic.number] = pool
        return pools


def _judged_for(title: str) -> tuple[int, ...]:
    return next(d.judged_for for d in DISTRACTORS if d.title == title)


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def argument_json(arg: Argument, prev_id: str, next_id: str) -> dict:
    debate = arg.debate
    return {
        "id": arg.arg_id,
        "conclusion": arg.conclusion,
        "premises": [{"text": arg.premise, "stance": arg.stance, "annotations": []}],
        "context": {
            "sourceId": debate.source_id,
            "previousArgumentInSourceId": prev_id,
            "acquisitionTime": debate.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "discussionTitle": debate.title,
            "sourceTitle": f"Online Debate: {debate.title} | Debate-Example",
            "sourceUrl": debate.url,
            "nextArgumentInSourceId": next_id,
            "sourceDomain": DOMAIN,
        },
    }


def corpus_json(arguments: list[Argument]) -> str:
    records = []
    for arg in arguments:
        siblings = arg.debate.args
        i = siblings.index(arg)
        prev_id = siblings[i - 1].arg_id if i > 0 else ""
        next_id = siblings[i + 1].arg_id if i + 1 < len(siblings) else ""
        records.append(argument_json(arg, prev_id, next_id))
    return json.dumps({"arguments": records}, indent=1, ensure_ascii=False) + "\n"


def topics_xml() -> str:
    lines = ["<topics>"]
    for t in TOPICS:
        lines += [
            "  <topic>",
            f"    <number>{t.number}</number>",
            f"    <title>{escape(t.title)}</title>",
            f"    <description>{escape(t.description)}</description>",
            f"    <narrative>{escape(t.narrative)}</narrative>",
            "  </topic>",
        ]
    lines.append("</topics>")
    return "\n".join(lines) + "\n"


def qrels(pools: dict[int, list[tuple[Argument, int]]], quality: bool) -> str:
    rows = []
    for qid in sorted(pools):
        for arg, relevance in sorted(pools[qid], key=lambda p: p[0].arg_id):
            label = arg.quality if quality else relevance
            rows.append(f"{qid} 0 {arg.arg_id} {label}")
    return "\n".join(rows) + "\n"


def readme(arguments: list[Argument], pools: dict[int, list[tuple[Argument, int]]]) -> str:
    n_topic = sum(1 for a in arguments if a.kind != "distractor")
    n_distractor = len(arguments) - n_topic
    n_debates = len({a.debate.source_id for a in arguments})
    per_topic = ", ".join(
        f"{t.number}: {sum(1 for a in arguments if a.debate.topic == t.number)}" for t in TOPICS
    )
    n_judged = sum(len(p) for p in pools.values())
    judged = ", ".join(str(len(pools[t.number])) for t in TOPICS)
    return "\n".join(
        [
            "# Demo collection",
            "A small test collection for Touché Task 1 (argument retrieval) made for this project: "
            "corpus, topics and judgments in the official formats, for tests, examples and quick runs.",
            "All texts are original, written for this project; nothing is copied from args.me or any other source.",
            f"Regenerate with `python demo/make_demo.py` (stdlib only, fixed seed {SEED}, "
            "byte-for-byte reproducible).",
            f"- `args.me/args-demo.json`: {len(arguments)} arguments from {n_debates} debates in the args.me "
            f"2020-04-01 JSON format; {n_topic} on the six topics (per topic {per_topic}) "
            f"and {n_distractor} distractors.",
            "- `topics.xml`: 6 topics (school uniforms, nuclear energy, four-day week, banning homework, zoos, "
            "basic income).",
            f"- `qrels-relevance.txt`: {n_judged} judgments, labels -2 (spam), 0, 1, 2; judged per topic: {judged}.",
            f"- `qrels-quality.txt`: the same {n_judged} pairs with quality labels 0, 1, 2.",
            "Labels follow from how each argument was generated (on-topic, tangential, bare claim, "
            "procedural, spam, distractor); they are not human assessments.",
            "Distractors on other subjects (energy drinks, school lunches, football kits, pets, ...) "
            "share vocabulary with the topics.",
        ]
    ) + "\n"


# --------------------------------------------------------------------------
# Checks and entry point
# --------------------------------------------------------------------------


def validate(corpus_text: str, relevance_text: str, quality_text: str) -> None:
    """Fail loudly if the written files break the promised invariants."""
    data = json.loads(corpus_text)
    ids = [a["id"] for a in data["arguments"]]
    assert len(ids) == len(set(ids)), "duplicate argument ids"
    for a in data["arguments"]:
        assert ID_RE.match(a["id"]), a["id"]
        assert a["id"][1:9] == a["context"]["sourceId"], a["id"]
        assert a["premises"][0]["stance"] in ("PRO", "CON")
    assert 300 <= len(ids) <= 400, len(ids)
    assert len(corpus_text.encode("utf-8")) < MAX_JSON_BYTES
    known = set(ids)
    for text, labels in ((relevance_text, {-2, 0, 1, 2}), (quality_text, {0, 1, 2})):
        seen = set()
        for line in text.splitlines():
            qid, zero, docid, label = line.split(" ")
            assert zero == "0" and docid in known and int(label) in labels, line
            assert 1 <= int(qid) <= len(TOPICS), line
            assert (qid, docid) not in seen, line
            seen.add((qid, docid))


def main() -> int:
    generator = Generator(SEED)
    arguments = generator.build()
    pools = generator.judgments(arguments)

    corpus_text = corpus_json(arguments)
    relevance_text = qrels(pools, quality=False)
    quality_text = qrels(pools, quality=True)
    validate(corpus_text, relevance_text, quality_text)

    (OUT_DIR / "args.me").mkdir(parents=True, exist_ok=True)
    outputs = {
        "args.me/args-demo.json": corpus_text,
        "topics.xml": topics_xml(),
        "qrels-relevance.txt": relevance_text,
        "qrels-quality.txt": quality_text,
        "README.md": readme(arguments, pools),
    }
    for name, text in outputs.items():
        (OUT_DIR / name).write_text(text, encoding="utf-8")
        print(f"wrote {OUT_DIR / name} ({len(text.encode('utf-8'))} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
