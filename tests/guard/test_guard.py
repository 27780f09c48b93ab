"""The output guard (touche/guard.py): no output replaces or writes through an input, whatever the
command (each declares what it reads and writes); an output folder is the command's own
(``OutputFolder``: what it made is recorded and may be replaced, anything else is refused and
listed); a link folder keeps only its own links; run-all, sweep and choose refuse a user's file,
link or device where they would write."""
from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from tests.experiments.test_explorer import _q0_run
from tests.experiments.test_sweep_reliability import demo_set, write_sets
from tests.explorer_pages import QRELS
from tests.guard.test_atomic import private_device, two_runs
from tests.shared import DEMO, RELEVANCE, VARIANT, cli, demo_run
from touche.errors import ToucheError
from touche.guard import RECORD, Files, LinkFolder, OutputFolder, made_folder, read_record


@pytest.fixture
def targets(tmp_path):
    made = {}
    for name in ("a.json", "b.json", "c.json"):
        made[name] = tmp_path / "data" / name
        made[name].parent.mkdir(exist_ok=True)
        made[name].write_text("{}")
    return made


def test_a_link_folder_is_made_with_its_links_and_their_record(tmp_path, targets):
    folder = tmp_path / "new" / "links"  # neither exists yet
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert (folder / "a.json").is_symlink() and os.path.realpath(folder / "a.json") == str(targets["a.json"])
    assert {name: entry.kind for name, entry in read_record(folder).items()} == {"a.json": "link"}


def test_a_made_link_is_re_pointed_and_a_stale_one_removed(tmp_path, targets):
    folder = tmp_path / "links"
    LinkFolder(folder).sync({"a.json": targets["a.json"], "b.json": targets["b.json"]})
    LinkFolder(folder).sync({"a.json": targets["c.json"]})
    assert os.path.realpath(folder / "a.json") == str(targets["c.json"])
    assert not (folder / "b.json").exists() and not (folder / "b.json").is_symlink()


def test_a_made_link_the_user_deleted_is_made_again(tmp_path, targets):
    folder = tmp_path / "links"
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    (folder / "a.json").unlink()
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert os.path.realpath(folder / "a.json") == str(targets["a.json"])


def test_a_right_link_made_before_its_record_is_kept_a_foreign_file_refused(tmp_path, targets):
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "a.json").symlink_to(targets["a.json"])  # as a sync that stopped before its record left it
    LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert read_record(folder)["a.json"].target == str(targets["a.json"])
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(ToucheError, match=r"holds 1 file\(s\) this command did not make \(notes.txt\)"):
        LinkFolder(folder).sync({"a.json": targets["a.json"]})
    assert (folder / "notes.txt").read_text() == "mine"


def test_a_refusal_lists_eight_names_and_counts_the_rest(tmp_path):
    for i in range(10):
        (tmp_path / f"user-{i}.txt").write_text("")
    with pytest.raises(ToucheError) as raised:
        OutputFolder(tmp_path).claim(["run.txt"], refuse=lambda entry: True)
    listed = ", ".join(f"user-{i}.txt" for i in range(8))
    assert f"holds 10 file(s) this command did not make ({listed} and 2 more)" in str(raised.value)


def test_the_files_of_two_commands_join():
    joined = Files.of(reads=[("run", "a.txt")], folders=[("out", "o")]) + Files.of(writes=[("page", "p.html")],
                                                                                  reads=[("qrels", "q.txt")])
    assert [str(p) for _, p in joined.reads] == ["a.txt", "q.txt"]
    assert [str(p) for _, p in joined.writes] == ["p.html"] and [str(p) for _, p in joined.folders] == ["o"]


# --------------------------------------------------------------------------- explore -o INPUT
@pytest.mark.parametrize("victim", ["run", "qrels"])
def test_explore_never_writes_over_an_input(tmp_path, victim):
    run, other = _q0_run(tmp_path / "victim.txt"), _q0_run(tmp_path / "b.txt")
    qrels = tmp_path / "q.txt"
    qrels.write_text(QRELS["relevance"].read_text())
    target = run if victim == "run" else qrels
    before = target.read_bytes()
    code, text = cli("explore", str(run), str(other), "--qrels", str(qrels), "-o", str(target))
    assert code == 2 and f"would replace the {victim} it reads" in text
    assert target.read_bytes() == before


