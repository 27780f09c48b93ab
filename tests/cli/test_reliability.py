"""The toolkit's promises, one test each (docs/reliability.md lists them): outputs whole or absent,
results that are what they look like, bad input as located errors, nothing leaving the machine."""
from __future__ import annotations

import errno
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.retrieval.test_pipeline import SUITE
from tests.shared import REPO, cli
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.topics import read_topics


def test_second_writer_to_the_same_output_is_refused(jvm_started, fixture_corpus, tmp_path):
    from touche.folderlock import folder_lock
    out = tmp_path / "out"
    out.mkdir()
    with folder_lock(out, ".touche.lock", "held"):  # another touche process is writing there
        code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out))
    assert code == 2 and "another touche process is writing to this output directory" in text
    assert not list(out.glob("*.txt"))


def test_disk_full_while_writing_a_run_leaves_nothing_behind(jvm_started, fixture_corpus, tmp_path, monkeypatch,
                                                             index_root):
    import touche.retrieval.formats.runwriter as runwriter

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out" / "1-bm25.txt"))

    monkeypatch.setattr(runwriter, "_write_lines", full)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(index_root))
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"))
    assert code == 2 and "No space left on device" in text and "Traceback" not in text
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []  # no run, no temporary, no lock


def test_malformed_topics_in_the_input_directory(tmp_path, fixture_corpus):
    tira = tmp_path / "in"
    tira.mkdir()
    (tira / "args.json").write_text((fixture_corpus / "args-fixture.json").read_text())
    (tira / "topics.xml").write_text("<topics>\n<topic><number>1</number><title>Unclosed</topic>\n</topics>\n")
    code, text = cli("run-all", "-i", str(tira), "-o", str(tmp_path / "out"))
    assert code == 2 and str(tira / "topics.xml") in text and "line 2" in text


