"""Every corpus reader has a budget (touche/budgets.py): a record beyond TOUCHE_MAX_RECORD_MB, or
JSON nested deeper than MAX_NESTING, is refused naming the file and the record before it is held
whole; a record within it is read as before; where the format lets a reader go on past it, the
record is a bad record that --skip-bad-records counts and skips. The memory each takes on the
issue's inputs (a 200 KB args.me file of 100,000 nested arrays, a 485 KB .warc.gz of one 200 MB
record …) is measured by ``python -m bench.budgets``, not here."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from touche import budgets
from touche.errors import EnvironmentProblem, InputError
from touche.indexing import images
from touche.indexing.argsme import read_arguments
from touche.indexing.beir import read_corpus
from touche.indexing.clueweb import ClueWebSource, write_warc
from touche.indexing.passages import read_passages
from touche.indexing.sentences import read_sentence_csv

MB = 2**20
DEMO = Path(__file__).resolve().parents[2] / "demo" / "images"


@pytest.fixture(autouse=True)
def one_mb(monkeypatch):
    monkeypatch.setenv("TOUCHE_MAX_RECORD_MB", "1")


def _argument(rid: str, conclusion: str = "c", annotations: str = "[]") -> str:
    return (f'{{"id": "{rid}", "conclusion": "{conclusion}", "premises": [{{"text": "t", "stance": "PRO", '
            f'"annotations": {annotations}}}]}}')


def _argsme(path: Path, *arguments: str) -> Path:
    path.write_text('{"arguments": [' + ", ".join(arguments) + "]}")
    return path


def test_the_record_budget_is_a_setting_of_whole_megabytes(monkeypatch):
    assert budgets.max_record_bytes() == MB
    monkeypatch.setenv("TOUCHE_MAX_RECORD_MB", "0.5")
    with pytest.raises(EnvironmentProblem, match="TOUCHE_MAX_RECORD_MB"):
        budgets.max_record_bytes()
    monkeypatch.delenv("TOUCHE_MAX_RECORD_MB")
    assert budgets.max_record_bytes() == 32 * MB


# ---------------------------------------------------------------- args.me JSON: depth and size
@pytest.mark.parametrize("extra", [0, 1])
def test_args_me_nesting_is_read_to_the_budgets_depth_and_refused_one_deeper(tmp_path, extra):
    """{arguments: [{premises: [{annotations: …}]}]}: the file's object, the array, the argument,
    premises and a premise are five levels; annotations nest the rest to MAX_NESTING (+1)."""
    inner = budgets.MAX_NESTING - 5 + extra
    path = _argsme(tmp_path / "a.json", _argument("S1-A1"), _argument("S1-A2", annotations="[" * inner + "]" * inner))
    if not extra:
        assert [a.id for a in read_arguments(path)] == ["S1-A1", "S1-A2"]
        return
    with pytest.raises(InputError) as refused:
        list(read_arguments(path, skip_bad_records=True))
    assert f"{path}, argument #2 (1-based), after id 'S1-A1'" in str(refused.value)
    assert f"more than {budgets.MAX_NESTING} deep" in str(refused.value)


def test_nesting_anywhere_in_an_args_me_file_is_refused_before_it_is_built(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"arguments": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    with pytest.raises(InputError, match=r"argument #1 \(1-based\): the argument nests"):
        list(read_arguments(path))
    path.write_text('{"other": ' + "[" * 100 + "]" * 100 + ', "arguments": []}')
    with pytest.raises(InputError, match="nests arrays and objects more than 64 deep"):
        list(read_arguments(path))


def test_an_args_me_argument_beyond_the_budget_is_refused_and_one_within_is_read(tmp_path):
    within = _argsme(tmp_path / "a.json", _argument("S1-A1", "x" * (MB - 200)), _argument("S1-A2"))
    assert [len(a.conclusion) for a in read_arguments(within)] == [MB - 200, 1]
    beyond = _argsme(tmp_path / "b.json", _argument("S1-A1"), _argument("S1-A2", "x" * 3 * MB), _argument("S1-A3"))
    with pytest.raises(InputError) as refused:
        list(read_arguments(beyond, skip_bad_records=True))
    message = str(refused.value)
    assert f"{beyond}, argument #2 (1-based), after id 'S1-A1'" in message and "beyond the budget of 1 MB" in message
    assert "TOUCHE_MAX_RECORD_MB" in message and "cannot be skipped" in message


# ---------------------------------------------------------------- line-based readers: passages and BEIR
@settings(max_examples=12, deadline=None)
@given(st.integers(-3, 3), st.booleans())
def test_a_passage_line_at_the_budget_is_read_and_one_beyond_is_a_bad_record(tmp_path_factory, offset, compress):
    folder = tmp_path_factory.mktemp("p")
    head = '{"id": "clueweb12-0000tw-00-00000___1", "contents": "'
    line = head + "x" * (MB - len(head) - 2 + offset) + '"}'  # MB + offset characters without its newline
    text = f'{line}\n{{"id": "clueweb12-0000tw-00-00000___2", "contents": "y"}}\n'
    path = folder / ("p.jsonl.gz" if compress else "p.jsonl")
    path.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    if offset <= 0:
        assert [p.id[-1] for p in read_passages([path])] == ["1", "2"]
        return
    with pytest.raises(InputError, match=rf"{path.name}, line 1: the line holds more than {MB:,} characters"):
        list(read_passages([path]))
    from touche.indexing.argsme import ReadReport
    report = ReadReport()
    assert [p.id[-1] for p in read_passages([path], skip_bad_records=True, report=report)] == ["2"]
    assert report.skipped == 1 and report.first_skipped[0].index == 1


def test_a_beir_line_beyond_the_budget_is_a_bad_record_the_next_line_keeps_its_number(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"_id": "a", "title": "t", "text": "' + "x" * 2 * MB + '"}\n\n{"_id": "b", "text": ['
                    + "[" * 5000 + "]" * 5000 + ']}\n{"_id": "c", "title": "t", "text": "u"}\n')
    with pytest.raises(InputError, match=r"line 1: the line holds more than"):
        list(read_corpus(path))
    from touche.indexing.argsme import ReadReport
    report = ReadReport()
    assert [a.id for a in read_corpus(path, skip_bad_records=True, report=report)] == ["c"]
    assert [s.index for s in report.first_skipped] == [1, 3] and "nested too deeply" in report.first_skipped[1].reason


# ---------------------------------------------------------------- the 2022 CSV
def _csv(path: Path, *rows: str) -> Path:
    path.write_text("id,conclusion,premises,context,sentences\n" + "".join(rows))
    return path


def test_a_csv_row_beyond_the_budget_is_refused_naming_its_line_a_row_within_is_read(tmp_path):
    within = _csv(tmp_path / "a.csv", f'S1-A1,"{"c" * (MB - 100)}",,,\n', "S1-A2,d,,,\n")
    assert [r.id for r in read_sentence_csv([within])] == ["S1-A1", "S1-A2"]
    for rows in ([f'S1-A1,c,,,\nS1-A2,"{"x" * 2 * MB}",,,\n'],  # one line
                 ['S1-A1,c,,,\nS1-A2,"' + "x\n" * MB + '",,,\n']):  # one quoted cell over many lines
        beyond = _csv(tmp_path / "b.csv", *rows)
        with pytest.raises(InputError, match=r"b.csv, line \d+, argument #2 \(1-based\): the row holds more than"):
            list(read_sentence_csv([beyond], skip_bad_records=True))
    header = tmp_path / "h.csv"
    header.write_text("id," + "x" * 2 * MB + "\n")
    with pytest.raises(InputError, match="line 1: not a readable CSV header: the header holds more than"):
        list(read_sentence_csv([header]))


def test_a_python_literal_cell_of_too_many_values_is_a_bad_record(tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_MAX_RECORD_MB", "4")  # the row is within it: its values are not
    values = "[" + "0," * budgets.MAX_LITERAL_VALUES + "0,0]"
    path = _csv(tmp_path / "a.csv", f'S1-A1,c,"{values}",,\n', "S1-A2,d,,,\n")
    with pytest.raises(InputError, match=r"'premises' holds more than 1,000,000 values"):
        list(read_sentence_csv([path]))
    assert [r.id for r in read_sentence_csv([path], skip_bad_records=True)] == ["S1-A2"]
    at_most = _csv(tmp_path / "b.csv", f'S1-A1,c,"[{"0," * (budgets.MAX_LITERAL_VALUES - 1)}0]",,\n')
    with pytest.raises(InputError, match="premise #1 must be a dict"):  # counted within: parsed, then judged
        list(read_sentence_csv([at_most]))



@pytest.mark.parametrize("over", [0, 1])
def test_a_csv_header_or_row_of_exactly_the_budget_is_read_and_one_more_character_is_refused(tmp_path, over):
    """The budget counts every character of a row (its newline too), over all the lines a quoted
    cell spans, from the row's first line: the header's, and each row's since the last ended."""
    columns = "id,conclusion,premises,context,sentences,"
    header = tmp_path / "h.csv"
    header.write_text(columns + "x" * (MB - len(columns) - 1 + over) + "\nS1-A1,c,,,\n")
    first, head = "S1-A1,c,,,\n", 'S1-A2,"'
    cell = ("y" * 1023 + "\n") * 1000
    cell += "y" * (MB - len(head) - len(cell) - len('",,,\n') + over)
    rows = _csv(tmp_path / "r.csv", first, head + cell + '",,,\n', "S1-A3,d,,,\n")
    assert len(head + cell + '",,,\n') == MB + over
    if not over:
        assert [r.id for r in read_sentence_csv([header])] == ["S1-A1"]
        # the cell's 1,000 newlines became spaces: its length is the row's less 'S1-A2,"' and '",,,\\n'
        assert [len(r.argument.conclusion) for r in read_sentence_csv([rows])] == [1, MB - 12, 1]
        return
    with pytest.raises(InputError, match=rf"h.csv, line 1: not a readable CSV header: the header holds more than "
                                         rf"{MB + 1:,} characters"):
        list(read_sentence_csv([header]))
    with pytest.raises(InputError, match=rf"r.csv, line 3, argument #2 \(1-based\): the row holds more than "
                                         rf"{MB + 1:,} characters"):
        list(read_sentence_csv([rows]))