# --------------------------------------------------------------------------- a folder where a report goes
def test_a_folder_in_the_explorers_place_is_said_before_the_runs(tmp_path):
    out = tmp_path / "out"
    (out / "explore.html").mkdir(parents=True)
    code, text = cli("run-all", "-o", str(out), "--index-root", str(tmp_path / "indexes"))
    assert code == 2 and "explorer page" in text and "run file" not in text, text
    assert sorted(p.name for p in out.iterdir()) == ["explore.html"]  # no run was written


# --------------------------------------------------------------------------- outputs
def _copies(tmp_path: Path) -> dict[str, Path]:
    files = {"topics": DEMO / "topics.xml", "qrels": RELEVANCE, "corpus": DEMO / "args.me" / "args-demo.json"}
    out = {}
    for name, source in files.items():
        out[name] = tmp_path / source.name
        out[name].write_bytes(source.read_bytes())
    out["run"] = demo_run(tmp_path / "run.txt")
    out["run2"] = demo_run(tmp_path / "run2.txt", tag="u")
    return out


@pytest.mark.parametrize("case", ["run -o topics", "run -o corpus", "run -o qrels", "compare -o A",
                                  "compare --plot B", "explore -o corpus", "explore --csv X --markdown X",
                                  "contact-sheet RUN COLL RUN", "train-quality wq.csv -o wq.csv",
                                  "index root = corpus"])
def test_no_command_writes_over_what_it_reads(tmp_path, case):
    f = _copies(tmp_path)
    config = str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml")
    run = ["run", "-c", config, "-i", str(f["corpus"]), "-t", str(f["topics"]), "--qrels", str(f["qrels"])]
    wq = tmp_path / "wq.csv"
    wq.write_text("some,csv\n")
    images = tmp_path / "images"
    images.mkdir()
    args, victim = {
        "run -o topics": (run + ["-o", str(f["topics"])], f["topics"]),
        "run -o corpus": (run + ["-o", str(f["corpus"])], f["corpus"]),
        "run -o qrels": (run + ["-o", str(f["qrels"])], f["qrels"]),
        "compare -o A": (["compare", str(f["run"]), str(f["run2"]), str(f["qrels"]), "-o", str(f["run"])], f["run"]),
        "compare --plot B": (["compare", str(f["run"]), str(f["run2"]), str(f["qrels"]), "--plot", str(f["run2"])],
                             f["run2"]),
        "explore -o corpus": (["explore", str(f["run"]), "-i", str(f["corpus"]), "-o", str(f["corpus"])], f["corpus"]),
        "explore --csv X --markdown X": (["explore", str(f["run"]), str(f["run2"]), "--qrels", str(f["qrels"]),
                                          "--csv", str(tmp_path / "x"), "--markdown", str(tmp_path / "x")], None),
        "contact-sheet RUN COLL RUN": (["contact-sheet", str(f["run"]), str(images), str(f["run"])], f["run"]),
        "train-quality wq.csv -o wq.csv": (["train-quality", str(wq), "-o", str(wq)], wq),
        "index root = corpus": (["index", "-c", config, "-i", str(tmp_path), "--index-root", str(tmp_path / "idx")],
                                None),
    }[case]
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, text = cli(*args)
    assert code == 2 and ("would replace" in text or "one file" in text or "inside" in text), text
    assert "Traceback" not in text
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before  # nothing written, nothing lost
    if victim is not None:
        assert str(victim) in text


# --------------------------------------------------------------------------- choose's folder
def test_choose_never_replaces_its_sources_or_writes_through_a_link_it_did_not_make(tmp_path):
    from touche.guard import LinkFolder, made_folder, read_record
    folder = tmp_path / "DIR" / "corpus"
    folder.mkdir(parents=True)
    mine = tmp_path / "mine.json"
    mine.write_text("{}")
    (folder / "user-link.json").symlink_to(mine)
    target = tmp_path / "data.json"
    target.write_text("{}")
    with pytest.raises(ToucheError, match=r"did not make \(user-link.json\)"):  # round 6: it would be indexed
        LinkFolder(folder).sync({"data.json": target})
    assert (folder / "user-link.json").is_symlink() and not (folder / "data.json").exists()  # refused, not deleted
    (folder / "user-link.json").unlink()
    LinkFolder(folder).sync({"data.json": target})
    assert list(read_record(folder)) == ["data.json"]
    LinkFolder(folder).sync({})
    assert not (folder / "data.json").exists() and read_record(folder) == {}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "DIR2"
    linked.mkdir()
    (linked / "corpus").symlink_to(elsewhere)
    with pytest.raises(ToucheError, match="is a symbolic link"):
        LinkFolder(linked / "corpus").sync({"data.json": target})
    with pytest.raises(ToucheError, match="is a symbolic link"):
        made_folder(linked / "corpus")
    assert list(elsewhere.iterdir()) == []  # nothing written in the folder the link points to