def test_a_tira_run_makes_no_network_call(jvm_started, fixture_corpus, tmp_path, monkeypatch, index_root):
    from touche.retrieval.suite import run_suite

    def refuse(*args, **kwargs):
        raise AssertionError(f"network call attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert run_suite(SUITE, fixture_corpus, tmp_path / "out", index_root=index_root, progress=False).run_txt.is_file()
    assert (tmp_path / "out" / "run.txt").is_file()


def test_killed_indexing_is_recovered_by_the_next_run(tmp_path):
    """kill -9 in the middle of indexing: no index passes for finished; the rerun builds it."""
    from bench.synthetic import write_corpus
    corpus = write_corpus(tmp_path / "corpus" / "args.json", n_docs=40_000, seed=3)
    root = tmp_path / "indexes"
    touche = [sys.executable, "-m", "touche", "index", "-c",
              str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"),
              "-i", str(corpus.parent), "--index-root", str(root)]
    process = subprocess.Popen(touche, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=REPO)
    deadline = time.time() + 120
    while time.time() < deadline and not list(root.glob(".argsme-*.~touche.*.tmp")):
        time.sleep(0.05)
    time.sleep(1.0)  # well into indexing
    assert process.poll() is None, "indexing finished before it could be interrupted"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert list(root.glob(".argsme-*.~touche.*.tmp")), "the half-built index stays in its temporary directory"
    assert not [p for p in root.glob("argsme-*") if p.is_dir()], "nothing was moved into place"
    rerun = subprocess.run(touche, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "documents: 40000" in rerun.stdout
    assert not list(root.glob(".argsme-*.~touche.*.tmp")), "the dead build's temporary directory was cleaned up"


# ---------------------------------------------------------------- content-keyed indexes
def test_an_index_is_keyed_by_the_contents_of_the_stoplist_it_read(jvm_started, fixture_corpus, tmp_path, index_root):
    """Two variants with 'stoplist: stop.txt' in different folders (different lists) and one
    whose list was edited get their own indexes; the same list in two places shares one."""
    from touche.config import load_variant
    from touche.indexing.builder import ensure_index

    def variant_in(folder, words):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "stop.txt").write_text("\n".join(words) + "\n")
        path = folder / "v.yaml"
        path.write_text(
            f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nanalyzer: {{stoplist: stop.txt}}\n"
        )
        return load_variant(path)

    a = variant_in(tmp_path / "a", ["the", "of"])
    b = variant_in(tmp_path / "b", ["the", "of", "uniforms"])
    same_as_a = variant_in(tmp_path / "c", ["the", "of"])
    built = {name: ensure_index(v.variant, fixture_corpus, index_root, base_dir=v.path.parent, progress=False)
             for name, v in {"a": a, "b": b, "c": same_as_a}.items()}
    assert built["a"].path != built["b"].path
    assert built["a"].path == built["c"].path
    terms = {name: info.meta["stats"]["fields"]["contents"]["total_terms"] for name, info in built.items()}
    assert terms["b"] < terms["a"]  # "uniforms" really was stopped in b's index
    (tmp_path / "a" / "stop.txt").write_text("the\nof\nuniforms\n")  # edited in place
    edited = ensure_index(a.variant, fixture_corpus, index_root, base_dir=a.path.parent, progress=False)
    assert edited.path != built["a"].path and edited.path == built["b"].path


# ---------------------------------------------------------------- invalid runs are not scored
def test_evaluate_refuses_a_run_concatenated_with_itself(tmp_path):
    """It once scored 1.314: a score above 1 must be impossible, so an invalid run is refused."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n")
    run = tmp_path / "run.txt"
    once = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n"
    run.write_text(once + once)
    code, text = cli("evaluate", str(run), str(qrels))
    assert code == 2 and "not a valid Q0 run" in text and "so not scored" in text and "Traceback" not in text
    assert f"touche validate {run}" in text
    run.write_text(once)
    code, text = cli("evaluate", str(run), str(qrels), "--measures", "touche.nDCG@5")
    assert code == 0 and "1.000" in text


# ---------------------------------------------------------------- byte-order marks and control characters
def test_a_byte_order_mark_does_not_drop_the_first_row_of_a_run_or_qrels(tmp_path):
    """A BOM once made the first row's topic '\\ufeff1': validate said valid, nDCG 0.869 not 1.000."""
    from touche.retrieval.evaluation.measures import evaluate
    from touche.retrieval.formats.gate import read_run
    from touche.retrieval.formats.runfile import RunFormat, run_file_problems

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_bytes("\ufeff1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n".encode("utf-8"))
    qrels.write_bytes("\ufeff1 0 a 2\n1 0 b 1\n2 0 c 2\n".encode("utf-8"))
    assert read_run(run)[0].qid == "1"
    assert [p for p in run_file_problems(run, RunFormat.Q0) if p.is_error] == []
    assert evaluate(run, qrels, ["touche.nDCG@5"])["touche.nDCG@5"] == 1.0


def test_a_nul_or_line_separator_in_an_id_is_an_error_naming_the_line(tmp_path):
    from touche.retrieval.formats.runfile import RunFormat, run_file_problems

    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a\x00b 1 2.0 t\n1 Q0 c\u2028d 2 1.0 t\n", encoding="utf-8")
    errors = [p for p in run_file_problems(run, RunFormat.Q0) if p.is_error]
    assert [p.line for p in errors] == [1, 2]
    assert "U+0000" in errors[0].message  # (U+2028 splits the line's columns: a column-count error)


# ---------------------------------------------------------------- ids that break formats
def test_corpus_ids_with_line_breaks_are_bad_records_that_can_be_skipped(tmp_path):
    """Ids with \\n, \\r or U+2028 once crashed the search; now the reader rejects them by record
    and --skip-bad-records skips them."""
    import json

    import pytest

    from touche.errors import InputError
    from touche.indexing.argsme import read_arguments
    from touche.indexing.passages import PassageSource

    args = tmp_path / "args.json"
    good = {"id": "S1-A1", "conclusion": "c", "premises": [{"text": "t", "stance": "PRO"}]}
    args.write_text(json.dumps({"arguments": [good] + [dict(good, id=f"S1-A2{c}x") for c in ("\n", "\r", "\u2028")]}))
    with pytest.raises(InputError, match=r"argument #2 .*U\+000A"):
        list(read_arguments(args))
    assert [a.id for a in read_arguments(args, skip_bad_records=True)] == ["S1-A1"]
    passages = tmp_path / "p.jsonl"
    passages.write_text(
        json.dumps({"id": "p1", "contents": "x"}) + "\n" + json.dumps({"id": "p\u20282", "contents": "y"}) + "\n"
    )
    with pytest.raises(InputError, match=r"line 2.*U\+2028"):
        list(PassageSource(passages).records())


# ---------------------------------------------------------------- config and CLI edges
def test_a_key_given_twice_in_a_yaml_file_is_an_error_naming_both_lines(tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: first\ntag: second\n")
    code, text = cli("analyze", "-c", str(variant), "x")
    assert code == 2 and "line 3" in text and "the key 'tag' is given twice in one mapping (first on line 2)" in text


def test_true_is_not_a_number(tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nretrieval: {{top_k: true}}\n")
    code, text = cli("analyze", "-c", str(variant), "x")
    assert code == 2 and "top_k: expected a number, not true" in text and "Traceback" not in text


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\ntag: x\nquery:\n  field_weights: *a11\n")
    started = time.perf_counter()
    code, text = cli("analyze", "-c", str(bomb), "x")
    # round 6: the expanded size is counted too, and reaches its budget before the alias cap
    assert code == 2 and ("refused as an alias bomb" in text or "(aliases expanded)" in text)
    assert time.perf_counter() - started < 10


def test_invalid_yaml_in_set_is_a_located_error():
    code, text = cli("analyze", "-c", str(REPO / "configs" / "task1" / "base.yaml"), "--set",
                     "retrieval.similarity={name: bm25, k1: [1", "x")
    assert code == 2 and "--set retrieval.similarity=" in text and "not valid YAML" in text
    assert "Traceback" not in text


def test_topic_numbers_must_be_whole_numbers_and_distinct_as_numbers(tmp_path):
    import pytest

    from touche.errors import InputError
    from touche.retrieval.formats.topics import read_topics

    for number, message in [("abc", "'abc' is not a positive whole number"), ("-5", "'-5' is not a positive"),
                            ("1.5", "'1.5' is not a positive")]:
        topics = tmp_path / f"t{number}.xml"
        topics.write_text(f"<topics><topic><number>{number}</number><title>T?</title></topic></topics>")
        with pytest.raises(InputError, match=message):
            read_topics(topics)
    twins = tmp_path / "twins.xml"
    twins.write_text("<topics>\n<topic><number>1</number><title>A?</title></topic>\n"
                     "<topic><number>01</number><title>B?</title></topic>\n</topics>")
    with pytest.raises(InputError, match="topic number 01 is topic 1 again"):
        read_topics(twins)


def test_the_contact_sheet_refuses_image_ids_that_leave_the_collection(tmp_path):
    run = tmp_path / "run.txt"
    lines = [f"1 {stance} I{k:015x}a {r} {10 - r} t" for stance, base in (("PRO", 0), ("CON", 10))
             for r, k in enumerate(range(base, base + 10), 1)]
    lines[0] = "1 PRO ../../../etc 1 10 t"
    run.write_text("\n".join(lines) + "\n")
    code, text = cli("contact-sheet", str(run), str(REPO / "demo" / "images"), str(tmp_path / "sheet.html"))
    assert code == 2 and "image id '../../../etc' is not 'I' followed by 16 hex digits" in text
    assert not (tmp_path / "sheet.html").exists()


def test_a_qrels_path_holding_an_equals_sign_is_a_path(tmp_path):
    from touche.inputs import parse_named_qrels

    assert parse_named_qrels(["runs/a=b/q.txt", "quality=runs/a=b/q2.txt", "relevance=x.txt"]) == {
        "q": Path("runs/a=b/q.txt"), "quality": Path("runs/a=b/q2.txt"),
        "relevance": Path("x.txt")}
    folder = tmp_path / "a=b"
    folder.mkdir()
    (folder / "qrels.txt").write_text("1 0 a 2\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1.0 t\n")
    code, text = cli("evaluate", str(run), str(folder / "qrels.txt"), "--measures", "touche.nDCG@5")
    assert code == 0 and "1.000" in text


def test_a_query_of_thousands_of_terms_loses_no_topic(jvm_started, fixture_corpus, tmp_path, index_root, caplog):
    """More than 1,024 distinct terms raised Lucene's TooManyClauses and ended the whole run."""
    long_title = "uniforms " + " ".join(f"word{i}" for i in range(6000))  # 6,001 distinct terms
    topics = tmp_path / "topics.xml"
    topics.write_text("<topics><topic><number>1</number><title>Should school uniforms be mandatory?</title></topic>"
                      f"<topic><number>2</number><title>{long_title}</title></topic></topics>")
    run = tmp_path / "run.txt"
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus),
                     "-t", str(topics), "-o", str(run), "--index-root", str(index_root))
    assert code == 0, text
    assert {line.split()[0] for line in run.read_text().splitlines()} == {"1", "2"}
    assert "topic 2: the query has 6001 distinct words; searched with its first 4000" in text


def test_a_full_disk_while_indexing_is_a_located_error_and_leaves_no_partial_index(jvm_started, fixture_corpus,
                                                                                   tmp_path, monkeypatch):
    """It ended in exit 4 with a 113-line Java trace."""
    import jnius

    import touche.indexing.builder as builder

    def full(*args, **kwargs):
        raise jnius.JavaException("JVM exception occurred: No space left on device", "java.io.IOException",
                                  "No space left on device", [])

    monkeypatch.setattr(builder, "_hand_over", full)
    root = tmp_path / "indexes"
    code, text = cli("index", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus), "--index-root", str(root))
    assert code == 2 and "no space left on device while writing the index" in text and "Traceback" not in text
    assert str(root) in text
    assert [p.name for p in root.iterdir() if not p.name.endswith(".lock")] == []