def test_a_python_literal_cell_is_counted_by_its_commas_and_colons(tmp_path, monkeypatch):
    from touche.indexing import sentences
    monkeypatch.setattr(sentences, "MAX_LITERAL_VALUES", 3)
    at_most = _csv(tmp_path / "a.csv", "S1-A1,c,,\"{'sourceId': 'a', 'topic': 't'}\",\n")  # 1 comma, 2 colons
    assert [r.argument.discussion_title for r in read_sentence_csv([at_most])] == ["t"]
    beyond = _csv(tmp_path / "b.csv", "S1-A1,c,,\"{'sourceId': 'a', 'topic': 't:'}\",\n")
    with pytest.raises(InputError, match=r"b.csv, line 2, argument #1 \(1-based\), id 'S1-A1': 'context' holds more "
                                         r"than 3 values \(counted by its separators\)"):
        list(read_sentence_csv([beyond]))


# ---------------------------------------------------------------- WARC records
def test_a_warc_record_beyond_the_budget_is_a_bad_record_never_read_and_the_next_is_read(tmp_path):
    path = tmp_path / "00.warc.gz"
    write_warc(path, [("clueweb12-0000tw-00-00001", "http://a", b"<p>" + b"a" * 2 * MB + b"</p>"),
                      ("clueweb12-0000tw-00-00002", "http://b", b"<p>within the budget</p>"),
                      ("clueweb12-0000tw-00-00003", "http://c", b"<p>" + b"c" * (MB - 500) + b"</p>")])
    with pytest.raises(InputError, match=r"response record #1 \(1-based\): the response record holds 2,097,"):
        list(ClueWebSource(path, workers=1).records())
    source = ClueWebSource(path, workers=1, skip_bad_records=True)
    assert [d.id[-1] for d in source.records()] == ["2", "3"] and source.report.skipped == 1