def test_choose_refuses_an_output_folder_holding_the_source_topics(jvm_started, index_root, tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    source = chosen / "topics.xml"
    source.write_bytes((DEMO / "topics.xml").read_bytes())
    path = write_sets(tmp_path / "s.yaml", {"a": {**demo_set(topics_only=[1, 2, 3, 4]), "topics": str(source)},
                                            "b": demo_set(topics_only=[5, 6])}, tmp_path / "out")
    run_sweep(path, index_root=index_root, progress=False)
    before = source.read_bytes()
    with pytest.raises(ToucheError, match="would replace the source topics"):
        choose(tmp_path / "out", chosen, reference=False, count=2, min_diff=1)
    assert source.read_bytes() == before and sorted(p.name for p in chosen.iterdir()) == ["topics.xml"]


def test_an_output_that_links_to_an_input_is_refused(tmp_path):
    from touche.guard import Files, check
    run = demo_run(tmp_path / "run.txt")
    link = tmp_path / "out.md"
    link.symlink_to(run)
    with pytest.raises(ToucheError, match="would replace the run A it reads"):
        check(Files.of(reads=[("run A", run)], writes=[("Markdown report", link)]))
    code, text = cli("compare", str(run), str(demo_run(tmp_path / "b.txt", tag="u")), str(RELEVANCE), "-o", str(link))
    assert code == 2 and run.read_text().startswith("1 Q0")


def test_every_command_declares_what_it_reads_and_writes():
    from touche.cli import COMMANDS, build_parser, command_module
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert set(commands) == set(COMMANDS)
    assert {name: p.get_default("files") for name, p in commands.items()} == {
        name: command_module(name).files for name in commands}
    assert {name: p.get_default("func") for name, p in commands.items()} == {
        name: command_module(name).run for name in commands}


REPO = Path(__file__).resolve().parents[2]


def test_an_output_that_is_no_file_is_refused_before_any_work(tmp_path):
    a, b = two_runs(tmp_path)
    sock = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    try:
        code, text = cli("compare", str(a), str(b), str(RELEVANCE), "-o", str(sock))
    finally:
        server.close()
    assert code == 2 and "is a socket, not a file" in text and "B − A" not in text
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)


# --------------------------------------------------------------------------- folders a command fills
def test_a_corpus_link_folder_refuses_what_it_did_not_make(tmp_path):
    """A user's link left in `choose --out DIR/corpus` was indexed into the chosen suite."""
    from touche.guard import LinkFolder
    folder = tmp_path / "chosen" / "corpus"
    folder.mkdir(parents=True)
    other = tmp_path / "other.json"
    other.write_text("{}")
    (folder / "extra.json").symlink_to(other)
    (folder / "notes.txt").write_text("mine")
    listed = tmp_path / "args.json"
    listed.write_text("{}")
    with pytest.raises(ToucheError, match=r"did not make \(extra.json, notes.txt\).*indexed"):
        LinkFolder(folder).sync({"args.json": listed})
    assert (folder / "extra.json").is_symlink() and (folder / "notes.txt").read_text() == "mine"
    assert not (folder / "args.json").exists()