def test_temporaries_left_by_a_killed_writer_are_removed_by_the_next_write(tmp_path):
    """kill -9 during run writing left full-size hidden temporaries that no later run removed."""
    from touche.atomic import write_text

    gone = subprocess.Popen(["true"])
    gone.wait()  # a process id that no longer runs
    target = tmp_path / "run.txt"
    stale = tmp_path / f".run.txt.~touche.{gone.pid}.0123abcd4567.tmp"
    stale.write_bytes(b"x" * 1000)
    mine_running = tmp_path / f".run.txt.~touche.{1}.0123abcd4567.tmp"  # pid 1 runs: a live writer's file stays
    mine_running.write_bytes(b"y")
    other = tmp_path / ".other.txt.~touche.123.0123abcd4567.tmp"  # another file's temporary: not ours to judge
    other.write_bytes(b"z")
    write_text(target, "1 Q0 a 1 1.0 t\n")
    assert not stale.exists() and mine_running.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".other.txt.~touche.123.0123abcd4567.tmp",
                                                                 mine_running.name, "run.txt"])


def _interruptible() -> None:
    """The child gets SIGINT as a terminal would give it, whatever this test process (its JVM, Ray,
    earlier tests) did to its own signal mask and handlers: both are inherited across exec."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_indexing_says_what_stopped_and_leaves_no_partial_index(tmp_path):
    """The JVM used to take SIGINT: exit 130 with no word, and the partial index stayed."""
    import json

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    arguments = [{"id": f"S{i:07d}-A1", "conclusion": f"claim {i}",
                  "premises": [{"text": f"premise number {i} about uniforms and energy " * 20, "stance": "PRO"}]}
                 for i in range(80_000)]
    (corpus / "args.json").write_text(json.dumps({"arguments": arguments}))
    root = tmp_path / "indexes"
    process = subprocess.Popen([sys.executable, "-m", "touche", "index", "-c",
                                str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i", str(corpus),
                                "--index-root", str(root)], stderr=subprocess.PIPE, text=True, cwd=REPO,
                               preexec_fn=_interruptible)
    seen = ""
    while "indexing" not in seen:  # the JVM is up and documents are being indexed
        char = process.stderr.read(1)
        if not char:
            break
        seen += char
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    err = seen + process.stderr.read()
    assert process.wait(timeout=60) == 130, err[-2000:]
    assert "interrupted: touche index stopped" in err and "Traceback" not in err
    assert [p.name for p in root.iterdir() if not p.name.endswith(".lock")] == []


# ---------------------------------------------------------------- sweeps keyed by what they read
def test_a_finished_sweep_reruns_after_its_corpus_changes_and_rescores_after_its_qrels_change(jvm_started, tmp_path,
                                                                                             monkeypatch):
    """A finished sweep said '0 run now, 12 found finished' after its corpus and qrels changed."""
    import json
    import shutil

    import touche.retrieval.experiments.sweep as sweep_module
    import touche.retrieval.experiments.sweep.runners as runners
    from tests.experiments.test_sweep import CountingRuns, write_sweep

    corpus = tmp_path / "corpus"
    shutil.copytree(REPO / "demo" / "args.me", corpus)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text((REPO / "demo" / "qrels-relevance.txt").read_text())
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity.k1": [0.9, 1.2]},
                       corpus=str(corpus), qrels={"relevance": str(qrels)}, measure="relevance:touche.nDCG@5")
    first = sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False)
    assert first.computed == 2
    counting = CountingRuns(runners.run_point)
    monkeypatch.setattr(runners, "run_point", counting)
    # the qrels change: nothing is searched again, but every point is scored anew
    qrels.write_text("\n".join(line for line in qrels.read_text().splitlines() if not line.startswith("1 ")) + "\n")
    rescored = sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False)
    assert counting.keys == [] and rescored.computed == 0
    before = {r.point: r.measures["relevance:touche.nDCG@5"] for r in first.records}
    after = {r.point: r.measures["relevance:touche.nDCG@5"] for r in rescored.records}
    assert before != after
    # the corpus changes: both points run again
    demo = json.loads((corpus / "args-demo.json").read_text())
    demo["arguments"] = demo["arguments"][:-10]
    (corpus / "args-demo.json").write_text(json.dumps(demo))
    again = sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False)
    assert again.computed == 2 and len(counting.keys) == 2


def test_analyze_resolves_a_relative_stoplist_as_runs_do(tmp_path, monkeypatch):
    """`touche analyze` read a relative stoplist from the working directory, `run` from the
    variant's folder: one rule now, the variant's folder."""
    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "stop.txt").write_text("uniforms\n")
    variant = folder / "v.yaml"
    variant.write_text(
        f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nanalyzer: {{stoplist: stop.txt}}\n"
    )
    monkeypatch.chdir(tmp_path)  # no stop.txt here
    code, text = cli("analyze", "-c", str(variant), "school uniforms")
    assert code == 0 and text.strip().splitlines()[-1] == "[school]"


def test_a_stoplist_path_with_a_separator_lucene_cannot_read_is_a_located_error(tmp_path):
    folder = tmp_path / "a|b"
    folder.mkdir()
    (folder / "stop.txt").write_text("the\n")
    variant = folder / "v.yaml"
    variant.write_text(
        f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nanalyzer: {{stoplist: stop.txt}}\n"
    )
    code, text = cli("analyze", "-c", str(variant), "the school")
    assert code == 2 and "holds '|', '=' or ','" in text and "Traceback" not in text


def test_an_unwritable_output_is_found_before_any_indexing(tmp_path, fixture_corpus, monkeypatch):
    import touche.indexing.builder as builder

    monkeypatch.setattr(builder, "build_index", lambda *a, **k: (_ for _ in ()).throw(AssertionError("indexed")))
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus),
                     "-t", str(fixture_corpus / "topics.xml"), "-o", str(blocker / "run.txt"),
                     "--index-root", str(tmp_path / "idx"))
    assert code == 2 and "cannot create the output directory" in text and "indexed" not in text


def test_a_broken_jsonl_line_is_named_by_its_line_and_column(tmp_path):
    import pytest

    from touche.errors import InputError
    from touche.indexing.images import _read_rankings

    rankings = tmp_path / "rankings.jsonl"
    rankings.write_text('{"topic": 1, "query": "q", "rank": 1}\n{"topic": 2 "query": "q"}\n')
    with pytest.raises(
        InputError, match=r"rankings.jsonl, line 2: not valid JSON \(Expecting ',' delimiter at column 13\)"
    ):
        _read_rankings(rankings)


# ---------------------------------------------------------------- run-all
def test_run_all_checks_every_variant_with_its_overrides_before_running_any(tmp_path):
    """A --set that fits two variants but not the third wrote two runs, then failed blaming the YAML."""
    code, text = cli("run-all", "-o", str(tmp_path / "out"), "--suite",
                     str(REPO / "configs" / "task1" / "examples" / "suite.yaml"), "--set",
                     "retrieval.similarity.k1=1.5")
    assert code == 2 and "--set retrieval.similarity.k1=1.5: unknown key 'retrieval.similarity.k1'" in text
    assert "3-krovetz-lmdirichlet.yaml" in text
    assert not list((tmp_path / "out").glob("*.txt"))


def test_run_files_are_readable_by_everyone_the_umask_allows(jvm_started, fixture_corpus, tmp_path, index_root):
    """mkstemp made run.txt 0600: unreadable to the host's user after a Docker run."""
    import os

    old = os.umask(0o022)
    try:
        code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"), "--index-root",
                         str(index_root), "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"))
    finally:
        os.umask(old)
    assert code == 0, text
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in (tmp_path / "out").iterdir()} == {
        "1-bm25.txt": "0o644", "run.txt": "0o644", ".touche-made": "0o644"}  # the record: what run-all made there