# ---------------------------------------------------------------- an image's files
def _image(tmp_path: Path) -> Path:
    source = images.image_dirs(images.collection_root(DEMO))[0]
    target = tmp_path / "images" / "I01" / "I0123456789abcdef"
    shutil.copytree(source, target)
    return target


@pytest.mark.parametrize("name", ["snapshot/dom.html", "snapshot/image-xpath.txt", "rankings.jsonl", "page-url.txt"])
def test_an_image_file_beyond_the_budget_makes_a_bad_record_naming_it(tmp_path, name):
    folder = _image(tmp_path)
    page = next(folder.glob("pages/*"))
    (page / name).parent.mkdir(exist_ok=True)
    (page / name).write_text("a" * (MB + 1))
    with pytest.raises(InputError, match=rf"{name}: the file holds more than {MB:,}"):
        list(images.ImageSource(tmp_path).records())
    source = images.ImageSource(tmp_path, skip_bad_records=True)
    assert list(source.records()) == [] and source.report.skipped == 1
    (page / name).write_text("" if name != "rankings.jsonl" else json.dumps({"topic": "1", "rank": 1}) + "\n")
    assert len(list(images.ImageSource(tmp_path).records())) == 1


# ---------------------------------------------------------------- the pieces
@given(st.text(alphabet="ab\n", max_size=60), st.integers(1, 8))
def test_bounded_lines_never_hold_more_than_the_limit_and_keep_line_numbers(text, limit):
    import io
    got = list(budgets.bounded_lines(io.StringIO(text), limit))
    assert len(got) == len(io.StringIO(text).readlines())
    for (line, whole), real in zip(got, io.StringIO(text).readlines()):
        assert whole == (len(real.rstrip("\n")) <= limit or len(real) <= limit)
        assert line == real if whole else line == real[:limit]