def test_run_all_refuses_an_output_folder_holding_runs_it_did_not_make(jvm_started, fixture_corpus, tmp_path,
                                                                       index_root):
    """TIRA uploads the whole folder: a run file left there passed for one of the submission's."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "foreign.txt").write_text("1 Q0 x 1 1 someone-else\n")
    (out / "overview.md").write_text("a table of the user's")  # no run: left alone
    (out / "sweeps").mkdir()
    config = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")
    inside = str(out / "cache" / "indexes")  # an index root inside the output folder is the command's own
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", inside, "-c", config)
    assert code == 2 and "did not make (foreign.txt)" in text
    assert sorted(p.name for p in out.iterdir()) == ["foreign.txt", "overview.md", "sweeps"]  # nothing written
    (out / "foreign.txt").unlink()
    assert cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", inside, "-c", config)[0] == 0
    other = str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml")  # its earlier runs are its own
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", inside, "-c", other)
    assert code == 0, text
    assert {"1-bm25.txt", "2-krovetz-bm25.txt", "run.txt", "cache"} <= {p.name for p in out.iterdir()}


def test_an_output_folder_accepts_what_it_wrote_and_temporaries_only(tmp_path):
    from touche.guard import OutputFolder
    folder = OutputFolder(tmp_path, "sweep output folder").claim(["a.txt", "b.txt"], refuse=lambda entry: True)
    folder.write_text("a.txt", "mine")  # b.txt is not written
    (tmp_path / "indexes").mkdir()  # an index root the user placed here: not the command's
    (tmp_path / ".a.txt.~touche.123.abcdef123456.tmp").write_text("")  # a killed writer's temporary
    again = OutputFolder(tmp_path, "sweep output folder")
    again.claim(["a.txt", "c.txt"], refuse=lambda entry: entry.name != "indexes")  # a.txt is its own
    assert again.ours("a.txt") and not again.ours("indexes")
    (tmp_path / "d.txt").write_text("")
    with pytest.raises(ToucheError, match=r"sweep output folder holds 1 file\(s\) this command did not make \(d.txt\)"):
        OutputFolder(tmp_path, "sweep output folder").claim(["c.txt"], refuse=lambda entry: entry.name != "indexes")


# --------------------------------------------------------------------------- file and folder outputs
def test_a_run_file_that_is_the_index_root_is_refused_before_indexing(tmp_path, monkeypatch):
    from touche.indexing import builder
    monkeypatch.setattr(builder, "build_index", lambda *a, **k: (_ for _ in ()).throw(AssertionError("indexed")))
    same = tmp_path / "X"
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(DEMO / "args.me"), "-t", str(DEMO / "topics.xml"), "-o", str(same), "--index-root", str(same))
    assert code == 2 and "is the index root" in text and "indexed" not in text and not same.exists()
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(DEMO / "args.me"), "-t", str(DEMO / "topics.xml"), "-o", str(same),
                     "--index-root", str(same / "indexes"))
    assert code == 2 and "lies inside it" in text






def snapshot(folder: Path) -> dict[str, tuple]:
    """Every path under ``folder`` (links not followed) with its kind, inode and content."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        content = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
        found[str(path.relative_to(folder))] = (info.st_mode >> 12, info.st_ino, content)
    return found


# --------------------------------------------------------------------------- run-all's folder
def test_run_all_without_qrels_keeps_a_users_evaluation_and_page(jvm_started, fixture_corpus, index_root, tmp_path):
    """`run-all -o D` without qrels deleted the user's D/evaluation.md ("it scored the runs this
    call replaced": it never did) and overwrote the user's D/explore.html."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "evaluation.md").write_text("my notes")
    (out / "explore.html").write_text("my page")
    before = snapshot(out)
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root),
                     "-c", VARIANT)
    assert code == 0, text
    assert {k: v for k, v in snapshot(out).items() if k in before} == before  # untouched, same inodes
    assert "left" in text and "evaluation.md" in text  # said, not silently kept
    two = str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml")
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root),
                     "--suite", str(_suite(tmp_path, [VARIANT, two])))
    assert code == 2 and "explore.html is a file touche run-all did not make" in text  # it would write the page
    assert (out / "explore.html").read_text() == "my page"


def _suite(tmp_path: Path, variants: list[str]) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump({"variants": variants, "primary": variants[0]}))
    return path


# --------------------------------------------------------------------------- a sweep's subfolders
def test_a_sweep_never_writes_through_a_sets_link(jvm_started, index_root, tmp_path):
    """A `sets` link in the sweep's folder: the user's topics.xml was replaced, coverage.json and a
    folder of corpus links were added outside the sweep's folder."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "dev").mkdir(parents=True)
    (elsewhere / "dev" / "topics.xml").write_text("mine")
    before = snapshot(elsewhere)
    out = tmp_path / "out"
    out.mkdir()
    (out / "sets").symlink_to(elsewhere)
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set(topics_only=[1, 2])}, out)
    from touche.retrieval.experiments.sweep import run_sweep
    with pytest.raises(ToucheError, match=r"sets is a link \(to .*elsewhere\), which touche sweep would write through"):
        run_sweep(path, index_root=index_root, progress=False)
    assert snapshot(elsewhere) == before and not (out / "runs").exists()


def test_a_foreign_file_in_a_sweeps_runs_folder_is_refused_not_read_as_a_run(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set()}, tmp_path / "out")
    run_sweep(path, index_root=index_root, progress=False)
    (tmp_path / "out" / "runs" / "0123456789abcdef.txt").write_text("1 Q0 x 1 1.0 mine\n")
    with pytest.raises(ToucheError, match=r"runs folder .* holds 1 file\(s\) touche sweep did not make"):
        run_sweep(path, index_root=index_root, progress=False)