# ================================================================ same names, stale reports, aborts
DEMO = REPO / "demo"
Q = DEMO / "qrels-relevance.txt"


def _run_file(path: Path, order: list[str], qid: str = "1") -> Path:
    """A valid Q0 run of one topic ranking ``order``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{qid} Q0 {d} {i} {100 - i} t\n" for i, d in enumerate(order, 1)))
    return path


def _judged(qid: str = "1") -> list[str]:
    """The demo's judged documents of a topic, best label first."""
    rows = [line.split() for line in Q.read_text().splitlines() if line.split()[0] == qid]
    return [d for _, _, d, _ in sorted(rows, key=lambda r: -int(r[3]))]


def test_two_runs_of_one_file_name_are_two_rows_and_one_file_twice_is_refused(tmp_path):
    judged = _judged()
    good = _run_file(tmp_path / "c1" / "run.txt", judged[:5])
    bad = _run_file(tmp_path / "st2" / "run.txt", judged[::-1][:5])
    code, text = cli("evaluate", str(good), str(Q), "--also", str(bad), "--measures", "touche.nDCG@5")
    assert code == 0, text
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if "run.txt" in line}
    assert set(rows) == {"c1/run.txt", "st2/run.txt"}
    assert rows["c1/run.txt"] != rows["st2/run.txt"].replace("st2", "c1")  # two different scores
    code, text = cli("evaluate", str(good), str(Q), "--also", str(good))
    assert code == 2 and "given twice" in text


