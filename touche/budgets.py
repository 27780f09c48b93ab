"""How much of an input a reader takes in at once, in one place: every reader of a file a user gives
refuses what lies beyond its budget, naming the file and the record, before it costs the memory or
the time (docs/reliability.md, "Every reader has a budget").

Why: a 200 KB args.me file of 100,000 nested arrays grew to 23 GB (the JSON parser's memory grows
with the square of the depth), and a 485 KB ``.warc.gz`` holding one 200 MB response record went
past 5 GB in 45 s, read whole before any cap applied. A real record is far below each budget; a
user with a larger one raises ``TOUCHE_MAX_RECORD_MB``.
"""
from __future__ import annotations

from touche.settings import setting

# Arrays and objects inside one another (JSON records, YAML documents): args.me nests four deep,
# a configuration a few levels; a deeper one is a bomb, not a record.
MAX_NESTING = 64

# One record of a corpus (an args.me argument, a passage's line, a row of the 2022 sentence CSV, a
# WARC record's block, an image's page file): TOUCHE_MAX_RECORD_MB, 32 unless set (settings.py).
# The longest args.me argument (a debate page with its source text) and ClueWeb12 page are a few MB.
# Values inside one Python-literal cell of the 2022 CSV (its premises and sentence lists), counted
# by their separators before ast parses them: a real argument has a few thousand; ast holds each
# as an object of ~100 bytes, so a 32 MB cell of "[0,0,…]" would take gigabytes.
MAX_LITERAL_VALUES = 1_000_000

# A run, qrels or topics input given as a pipe (``<(cat run.txt)``, a FIFO) is held in memory to
# be read once: a run of 1,000 topics × 1,000 rows is ~80 MB.
MAX_STREAM_BYTES = 512 * 2**20
READ_CHUNK = 1 << 20  # bytes read at a time where a reader streams

# YAML (variants, suites, sweeps, --set values): configs are a few hundred nodes. Nodes count after
# aliases are expanded (72 aliases nesting nine lists nine deep ran 90 s and 2.4 GB under the alias
# cap alone); nesting deeper than MAX_YAML_DEPTH was a RecursionError; a 3 MB list ran 120 s before
# anything was checked.
MAX_YAML_BYTES = 1_000_000
MAX_YAML_NODES = 20_000
MAX_YAML_DEPTH = MAX_NESTING
MAX_ALIASES = 100  # a config needs a few; billion-laughs documents need thousands
MAX_INT_DIGITS = 100  # int() of thousands of digits is a ValueError (and slow)


def max_record_bytes() -> int:
    """The budget of one corpus record, in bytes (``TOUCHE_MAX_RECORD_MB``)."""
    return setting("TOUCHE_MAX_RECORD_MB") * 2**20


def record_too_large(size: int | str, unit: str = "record") -> str:
    """The words of a refusal: a ``unit`` of ``size`` bytes (or more) beyond the budget."""
    shown = f"{size:,} bytes" if isinstance(size, int) else size
    return (f"the {unit} holds {shown}, beyond the budget of {setting('TOUCHE_MAX_RECORD_MB')} MB a record "
            "(TOUCHE_MAX_RECORD_MB raises it; no real record comes near)")