# --------------------------------------------------------------------------- links to streams
def test_a_run_file_linked_to_a_device_is_refused_before_any_work(jvm_started, fixture_corpus, index_root, tmp_path):
    """D/<variant>.txt → a character device: the run went into the device, run.txt was copied back
    from it and left empty, and the call ended with "run file not found"."""
    device = private_device(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "1-bm25.txt").symlink_to(device)
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root),
                     "-c", VARIANT)
    assert code == 2 and "1-bm25.txt is a link" in text and "would write through" in text
    assert sorted(p.name for p in out.iterdir()) == ["1-bm25.txt"]  # no run.txt, no lock, no temporary
    assert (out / "1-bm25.txt").is_symlink() and device.is_char_device()


def test_a_run_file_linked_to_a_pipe_with_a_reader_neither_hangs_nor_leaves_anything(fixture_corpus, index_root,
                                                                                      tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.txt").symlink_to(fifo)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "touche", "run-all", "-i", str(fixture_corpus), "-o", str(out),
                           "--index-root", str(index_root), "-c", VARIANT], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    assert time.monotonic() - started < 120
    assert done.returncode == 2 and "run.txt is a link" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["run.txt"]
    with open(fifo, "wb"):  # let the reader go
        pass
    reader.join(10)
    assert got == [b""]  # nothing was written into the pipe


def test_choose_never_replaces_a_users_yaml_named_like_a_pick(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.choose import choose
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set()}, tmp_path / "sweep")
    run_sweep(path, index_root=index_root, progress=False)
    (first,) = choose(tmp_path / "sweep", tmp_path / "scratch", count=1, reference=False)
    out = tmp_path / "chosen"
    out.mkdir()
    mine = out / first.path.name
    mine.write_text("my variant\n")
    with pytest.raises(ToucheError, match=rf"{mine.name} is a file touche choose did not make"):
        choose(tmp_path / "sweep", out, count=1, reference=False)
    assert mine.read_text() == "my variant\n" and sorted(p.name for p in out.iterdir()) == [mine.name]


def _record_lines(folder) -> list[str]:
    return (folder / RECORD).read_text().splitlines()