def test_files_of_one_stem_in_one_folder_get_distinct_labels_and_the_labelling_ends(tmp_path):
    """Labelled by stem, x/qrels.txt and x/qrels.tsv clash in every folder above them: the whole
    paths tell them apart (the prepending of folders once looped forever)."""
    from touche.inputs import distinct_labels
    a, b, c = tmp_path / "x" / "qrels.txt", tmp_path / "x" / "qrels.tsv", tmp_path / "y" / "other.txt"
    labels = distinct_labels([a, b, c], label=lambda p: p.stem)
    assert labels == [str(a.resolve()), str(b.resolve()), "other"]


def test_two_qrels_of_one_name_are_two_columns_and_one_name_twice_is_refused(tmp_path):
    from touche import api
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "qrels.txt").write_text(Q.read_text())
    (tmp_path / "y" / "qrels.txt").write_text(
        "\n".join(line.replace(" 2", " 0") for line in Q.read_text().splitlines())
    )
    run = _run_file(tmp_path / "run.txt", _judged()[:5])
    code, text = cli("evaluate", str(run), str(tmp_path / "x" / "qrels.txt"), str(tmp_path / "y" / "qrels.txt"),
                     "--measures", "touche.nDCG@5")
    assert code == 0 and "x/qrels:touche.nDCG@5" in text and "y/qrels:touche.nDCG@5" in text, text
    code, text = cli("evaluate", str(run), f"relevance={Q}", f"relevance={tmp_path / 'x' / 'qrels.txt'}")
    assert code == 2 and "'relevance' is given twice" in text
    scores = api.evaluate(run, [tmp_path / "x" / "qrels.txt", tmp_path / "y" / "qrels.txt"], ["touche.nDCG@5"])
    assert set(scores) == {"x/qrels:touche.nDCG@5", "y/qrels:touche.nDCG@5"}
    assert scores["x/qrels:touche.nDCG@5"] != scores["y/qrels:touche.nDCG@5"]