def test_a_counted_reader_refuses_a_record_past_its_budget_and_restarts_at_a_boundary():
    import io
    chunk = budgets.READ_CHUNK
    counted = budgets.CountedReader(io.BytesIO(b"x" * (5 * chunk)), chunk)
    assert len(counted.read(chunk)) == chunk and counted.read(0) == b""
    counted.boundary()  # from here: the budget and one chunk a parser reads ahead
    assert len(counted.read(10 * chunk)) == chunk  # one chunk at most, however much is asked
    assert len(counted.read(chunk)) == chunk
    with pytest.raises(budgets.OverBudget) as over:
        counted.read(chunk)
    assert over.value.size == 3 * chunk and counted.tell() == 4 * chunk and over.value.args == (3 * chunk,)



class _Reads:
    """A reader that hands out at most ``most`` items a read and records each request with what it
    had handed out before it."""

    def __init__(self, data, most: int):
        self.data, self.most, self.handed, self.asked = data, most, 0, []

    def read(self, size: int):
        self.asked.append((size, self.handed))
        piece = self.data[self.handed:self.handed + min(size, self.most)]
        self.handed += len(piece)
        return piece


@pytest.mark.parametrize("text", [False, True])
@pytest.mark.parametrize("extra", [-10, -1, 0, 1, 2, 5000])
@pytest.mark.parametrize("most", [1, 3, 1 << 30])
def test_a_record_is_read_to_one_past_its_budget_and_never_further(text, extra, most, monkeypatch):
    """A record within the budget is read whole, a larger one to budget + 1 (which says it is over),
    in chunks of at most READ_CHUNK, each asking for a whole chunk or all the budget has left."""
    monkeypatch.setattr(budgets, "READ_CHUNK", 4)
    limit = 10 if most != 3 else 2  # a budget of more chunks than one, and one below a chunk
    data = ("x" if text else b"x") * max(0, limit + extra)
    reader = _Reads(data, most)
    got = budgets.read_within(reader, limit)
    assert type(got) is type(data) and got == data[:limit + 1]
    assert reader.handed == min(len(data), limit + 1)
    # each read asks for all it may, and no more: a chunk, or what the budget has left
    assert all(size == min(4, limit + 1 - before) for size, before in reader.asked)


def test_a_pipe_is_held_to_512_mb_and_refused_at_the_first_chunk_past_it(monkeypatch):
    """An input given as a pipe is held in memory to be read once (touche/sources.py): 512 MB, read
    a chunk at a time, refused at the chunk that passes it, never read further. The stand-in pipe
    hands out one chunk object again and again, so the test holds 1 MB, not 512."""
    from touche import sources
    chunk = b"x" * budgets.READ_CHUNK
    reads: list[int] = []

    class EndlessPipe:
        def __enter__(self):
            return self

        def __exit__(self, *failure):
            return False

        def read(self, size: int) -> bytes:
            reads.append(size)
            return chunk
    monkeypatch.setattr(sources, "open", lambda path, mode: EndlessPipe(), raising=False)
    with pytest.raises(InputError, match=r"^p: the run given as a pipe holds more than 512 MB, which is held in memory "
                                         r"to be read once: write it to a file and give that"):
        sources._drain("p", "run")
    assert reads == [2**20] * (512 + 1)