def test_a_long_record_is_compacted_and_keeps_every_licence(tmp_path):
    """A record of many lines (a file written again and again: here its line repeated, as
    rewrites of the same text leave it) and three appends to another: claiming the folder
    rewrites it as one line per entry (a growing file's earlier states first); a results file cut
    back to its first line (a power cut that lost the last appends) is still the command's own."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    out.append("results.jsonl", b'{"run": 2}\n')
    out.append("results.jsonl", b'{"run": 3}\n')
    out.write_text("summary.md", "round 1\n")
    last = _record_lines(tmp_path)[-1]
    with open(tmp_path / RECORD, "a") as record:
        record.write((last + "\n") * 80)
    before = read_record(tmp_path)
    again = OutputFolder(tmp_path, command="sweep").claim(["summary.md", "results.jsonl"])
    assert len(_record_lines(tmp_path)) == 4  # summary.md, and results.jsonl's two earlier states and its last
    assert read_record(tmp_path) == before
    assert again.ours("summary.md") and again.ours("results.jsonl")
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')
    assert OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_a_check_that_refuses_a_file_leaves_nothing_written_or_recorded(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")

    def refuse(temporary):
        raise ToucheError("not a valid run")

    with pytest.raises(ToucheError, match="not a valid run"):
        with out.open("run.txt", check=refuse) as handle:
            handle.write("a bad run\n")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != RECORD) == []
    assert "run.txt" not in read_record(tmp_path) and not out.ours("run.txt")


def test_a_folder_the_command_made_is_removed_when_empty(tmp_path):
    out = OutputFolder(tmp_path, command="sweep")
    out.folder("runs")
    assert out.remove("runs")
    assert not (tmp_path / "runs").exists() and "runs" not in read_record(tmp_path)


def test_a_folder_the_command_made_is_kept_when_someone_put_a_file_in_it(tmp_path):
    out = OutputFolder(tmp_path, command="sweep")
    out.folder("runs")
    (tmp_path / "runs" / "notes.txt").write_text("mine")
    assert not out.remove("runs")
    assert (tmp_path / "runs" / "notes.txt").read_text() == "mine"
    assert OutputFolder(tmp_path, command="sweep").ours("runs")  # still its own: nothing was removed


def test_a_made_file_the_user_deleted_is_no_longer_the_commands_and_is_written_again(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("evaluation.md", "scores\n")
    (tmp_path / "evaluation.md").unlink()
    assert not out.ours("evaluation.md")
    assert not out.remove("evaluation.md")  # nothing to remove, and no error
    out.write_text("evaluation.md", "new scores\n")
    assert (tmp_path / "evaluation.md").read_text() == "new scores\n"


def test_a_made_file_a_user_replaced_by_a_folder_is_refused_and_kept(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("evaluation.md", "scores\n")
    (tmp_path / "evaluation.md").unlink()
    (tmp_path / "evaluation.md").mkdir()
    (tmp_path / "evaluation.md" / "mine.txt").write_text("mine")
    assert not out.ours("evaluation.md")
    with pytest.raises(ToucheError, match=r"evaluation.md in the output folder is changed since run-all made it"):
        out.write_text("evaluation.md", "new scores\n")
    assert not out.remove("evaluation.md")
    assert (tmp_path / "evaluation.md" / "mine.txt").read_text() == "mine"


def test_a_folder_of_another_command_is_named_in_the_refusal(tmp_path):
    OutputFolder(tmp_path, command="sweep").write_text("summary.md", "theirs\n")
    with pytest.raises(ToucheError, match=r"summary.md in the output folder is what sweep made, not choose"):
        OutputFolder(tmp_path, command="choose").write_text("summary.md", "mine\n")
    assert (tmp_path / "summary.md").read_text() == "theirs\n"


def test_an_output_folder_shows_its_path(tmp_path):
    assert repr(OutputFolder(tmp_path / "out")) == f"OutputFolder({str(tmp_path / 'out')!r})"


# --------------------------------------------------------------------------- what the record licenses
def test_an_empty_file_the_command_made_replaced_by_a_device_is_not_its_own(tmp_path):
    """An empty run the command wrote, replaced by a character device (as empty as it when read):
    not the command's any more, so never written into or deleted."""
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "")
    (tmp_path / "run.txt").unlink()
    try:
        os.mknod(tmp_path / "run.txt", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("cannot make a device node here")
    assert not out.ours("run.txt")
    with pytest.raises(ToucheError, match=r"run.txt in the output folder is changed since run-all made it"):
        out.write_text("run.txt", "1 Q0 d 1 1.0 t\n")
    assert not out.remove("run.txt")
    assert stat.S_ISCHR(os.lstat(tmp_path / "run.txt").st_mode)


def test_a_growing_file_noted_again_at_the_same_size_keeps_its_earlier_states(tmp_path):
    """An append of nothing (a run that added no line) notes the same size again: a power cut
    that later leaves the file at its first line still leaves it the command's own."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    out.append("results.jsonl", b'{"run": 2}\n')
    out.append("results.jsonl", b"")
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')
    assert OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_a_record_that_is_a_link_is_no_record(tmp_path):
    """A link in the record's place (to a record that would license everything) licenses
    nothing, and a command refuses to use the folder until it is removed."""
    elsewhere = tmp_path / "elsewhere"
    OutputFolder(elsewhere, command="run-all").write_text("run.txt", "ours\n")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "run.txt").write_text("ours\n")  # the same content: a record would license it
    (folder / RECORD).symlink_to(elsewhere / RECORD)
    assert read_record(folder) == {}
    assert not OutputFolder(folder, command="run-all").ours("run.txt")
    with pytest.raises(ToucheError, match=r"\.touche-made, where run-all records what it makes, is a link or no file"):
        OutputFolder(folder, command="run-all").claim(["run.txt"])


def test_a_record_line_carrying_its_own_earlier_field_is_read_without_it(tmp_path):
    """Earlier states come from the record's earlier lines only: a line with an 'earlier' field
    of any form (a later toolkit's, an edited one) is read as the rest of it says."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    line = json.loads(_record_lines(tmp_path)[-1])
    (tmp_path / RECORD).write_text(json.dumps({**line, "earlier": 5}) + "\n")
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')  # a copy: another inode, the same content
    again = OutputFolder(tmp_path, command="sweep")
    assert again.made["results.jsonl"].earlier == ()
    assert again.ours("results.jsonl")


@pytest.mark.parametrize("name", [RECORD, ".touche.lock", ".sweep.lock", ".touche-links", "", "..", "runs/run.txt"])
def test_the_folders_bookkeeping_and_paths_are_no_entry_a_command_writes(tmp_path, name):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "ours\n")
    before = (tmp_path / RECORD).read_text()
    with pytest.raises(ValueError, match="not an entry name a command writes"):
        out.write_text(name, "{}\n")
    assert (tmp_path / RECORD).read_text() == before


def test_each_record_line_is_synced_once_appended(tmp_path, monkeypatch):
    """What licenses a later replace survives a power cut: the record is synced after each line."""
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append((os.fstat(fd).st_ino, os.fstat(fd).st_size))
                        or real(fd))
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "ours\n")
    record = os.stat(tmp_path / RECORD)
    assert (record.st_ino, record.st_size) in synced
    synced.clear()
    out.append("results.jsonl", b'{"run": 1}\n')
    results, record = os.stat(tmp_path / "results.jsonl"), os.stat(tmp_path / RECORD)
    assert synced == [(results.st_ino, results.st_size), (record.st_ino, record.st_size)]