def test_suite_variants_that_would_write_one_run_file_are_refused(tmp_path):
    from touche.config import load_suite
    from touche.errors import ConfigError
    for variants, primary, expected in ((["a/v.yaml", "b/v.yaml"], "a/v.yaml", "would both write v.txt"),
                                        (["p.yaml", "run.yaml"], "p.yaml", "would write run.txt")):
        suite = tmp_path / "suite.yaml"
        suite.write_text(yaml_dump({"variants": variants, "primary": primary}))
        with pytest.raises(ConfigError, match=expected):
            load_suite(suite)


def yaml_dump(data) -> str:
    import yaml
    return yaml.safe_dump(data, sort_keys=False)


def test_a_resumed_sweep_reruns_a_point_whose_fused_variant_or_model_file_changed(jvm_started, tmp_path):
    import touche.retrieval.experiments.sweep as sweep_module
    from tests.experiments.test_sweep import write_sweep
    from touche.retrieval.stages.quality.model import MODEL_FILE

    other = tmp_path / "other.yaml"
    other.write_text(yaml_dump({"extends": str(REPO / "configs" / "task1" / "base.yaml"), "tag": "other",
                                "retrieval": {"similarity": {"name": "bm25", "k1": 0.9, "b": 0.4}}}))
    model = tmp_path / "quality.json"
    model.write_text(MODEL_FILE.read_text())
    base = tmp_path / "base.yaml"
    base.write_text(yaml_dump({"extends": str(REPO / "configs" / "task1" / "base.yaml"), "tag": "fused",
                               "rerank": [{"name": "quality_model", "model": "quality.json", "weight": 0.5},
                                          {"name": "rrf", "variants": ["other.yaml"]}]}))
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity.mu": [1000]},
                       base=str(base), measure="relevance:touche.nDCG@5")
    base.write_text(
        base.read_text().replace("tag: fused", "tag: fused\nretrieval: {similarity: {name: lmdirichlet, mu: 2000}}")
    )
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 1
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 0
    other.write_text(other.read_text().replace("k1: 0.9", "k1: 2.5"))  # the fused variant changed
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 1
    data = json.loads(model.read_text())
    data["intercept"] += 1.0
    model.write_text(json.dumps(data))  # the model file changed
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 1


def test_a_run_without_qrels_removes_the_evaluation_table_of_the_runs_it_replaced(jvm_started, fixture_corpus,
                                                                                  tmp_path, index_root):
    from touche.retrieval.suite import run_suite
    out = tmp_path / "out"
    run_suite(SUITE, None, out, index_root=index_root, progress=False)
    assert (out / "evaluation.md").is_file()
    run_suite(SUITE, fixture_corpus, out, index_root=index_root, progress=False)
    assert not (out / "evaluation.md").exists()


def _argsme_with(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"arguments": records}))  # json escapes a lone surrogate as \ud800
    return path


def _argument(arg_id: str, text: str = "school uniforms help") -> dict:
    return {"id": arg_id, "conclusion": text, "premises": [{"text": text, "stance": "PRO"}], "context": {}}


def test_an_index_that_skipped_records_is_not_reused_by_a_run_that_did_not_agree(jvm_started, tmp_path):
    from touche.config import load_variant
    from touche.errors import InputError
    from touche.indexing.builder import ensure_index
    corpus = _argsme_with(tmp_path / "c" / "args.json", [_argument("Sa-A1"), {"id": 3, "conclusion": "bad"}])
    variant = REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"
    skipping = load_variant(variant, {"corpus.skip_bad_records": "true"}).variant
    assert ensure_index(skipping, corpus.parent, tmp_path / "idx", progress=False).documents == 1
    with pytest.raises(InputError, match="skipped when this index was built with --skip-bad-records"):
        ensure_index(load_variant(variant).variant, corpus.parent, tmp_path / "idx", progress=False)


def test_a_corpus_id_holding_a_lone_surrogate_is_a_bad_record(tmp_path):
    from touche.errors import InputError
    from touche.indexing.corpora import open_corpus
    corpus = _argsme_with(tmp_path / "args.json", [_argument("Sa-A1"), _argument("S\ud800x-A1")])
    with pytest.raises(InputError, match="lone surrogate escape such as"):
        list(open_corpus("argsme", corpus).documents(["contents"]))
    source = open_corpus("argsme", corpus, skip_bad_records=True)
    assert [d for d, _, _ in source.documents(["contents"])] == ["Sa-A1"] and source.report.skipped == 1
    passages = tmp_path / "passages.jsonl"  # read by the json module: the surrogate itself arrives
    passages.write_text(json.dumps({"id": "clueweb12-\ud800___1", "contents": "x", "chatNoirUrl": "u"}) + "\n")
    with pytest.raises(InputError, match="lone surrogate U\\+D800"):
        list(open_corpus("passages", passages).documents(["contents"]))


