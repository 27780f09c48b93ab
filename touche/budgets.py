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


class OverBudget(Exception):
    """A record (or the text between two) beyond its budget: ``size`` bytes or characters read of it
    when it was refused."""

    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


class CountedReader:
    """A binary file read through for a streaming parser: the bytes read since the last record
    boundary (``mark``) are counted, and a read that takes them past ``limit`` raises OverBudget,
    so a parser holding a record (or one long string of it) never holds more than the budget and
    one chunk. Reads of any size are served a chunk at most."""

    def __init__(self, handle, limit: int):
        self.handle, self.limit = handle, limit
        self.position = self.mark = 0

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        data = self.handle.read(size if 0 < size <= READ_CHUNK else READ_CHUNK)
        self.position += len(data)
        if self.position - self.mark > self.limit + READ_CHUNK:
            raise OverBudget(self.position - self.mark)
        return data

    def boundary(self) -> None:
        """A record ended here: the next is counted from now."""
        self.mark = self.position

    def tell(self) -> int:
        return self.position


def read_within(handle, limit: int):
    """What ``handle.read`` gives (bytes or characters), read in chunks and never past ``limit`` + 1:
    a result longer than ``limit`` tells the caller the record is over its budget, and no more of
    it was ever held (a 200 MB WARC record is not read whole to be refused)."""
    chunk = handle.read(min(READ_CHUNK, limit + 1))
    chunks, size = [chunk], len(chunk)
    while chunk and size <= limit:
        chunk = handle.read(min(READ_CHUNK, limit + 1 - size))
        chunks.append(chunk)
        size += len(chunk)
    return chunks[0][:0].join(chunks)


def bounded_lines(handle, limit: int):
    """``(line, whole)`` of a text or binary file, each read holding at most ``limit`` + 1
    characters: a longer line comes as its first ``limit`` characters with ``whole`` False, its
    rest read past in bounded pieces (a 1 GB line without a newline is never in memory)."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        newline = "\n" if isinstance(line, str) else b"\n"
        if len(line) <= limit or line.endswith(newline):
            yield line, True
            continue
        rest = line
        while rest and not rest.endswith(newline):
            rest = handle.readline(READ_CHUNK)
        yield line[:limit], False