def test_a_link_folder_inside_an_output_folder_names_itself_in_a_refusal(tmp_path):
    """A corpus link folder kept in a command's output folder: a name it would link that holds a
    file it did not make (here one named like a writer's temporary, which the first listing
    passes over) is refused as the corpus folder's, and the file is kept."""
    target = tmp_path / "a.json"
    target.write_text("{}")
    folder = OutputFolder(tmp_path / "links", "output folder", command="run-all")
    name = ".a.json.~touche.1.0123456789ab.tmp"
    (folder.path / name).write_text("a user's")
    with pytest.raises(ToucheError, match=rf"{name} in the corpus folder is a file run-all did not make"):
        LinkFolder(folder, "corpus folder").sync({name: target})
    assert (folder.path / name).read_text() == "a user's"


def test_writing_and_appending_leave_no_descriptor_open(tmp_path):
    out = OutputFolder(tmp_path, command="sweep")
    before = len(os.listdir("/proc/self/fd"))  # read only
    for i in range(5):
        out.write_text("summary.md", f"round {i}\n")
        out.append("results.jsonl", b'{"run": 1}\n')
    out.remove("summary.md")
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_file_the_command_removed_and_wrote_anew_is_licensed_by_its_new_content_only(tmp_path):
    """Removed, then begun again: the old file's states license nothing (in this process as in
    the record): a user's file holding the old first line is not the command's."""
    out = OutputFolder(tmp_path, command="sweep")
    out.append("results.jsonl", b'{"run": 1}\n')
    out.append("results.jsonl", b'{"run": 2}\n')
    assert out.remove("results.jsonl")
    out.append("results.jsonl", b'{"run": 3, "again": true}\n')
    assert out.made == read_record(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(b'{"run": 1}\n')  # a user's file now
    assert not out.ours("results.jsonl")
    assert not OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_a_file_that_appears_while_the_command_writes_the_same_name_is_kept(tmp_path):
    """Checked again just before the rename: a user's file that slipped in meanwhile is refused,
    not replaced."""
    out = OutputFolder(tmp_path, command="run-all")
    with pytest.raises(ToucheError, match=r"run.txt in the output folder is a file run-all did not make"):
        with out.open("run.txt") as handle:
            handle.write("1 Q0 d 1 1.0 t\n")
            (tmp_path / "run.txt").write_text("a user's run\n")
    assert (tmp_path / "run.txt").read_text() == "a user's run\n"
    assert "run.txt" not in read_record(tmp_path)


def test_a_file_rewritten_in_place_with_other_bytes_of_the_same_size_is_no_longer_the_commands(tmp_path):
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "1 Q0 a 1 2.0 t\n")
    with open(tmp_path / "run.txt", "r+b") as handle:  # same inode, same size, other bytes
        handle.write(b"9")
    os.utime(tmp_path / "run.txt", ns=(1, 1))  # and a time of the user's
    assert not OutputFolder(tmp_path, command="run-all").ours("run.txt")
    with pytest.raises(ToucheError, match="changed since run-all made it"):
        OutputFolder(tmp_path, command="run-all").write_text("run.txt", "new\n")
    assert (tmp_path / "run.txt").read_text() == "9 Q0 a 1 2.0 t\n"


def test_a_link_of_the_commands_replaced_by_another_link_is_no_longer_its_own(tmp_path):
    out = OutputFolder(tmp_path / "out", command="sweep")
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    out.link("corpus.json", tmp_path / "a")
    assert OutputFolder(tmp_path / "out", command="sweep").ours("corpus.json")
    (tmp_path / "out" / "corpus.json").unlink()
    (tmp_path / "out" / "corpus.json").symlink_to(tmp_path / "b")  # the user's link now
    assert not OutputFolder(tmp_path / "out", command="sweep").ours("corpus.json")
    assert OutputFolder(tmp_path / "out", command="sweep").remove("corpus.json") is False
    assert os.readlink(tmp_path / "out" / "corpus.json") == str(tmp_path / "b")


