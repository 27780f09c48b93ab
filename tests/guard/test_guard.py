"""The output guard (touche/guard.py) at the commands: no output replaces or writes through an
input, whatever the command (each declares what it reads and writes); run-all, sweep and choose
refuse a user's file, link or device where they would write, before any work. An output or link
folder entry by entry: test_folder_entries.py; the record that licenses it: test_record.py."""
from __future__ import annotations

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
from tests.shared import DEMO, RELEVANCE, REPO, VARIANT, cli, demo_run
from touche.errors import ToucheError
from touche.guard import Files


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