def test_choose_checks_the_count_before_writing_anything(tmp_path):
    from touche.errors import ToucheError
    from touche.retrieval.experiments.choose.picks import choose
    for count in (50, 0, -1):
        with pytest.raises(ToucheError, match="between 1 and 5"):
            choose(tmp_path / "no-sweep", tmp_path / f"out{count}", count=count)
        assert not (tmp_path / f"out{count}").exists()


@pytest.mark.parametrize("args", [("--depth", "0"), ("--measures", "nDCG@0"), ("--measures", "touche.nDCG@0"),
                                  ("--measures", "Judged@0"), ("--measures", "P@-1")])
def test_a_cut_off_of_zero_is_an_error_not_an_abort(tmp_path, args):
    run = _run_file(tmp_path / "run.txt", _judged()[:5])
    # in a child process: pytrec_eval's abort would take the test session with it
    done = subprocess.run([sys.executable, "-m", "touche", "evaluate", str(run), str(Q), *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2 and "positive whole number" in done.stderr, done.stderr


def test_cut_offs_are_checked_in_compare_and_the_api_too(tmp_path):
    from touche import api
    from touche.errors import ToucheError
    run = _run_file(tmp_path / "run.txt", _judged()[:5])
    code, text = cli("compare", str(run), str(run), str(Q), "--measure", "trec.P@0")
    assert code == 2 and "positive whole number" in text
    frame = api.frame_of_rows(read_run(run))
    for measures in (["P@0"], ["Judged@0"]):
        with pytest.raises(ToucheError, match="positive whole number"):
            api.evaluate(frame, Q, measures)


def test_a_stoplist_that_is_not_utf8_is_a_located_error(tmp_path):
    variant = tmp_path / "v.yaml"
    (tmp_path / "stop.txt").write_bytes("the\nf\xfcr\n".encode("latin-1"))
    variant.write_text(yaml_dump({"extends": str(REPO / "configs" / "task1" / "base.yaml"), "tag": "t",
                                  "analyzer": {"stoplist": "stop.txt"}}))
    code, text = cli("analyze", "-c", str(variant), "für the school")
    assert code == 2 and str(tmp_path / "stop.txt") in text and "offset 5" in text and "line 2" in text, text


def test_fusion_cycles_are_named_by_their_files_and_long_extends_chains_load(tmp_path):
    from touche.config import load_variant
    from touche.errors import ConfigError
    from touche.retrieval.fingerprint import check_fusion_cycles
    base = str(REPO / "configs" / "task1" / "base.yaml")
    (tmp_path / "self.yaml").write_text(yaml_dump({"extends": base, "tag": "s", "rerank": [
        {"name": "rrf", "variants": ["self.yaml"]}]}))
    (tmp_path / "a.yaml").write_text(yaml_dump({"extends": base, "tag": "a", "rerank": [
        {"name": "rrf", "variants": ["b.yaml"]}]}))
    (tmp_path / "b.yaml").write_text(yaml_dump({"extends": base, "tag": "b", "rerank": [
        {"name": "rrf", "variants": ["a.yaml"]}]}))
    with pytest.raises(ConfigError, match="cycle: self.yaml → self.yaml"):
        check_fusion_cycles(load_variant(tmp_path / "self.yaml"))
    with pytest.raises(ConfigError, match="cycle: a.yaml → b.yaml → a.yaml"):
        check_fusion_cycles(load_variant(tmp_path / "a.yaml"))
    code, text = cli("run", "-c", str(tmp_path / "a.yaml"), "-i", str(DEMO / "args.me"), "-t",
                     str(DEMO / "topics.xml"), "-o", str(tmp_path / "run.txt"))
    assert code == 2 and "a.yaml → b.yaml → a.yaml" in text and "Recursion" not in text
    previous = base
    for level in range(1500):
        path = tmp_path / f"chain-{level}.yaml"
        path.write_text(f"extends: {previous}\ntag: level-{level}\n")
        previous = str(path)
    assert load_variant(previous).variant.tag == "level-1499"


def test_compare_on_one_topic_and_with_no_resamples_says_so(tmp_path):
    run_a = _run_file(tmp_path / "a.txt", _judged()[:5])
    run_b = _run_file(tmp_path / "b.txt", _judged()[::-1][:5])
    code, text = cli("compare", str(run_a), str(run_b), str(Q))
    assert code == 0 and "needs two or more common topics" in text and "Traceback" not in text
    for resamples in ("0", "-3"):
        code, text = cli("compare", str(run_a), str(run_b), str(Q), "--resamples", resamples)
        assert code == 2 and "at least one resample" in text


def test_a_failed_write_names_the_run_file(jvm_started, fixture_corpus, tmp_path, monkeypatch, index_root):
    import touche.retrieval.formats.runwriter as runwriter

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")  # as a write or flush raises it: no file

    monkeypatch.setattr(runwriter, "_write_lines", full)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(index_root))
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"))
    assert code == 2 and "No space left on device" in text and str(tmp_path / "out") in text and ".txt" in text


def test_topic_ids_that_are_the_same_number_are_matched_and_disjoint_ones_warned_about(tmp_path, caplog):
    from touche import api
    judged = _judged()[:5]
    plain = _run_file(tmp_path / "plain.txt", judged)
    padded = _run_file(tmp_path / "padded.txt", judged, qid="001")
    score = api.evaluate(plain, Q, ["touche.nDCG@5"])["touche.nDCG@5"]
    assert api.evaluate(padded, Q, ["touche.nDCG@5"])["touche.nDCG@5"] == score > 0
    frame = api.frame_of_rows(read_run(plain))
    frame["query_id"] = frame["query_id"].astype(float)  # 1.0, as pandas makes of a column with gaps
    assert api.evaluate(frame, Q, ["touche.nDCG@5"])["touche.nDCG@5"] == score
    other = _run_file(tmp_path / "other.txt", judged, qid="77")
    with caplog.at_level("WARNING"):
        api.evaluate(other, Q, ["touche.nDCG@5"])
    assert "no topic in common (run: 77; qrels: 1, 2, 3, 4, 5, 6)" in caplog.text


def test_api_mistakes_are_touche_errors_naming_the_argument(jvm_started, tmp_path):
    from touche import api
    from touche.errors import ToucheError
    with pytest.raises(ToucheError, match="variant\\(''\\)"):
        api.variant("")
    run = _run_file(tmp_path / "run.txt", _judged()[:5])
    assert api.evaluate(run, Q, "touche.nDCG@5")["touche.nDCG@5"] > 0  # one name, not a list
    frame = api.frame_of_rows(read_run(run))
    (tmp_path / "folder").mkdir()
    with pytest.raises(ToucheError, match="is a directory") as error:
        api.write(frame, tmp_path / "folder", "tag")
    assert str(tmp_path / "folder") in str(error.value) and ".tmp" not in str(error.value)
    (tmp_path / "root-file").write_text("")
    with pytest.raises(ToucheError, match="index root is a file") as error:
        api.index("task1/1-krovetz-smart-lmd2000-quality", DEMO / "args.me", index_root=tmp_path / "root-file")
    assert str(tmp_path / "root-file") in str(error.value)
    topics = tmp_path / "topics.xml"
    topics.write_text(f"<topics><topic><number>{10**30}</number><title>x</title></topic></topics>")
    with pytest.raises(ToucheError, match="has 31 digits"):
        read_topics(topics)


def test_shards_built_one_by_one_are_assembled_by_a_plain_run(jvm_started, tmp_path):
    from touche.config import load_variant
    from touche.indexing.builder import ensure_index
    variant = load_variant(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml").variant
    root = tmp_path / "idx"
    for k in (0, 1):
        ensure_index(variant, DEMO / "args.me", root, shards=2, shard=k, progress=False)
    info = ensure_index(variant, DEMO / "args.me", root, progress=False)  # as `touche run` asks for it
    assert len(info.meta["shards"]) == 2 and info.documents == 320
    assert [p.name for p in root.iterdir() if p.is_dir()] == [info.path.name]  # no second, whole index


@pytest.mark.parametrize("shards, message", [("0", "whole number ≥ 1"), ("-1", "whole number ≥ 1"),
                                             ("500", "500 shards to build on a machine")])
def test_shard_counts_that_make_no_sense_are_refused_at_once(tmp_path, shards, message):
    started = time.perf_counter()
    code, text = cli("index", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(DEMO / "args.me"), "--index-root", str(tmp_path / "idx"), "--shards", shards)
    assert code == 2 and message in text, text
    assert time.perf_counter() - started < 30


def test_a_sharded_build_leaves_no_leaked_semaphore(tmp_path):
    done = subprocess.run([sys.executable, "-m", "touche", "index", "-c",
                           str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i", str(DEMO / "args.me"),
                           "--index-root", str(tmp_path / "idx"), "--shards", "3"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "leaked" not in done.stderr and "resource_tracker" not in done.stderr


def test_train_quality_writes_a_user_file_and_keeps_the_shipped_model(tmp_path, monkeypatch):
    from touche.paths import shared_touche_dir
    from touche.retrieval.stages.quality.model import MODEL_FILE
    csv = shared_touche_dir() / "corpora" / "webis-argquality20-full.csv"
    if not csv.is_file():
        pytest.skip(f"Webis-ArgQuality-20 not found at {csv}")
    shipped = MODEL_FILE.read_bytes()
    monkeypatch.chdir(tmp_path)
    code, text = cli("train-quality", str(csv))
    assert code == 0 and (tmp_path / "quality_model.json").read_bytes() == shipped
    code, text = cli("train-quality", str(csv), "-o", str(MODEL_FILE))
    assert code == 2 and "--replace-shipped" in text
    assert MODEL_FILE.read_bytes() == shipped