def test_what_follows_the_longest_matching_state_decides_a_growing_files_owner(tmp_path):
    """Recorded states a, a+b; the file now holds a, then a user's note, then a line that looks
    like a record: the note after state a makes it the user's, wherever the longer state's
    length falls."""
    out = OutputFolder(tmp_path, command="sweep")
    line_a, line_b = b'{"key": "a"}\n', b'{"key": "b"}\n'
    out.append("results.jsonl", line_a)
    out.append("results.jsonl", line_b)
    note = b"# my note ..\n"
    assert len(note) == len(line_b)  # the longer state's length ends exactly where the record-like line begins
    (tmp_path / "results.jsonl").write_bytes(line_a + note + b'{"key": "c"}\n')
    assert not OutputFolder(tmp_path, command="sweep").ours("results.jsonl")


def test_the_record_is_appended_to_until_it_is_long_then_rewritten_once(tmp_path):
    """Each write appends one line (cheap, safe with workers appending at once); a claim
    rewrites the record only past twice its entries' lines plus 64, as one line per entry."""
    out = OutputFolder(tmp_path, command="run-all")
    out.write_text("run.txt", "x\n")
    line = (tmp_path / RECORD).read_text()
    limit = 2 * 1 + 64  # one entry, no earlier states
    (tmp_path / RECORD).write_text(line * limit)
    OutputFolder(tmp_path, command="run-all").claim(["run.txt"])
    assert (tmp_path / RECORD).read_text() == line * limit  # at the limit: left as it is
    (tmp_path / RECORD).write_text(line * (limit + 1))
    OutputFolder(tmp_path, command="run-all").claim(["run.txt"])
    assert (tmp_path / RECORD).read_text() == line  # one past it: one line per entry


def test_a_claim_takes_any_iterable_and_leaves_other_entries_alone_unless_asked(tmp_path):
    (tmp_path / "notes.md").write_text("mine")
    (tmp_path / "run.txt").write_text("mine too")
    out = OutputFolder(tmp_path, command="run-all")
    assert out.claim(name for name in ["a.txt", "b.txt"]) is out  # a generator: read once, used twice
    with pytest.raises(ToucheError, match=r"holds 1 entry run-all would replace but did not make \(run\.txt\)"):
        out.claim(name for name in ["run.txt", "a.txt"])
    assert (tmp_path / "notes.md").read_text() == "mine"


def test_a_refusal_of_nine_names_counts_the_ninth_and_of_eight_lists_all(tmp_path):
    for i in range(9):
        (tmp_path / f"u{i}.txt").write_text("mine")
    out = OutputFolder(tmp_path, command="run-all")
    with pytest.raises(ToucheError) as nine:
        out.claim([], refuse=lambda entry: True)
    assert "(u0.txt, u1.txt, u2.txt, u3.txt, u4.txt, u5.txt, u6.txt, u7.txt and 1 more)" in str(nine.value)
    (tmp_path / "u8.txt").unlink()
    with pytest.raises(ToucheError) as eight:
        out.claim([], refuse=lambda entry: True)
    assert "(u0.txt, u1.txt, u2.txt, u3.txt, u4.txt, u5.txt, u6.txt, u7.txt);" in str(eight.value)


def test_a_subfolder_of_the_users_is_refused_not_adopted(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "theirs.txt").write_text("theirs")
    out = OutputFolder(tmp_path, command="sweep")
    with pytest.raises(ToucheError, match="runs in the output folder is a folder sweep did not make"):
        out.folder("runs")
    assert not out.ours("runs") and (tmp_path / "runs" / "theirs.txt").read_text() == "theirs"
    made = out.folder("sets")  # absent: made and recorded
    assert made.path == tmp_path / "sets" and out.ours("sets") and OutputFolder(tmp_path, command="sweep").ours("sets")


def test_what_the_api_returns(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    out = OutputFolder(str(tmp_path / "out"), command="sweep")  # a plain string is a path too
    assert out.path == tmp_path / "out" and made_folder(str(tmp_path / "x")) == tmp_path / "x"
    assert out.write_text("a.md", "a\n") == tmp_path / "out" / "a.md"
    assert out.write_bytes("b.bin", b"b") == tmp_path / "out" / "b.bin"
    out.append("results.jsonl", b'{"k": 1}\n')
    assert stat.S_IMODE(os.stat(tmp_path / "out" / "results.jsonl").st_mode) == 0o666 & ~umask
    sub = out.folder("runs")
    sub.write_text("r.txt", "r\n")
    assert out.remove("runs") is False  # not empty: kept, and said so with a bool
    assert out.ours("runs") and (tmp_path / "out" / "runs" / "r.txt").exists()
