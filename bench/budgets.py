"""Every reader within its budget (touche/budgets.py): peak memory and time of each corpus reader on
adversarial inputs a few hundred KB large (docs/reliability.md, "Every reader has a budget"):

    python -m bench.budgets [--size-mb 200] [--keep]

Each input is written into a temporary folder and read by the toolkit's own reader in a child
process (``bench.measure``: wall time and peak resident set from the kernel); the reader must
refuse it with a located error, and its peak must stay near an interpreter's with the reader's
imports. Before the budgets, the first args.me input grew past 23 GB and the WARC one past 5 GB.
A last row reads the real args.me sample (../shared) for the cost of the checks on a real file.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import zlib
from pathlib import Path

from bench.measure import StepFailed, run_measured
from touche.paths import shared_touche_dir

MB = 2**20


def _gzip_stream(path: Path, head: bytes, filler: bytes, count: int, tail: bytes) -> None:
    """A gzip file of ``head`` + ``filler`` × ``count`` + ``tail``, written without holding it."""
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(head)
        for _ in range(count):
            out.write(filler)
        out.write(tail)


def _warc(path: Path, size: int) -> None:
    """One gzip-compressed WARC response record whose block is ``size`` bytes of HTML."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>"
    block_size = size
    head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: clueweb12-0000tw-00-00000\r\n"
            b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>\r\n"
            b"Content-Type: application/http; msgtype=response\r\n"
            + f"Content-Length: {block_size}\r\n\r\n".encode() + http)
    body = block_size - len(http) - len(b"</body></html>")
    chunk = b"<p>a</p>" * (MB // 8)
    compressor, out = zlib.compressobj(9, zlib.DEFLATED, 31), open(path, "wb")
    with out:
        out.write(compressor.compress(head))
        for _ in range(body // len(chunk)):
            out.write(compressor.compress(chunk))
        out.write(compressor.compress(b"a" * (body % len(chunk)) + b"</body></html>\r\n\r\n"))
        out.write(compressor.flush())


def inputs(folder: Path, size_mb: int) -> list[tuple[str, str, Path]]:
    """(what, reader, path) of each adversarial input."""
    made = []
    deep = folder / "deep" / "args.json"
    deep.parent.mkdir()
    deep.write_text('{"arguments": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    made.append(("args.me: 100,000 nested arrays", "argsme", deep))
    premises = folder / "premises" / "args.json"
    premises.parent.mkdir()
    premises.write_text('{"arguments": [{"id": "S1-A1", "conclusion": "c", "premises": [{"text": "t", "annotations": '
                        + "[" * 100_000 + "]" * 100_000 + "}]}]}")
    made.append(("args.me: 100,000 arrays inside premises", "argsme", premises))
    string = folder / "string" / "args.json"
    string.parent.mkdir()
    with open(string, "w") as out:
        out.write('{"arguments": [{"id": "S1-A1", "conclusion": "')
        for _ in range(size_mb):
            out.write("a" * MB)
        out.write('", "premises": []}]}')
    made.append((f"args.me: one {size_mb} MB conclusion", "argsme", string))
    warc = folder / "warc" / "00.warc.gz"
    warc.parent.mkdir()
    _warc(warc, size_mb * MB)
    made.append((f"WARC: one {size_mb} MB response record", "clueweb", warc))
    passages = folder / "passages" / "p.jsonl.gz"
    passages.parent.mkdir()
    _gzip_stream(passages, b'{"id": "clueweb12-0000tw-00-00000___1", "contents": "', b"a" * MB, size_mb, b'"}\n')
    made.append((f"passages: one {size_mb} MB line (gzip)", "passages", passages))
    csv = folder / "csv" / "args.csv"
    csv.parent.mkdir()
    with open(csv, "w") as out:
        out.write("id,conclusion,premises,context,sentences\nS1-A1,c,\"")
        for _ in range(size_mb):
            out.write("a" * MB)
        out.write('",{},[]\n')
    made.append((f"2022 CSV: one {size_mb} MB cell", "csv", csv))
    literal = folder / "literal" / "args.csv"
    literal.parent.mkdir()
    literal.write_text("id,conclusion,premises,context,sentences\nS1-A1,c,\"[" + "0," * 10_000_000 + "0]\",{},[]\n")
    made.append(("2022 CSV: a 20 MB premises list of 10 million values", "csv", literal))
    return made


def read(kind: str, path: str) -> dict:
    """Read ``path`` with the toolkit's reader of ``kind``; what happened (a child's last line)."""
    from touche.errors import InputError
    from touche.indexing.argsme import read_arguments
    from touche.indexing.clueweb import ClueWebSource
    from touche.indexing.passages import read_passages
    from touche.indexing.sentences import read_sentence_csv
    readers = {"argsme": lambda p: read_arguments(p), "clueweb": lambda p: ClueWebSource(Path(p), workers=1).records(),
               "passages": lambda p: read_passages([Path(p)]), "csv": lambda p: read_sentence_csv([Path(p)])}
    try:
        count = sum(1 for _ in readers[kind](path))
    except InputError as exc:
        return {"refused": str(exc)[:300]}
    return {"read": count}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200, help="the size of each long record (default 200)")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(read(*args.child)))
        return 0
    print(f"{'input':52} {'on disk':>10} {'seconds':>8} {'peak MiB':>9}  outcome")
    with tempfile.TemporaryDirectory(prefix="touche-budgets-") as folder:
        rows = inputs(Path(folder), args.size_mb)
        sample = shared_touche_dir() / "corpora" / "argsme-2020-04-01.sample.json"
        if sample.is_file():
            rows.append(("args.me: the real 10,604-argument sample", "argsme", sample))
        failed = 0
        for what, kind, path in rows:
            try:
                done = run_measured([sys.executable, "-m", "bench.budgets", "--child", kind, str(path)], timeout=600)
                result = json.loads(done.stdout.strip().splitlines()[-1])
                outcome = f"refused: {result['refused']}" if "refused" in result else f"read {result['read']:,}"
                seconds, peak = f"{done.seconds:8.2f}", f"{done.peak_rss_mib:9.0f}"
            except StepFailed as exc:
                failed += 1
                outcome, seconds, peak = f"FAILED: {str(exc)[-300:]}", "-", "-"
            size = path.stat().st_size / MB
            print(f"{what:52} {size:9.1f}M {seconds:>8} {peak:>9}  {outcome[:160]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
