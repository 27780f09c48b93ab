"""Our demo collection in the Touché Task 1 2022 format: sentence CSV and pair judgments.

    python demo/pairs/make_pairs_demo.py        # from the repository root, inside the venv

Reads ``demo/args.me/args-demo.json`` (written for this project, see demo/README.md), splits
it with our offline Punkt model (``stemming/sentences.py``) and writes, byte-for-byte
reproducibly:

* ``args-sentences-demo.csv``: the 2022 CSV (``id, conclusion, premises, context,
  sentences``, Python literals). As in the 2022 corpus, very short conclusions (fewer than
  ``SHORT_CONCLUSION`` words) are left out of the sentence list; ``<argid>__CONC__1`` still
  names them.
* ``qrels-relevance.txt`` / ``qrels-quality.txt``: pair judgments ``qid 0 sid1,sid2 label``
  for the within-argument pairs of every judged argument (its conclusion with each premise
  sentence, and adjacent premise sentences), labelled with the argument's own relevance and
  quality label from ``demo/qrels-*.txt``. Like the demo's labels they follow from how the
  arguments were generated; they are not human assessments. Cross-argument pairs are unjudged.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent
sys.path.insert(0, str(DEMO.parent))  # run as a script from anywhere

from touche.indexing.argsme import read_arguments  # noqa: E402
from touche.indexing.sentences import CONCLUSION, SentencedArgument, split_argument, write_sentence_csv  # noqa: E402

SHORT_CONCLUSION = 5  # words; our choice for the demo (the organisers' threshold is not published)
CSV_NAME = "args-sentences-demo.csv"


def read_argument_qrels(path: Path) -> dict[str, list[tuple[str, str]]]:
    """argument id → [(qid, label)] of the demo's argument-level judgments."""
    judged: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            qid, _, docid, label = line.split()
            judged[docid].append((qid, label))
    return judged


def judged_pairs(record: SentencedArgument) -> list[str]:
    """The within-argument pairs our pipeline builds: conclusion + premise, adjacent premises."""
    conclusions = [s for s in record.sentences if s.role == CONCLUSION]
    premises = [s for s in record.sentences if s.role != CONCLUSION]
    pairs = [f"{conclusions[0].id},{p.id}" for p in premises] if conclusions else []
    pairs += [f"{a.id},{b.id}" for a, b in zip(premises, premises[1:])]
    return pairs


def pair_qrels(records: list[SentencedArgument], judged: dict[str, list[tuple[str, str]]]) -> str:
    lines = []
    for record in records:
        for qid, label in judged.get(record.id, []):
            lines += [(int(qid), pair, label) for pair in judged_pairs(record)]
    lines.sort()
    return "".join(f"{qid} 0 {pair} {label}\n" for qid, pair, label in lines)


def main() -> int:
    records = [split_argument(a) for a in read_arguments(DEMO / "args.me" / "args-demo.json")]
    count = write_sentence_csv(records, HERE / CSV_NAME, omit_conclusions_below=SHORT_CONCLUSION)
    for kind in ("relevance", "quality"):
        text = pair_qrels(records, read_argument_qrels(DEMO / f"qrels-{kind}.txt"))
        (HERE / f"qrels-{kind}.txt").write_text(text, encoding="utf-8")
    sentences = sum(len(r.sentences) for r in records)
    print(f"wrote {HERE / CSV_NAME}: {count} arguments, {sentences} sentences; "
          f"pair qrels: {len(text.splitlines())} judgments each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
