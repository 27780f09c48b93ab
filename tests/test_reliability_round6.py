"""Reliability round 6: every value checked, not only every line. Each test is one problem a red
team found on 1f6097e (docs/reliability.md, "Round 6"): outputs that replaced a pipe or a device,
a choose folder that indexed a file it did not make, model files and numbers checked by shape but
not by value, YAML without a budget, a file output equal to a folder output, invisible characters
in run names, and messages that said things twice."""
from __future__ import annotations

import gzip
import json
import os
import re
import socket
import stat
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.shared import cli, demo_run
from touche.errors import ConfigError, InputError, ToucheError

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "demo"
RELEVANCE = DEMO / "qrels-relevance.txt"


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    return demo_run(tmp_path / "a.txt", tag="a"), demo_run(tmp_path / "b.txt", tag="b", topics={"1", "2", "3"})


class FifoReader:
    """Reads a named pipe in a thread while a command writes into it (a writer blocks until then)."""

    def __init__(self, path: Path):
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as pipe:
            self.data = pipe.read()

    def text(self) -> str:
        self.thread.join(30)
        return self.data.decode("utf-8")


# --------------------------------------------------------------------------- 1. pipes and devices
def test_a_named_pipe_and_a_private_device_are_written_into_never_replaced(tmp_path):
    """`compare -o FIFO` turned the pipe into a regular file; as root `-o /dev/null` replaced the
    machine's /dev/null. Here a FIFO and a character device of our own (mknod in tmp_path: the
    system's /dev is never touched) stay what they are, and the pipe's reader gets the report."""
    a, b = two_runs(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "-o", str(fifo))
    assert code == 0, text
    assert "| topic |" in reader.text() or "touche.nDCG@5" in reader.text()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null
    except PermissionError:
        pytest.skip("mknod needs root (CI and TIRA run as root)")
    link = tmp_path / "stdout-like"
    link.symlink_to(null)  # /dev/stdout is such a link
    for target in (null, link):
        code, text = cli("explore", str(a), str(b), "-o", str(tmp_path / "page.html"), "--csv", str(target))
        assert code == 0, text
        assert stat.S_ISCHR(os.stat(null).st_mode) and stat.S_ISCHR(os.lstat(null).st_mode)
    assert link.is_symlink()


def test_dash_is_standard_output_and_status_lines_move_aside(tmp_path, capfd):
    a, b = two_runs(tmp_path)
    from touche.cli import main
    assert main(["compare", str(a), str(b), str(RELEVANCE), "-o", "-"]) == 0
    out, err = capfd.readouterr()
    assert out.count("## b.txt vs a.txt") == 1 and "wrote" not in out  # the report once, nothing else on stdout
    assert main(["explore", str(a), str(b), "-o", str(tmp_path / "p.html"), "--csv", "-"]) == 0
    out, err = capfd.readouterr()
    assert out.startswith("run,") and "wrote" not in out and "wrote" in err
    assert not (Path.cwd() / "-").exists()
    code, text = cli("explore", str(a), str(b), "-o", "-", "--csv", "-")
    assert code == 2 and "both go to standard output" in text


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


def test_a_folder_link_or_file_in_place_of_a_built_folder_is_refused_not_deleted(tmp_path):
    from touche.atomic import atomic_directory
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious.txt").write_text("x")
    link = tmp_path / "index"
    link.symlink_to(kept)
    with pytest.raises(ToucheError, match="not a folder of its own"):
        with atomic_directory(link):
            raise AssertionError("built")  # never reached: refused before any work
    assert (kept / "precious.txt").read_text() == "x" and link.is_symlink()


# --------------------------------------------------------------------------- 2. folders a command fills
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


# --------------------------------------------------------------------------- 3. model files by value
def _stance_model() -> dict:
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE
    return json.loads(gzip.decompress(MODEL_FILE.read_bytes()))


@pytest.mark.parametrize("damage, named", [
    (lambda m: m["sentences"]["tfidf"].__setitem__("idf", [float("nan")] * len(m["sentences"]["tfidf"]["idf"])),
     "sentences.tfidf.idf"),
    (lambda m: m["sentences"]["cues"].__setitem__("scale", [0.0] * len(m["sentences"]["cues"]["scale"])),
     "sentences.cues.scale"),
    (lambda m: m["passages"]["all"]["coef"][0].__setitem__(0, 1e308), "passages.all.coef"),
    (lambda m: m["passages"]["folds"][2]["model"]["intercept"].__setitem__(1, True), "passages.folds[2].intercept"),
    (lambda m: m["sentences"]["tfidf"].__setitem__("ngram_range", [3, 1]), "ngram_range"),
])
def test_a_stance_model_with_values_out_of_range_is_refused(tmp_path, damage, named):
    """Every idf NaN ran without error and labelled 20 NO / 20 SECOND (stance F1 0.307, not 0.446)."""
    from touche.retrieval.tasks.task2.stance import learned as stance_model
    model = _stance_model()
    damage(model)
    path = tmp_path / "stance_model.json.gz"
    path.write_bytes(gzip.compress(json.dumps(model).encode()))
    with pytest.raises(InputError, match=re.escape(named)):
        stance_model.load(path)


@pytest.mark.parametrize("change, named", [
    ({"coef": [float("nan")] * 14}, "coef"), ({"std": [0.0] * 14}, "std"), ({"coef": [0.1] * 3}, "coef has shape"),
    ({"features": ["log_words", "nonsense"]}, "features"), ({"intercept": float("inf")}, "intercept"),
    ({"target_std": 0}, "target_std"), ({"mean": ["1"] * 14}, "mean holds '1'"),
])
def test_a_quality_model_with_values_out_of_range_is_refused(tmp_path, change, named):
    from touche.retrieval.stages.quality import model as quality_model
    model = {**json.loads(quality_model.MODEL_FILE.read_text()), **change}
    path = tmp_path / "quality_model.json"
    path.write_text(json.dumps(model))
    with pytest.raises(InputError, match=re.escape(named)):
        quality_model.load(path)


def test_the_shipped_models_pass_their_own_checks():
    from touche.retrieval.stages.quality import model as quality_model
    from touche.retrieval.tasks.task2.stance import learned as stance_model
    stance_model.check_model_data(_stance_model())
    quality_model.check_model_values(json.loads(quality_model.MODEL_FILE.read_text()))


# --------------------------------------------------------------------------- 4. numbers trec_eval cannot hold
@pytest.mark.parametrize("label", ["3000000000", "2147483648", "100000000000000000000", "-1001", "1001"])
def test_a_label_beyond_what_trec_eval_holds_is_refused_with_its_line(tmp_path, label):
    qrels = tmp_path / "qrels.txt"
    lines = RELEVANCE.read_text().splitlines()
    lines[3] = " ".join(lines[3].split()[:3] + [label])
    qrels.write_text("\n".join(lines) + "\n")
    run = demo_run(tmp_path / "run.txt")
    code, text = cli("evaluate", str(run), str(qrels))
    assert code == 2 and f"{qrels}, line 4: label {label} lies outside -1000…1000" in text


def test_the_label_range_holds_at_its_bounds(tmp_path):
    from touche.retrieval.formats.gate import load_qrels
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a -1000\n1 0 b 1000\n1 0 c 5\n")
    assert load_qrels(qrels).judgments == {"1": {"a": -1000, "b": 1000, "c": 5}}


@pytest.mark.parametrize("measure", ["trec.AP(rel=99999999999999999999)", "trec.AP(rel=3000000000)",
                                     "trec.P(rel=2.5)@10"])
def test_a_measure_parameter_beyond_the_labels_is_refused(tmp_path, measure):
    code, text = cli("evaluate", str(demo_run(tmp_path / "run.txt")), str(RELEVANCE), "--measures", measure)
    assert code == 2 and "its label parameter" in text and "internal error" not in text


@pytest.mark.parametrize("score, refused", [("3.4028234663852886e38", False), ("-3.4028234663852886e38", False),
                                            ("3.5e38", True), ("1e39", True), ("-1e300", True)])
def test_a_score_beyond_a_32_bit_float_is_refused_in_a_file_and_a_frame(tmp_path, score, refused):
    """Scores ×1e39 all became infinite in trec_eval and tied: trec.nDCG@5 0.453 instead of 0.612."""
    from touche.retrieval.formats.gate import load_run
    run = tmp_path / "run.txt"
    run.write_text(f"1 Q0 d1 1 {score} t\n")
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "score": [float(score)]})
    for source in (run, frame):
        if refused:
            with pytest.raises(InputError, match=r"beyond ±3\.4028234663852886e\+38"):
                load_run(source)
        else:
            assert load_run(source).frame["score"].tolist()[0] == float(score)


# --------------------------------------------------------------------------- 5. frames of odd dtypes
@pytest.mark.parametrize("scores", [np.array([True, False]), pd.array([True, False], dtype="boolean"),
                                    np.array([True, False], dtype=object), np.array(["2", "1"], dtype=object),
                                    pd.array(["2", "1"], dtype="string")])
def test_a_frame_scored_by_bools_or_text_is_refused_as_its_file_is(scores):
    """A numpy bool score column was scored (0.857) where the same file is refused."""
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], "score": scores})
    with pytest.raises(InputError, match="is not a number"):
        load_run(frame)


# --------------------------------------------------------------------------- 6. YAML within a budget
def _bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "tag: t\ndescription:\n  " + "\n  ".join(lines) + "\n"


@pytest.mark.parametrize("text, said", [
    (_bomb(), "aliases expanded"),  # 72 aliases: ran 90 s and 2.4 GB
    ("tag: t\nx: [" + ",".join(["0"] * 1_500_000) + "]\n", "characters: a configuration has at most"),  # 3 MB
    ("tag: t\nx: [" + ",".join(["0"] * 30_000) + "]\n", "more than 20,000 values"),
    ("tag: t\nretrieval: {top_k: !!int 0b1}\n", "'0b1' is not an integer"),
    ("tag: t\nretrieval: {top_k: !!int abc}\n", "'abc' is not an integer"),
    ("tag: t\nretrieval: {top_k: " + "9" * 5000 + "}\n", "an integer of 5,000 digits"),
    ("tag: t\nx: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 64 levels"),
    ("base: &b {top_k: 10}\nretrieval:\n  <<: *b\n", "merge key (<<) is YAML 1.1"),
    ("tag: t\nx: !!float abc\n", "'abc' is not a number in the digits 0-9"),
])
def test_yaml_beyond_its_budget_is_a_located_config_error(tmp_path, text, said):
    from touche.config import load_variant
    path = tmp_path / "v.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(said)) as refused:
        load_variant(path)
    assert str(path) in str(refused.value) and len(str(refused.value)) < 500
    code, printed = cli("analyze", "-c", str(path), "x")
    assert code == 2 and said in printed and "Traceback" not in printed


def test_a_huge_integer_in_set_is_a_config_error():
    code, text = cli("analyze", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"),
                     "--set", "retrieval.top_k=" + "9" * 5000, "x")
    assert code == 2 and "an integer of 5,000 digits" in text and len(text) < 500


def test_a_yaml_document_within_the_budget_still_reads():
    from touche.config import load_yaml
    nested: list = []
    for _ in range(59):
        nested = [nested]
    assert load_yaml("a: &a [1, 2]\nb: *a\nc: " + "[" * 60 + "]" * 60 + "\nd: 0x1f\ne: 010\n") == {
        "a": [1, 2], "b": [1, 2], "c": nested, "d": 31, "e": 10}


# --------------------------------------------------------------------------- 7. file and folder outputs
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


# --------------------------------------------------------------------------- 8. invisible characters
def test_a_right_to_left_override_in_a_run_name_is_shown_not_obeyed(tmp_path):
    from touche.retrieval.experiments.explorer.build import write_explorer
    evil = demo_run(tmp_path / "evil\u202etxt.exe.txt", tag="e")
    plain = demo_run(tmp_path / "plain.txt", tag="p")
    exports = {kind: tmp_path / f"x.{kind}" for kind in ("markdown", "latex", "csv")}
    write_explorer([plain, evil], {"relevance": RELEVANCE}, tmp_path / "page.html", exports=exports)
    for path in [*exports.values(), tmp_path / "page.html"]:
        text = path.read_text(encoding="utf-8")
        assert "\u202e" not in text and "evil[U+202E]txt.exe" in text, path.name
    code, text = cli("evaluate", str(evil), str(RELEVANCE))
    assert code == 0 and "\u202e" not in text and "[U+202E]" in text


def test_a_baseline_named_with_an_invisible_character_is_still_its_run(tmp_path):
    from touche.retrieval.experiments.explorer.build import write_explorer
    runs = [demo_run(tmp_path / "a.txt", tag="a"), demo_run(tmp_path / "b.txt", tag="b")]
    write_explorer(runs, {"relevance": RELEVANCE}, tmp_path / "p.html", names=["v\u200b1", "v2"], baseline="v\u200b1")
    assert '"baseline":"v[U+200B]1"' in (tmp_path / "p.html").read_text(encoding="utf-8").replace(": ", ":")


def test_standard_output_without_a_binary_buffer_takes_text(capsys):
    import contextlib
    import io

    from touche.atomic import write_text
    with contextlib.redirect_stdout(io.StringIO()) as out:
        write_text("-", "a table\n")
    assert out.getvalue() == "a table\n"


# --------------------------------------------------------------------------- 9. messages
def test_a_sweep_measure_without_its_qrels_name_says_what_it_got_once(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep.loading import load_sweep
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(), "b": demo_set()}, tmp_path / "out",
                      measure="touche.nDCG@5")
    with pytest.raises(ToucheError) as refused:
        load_sweep(path)
    assert str(refused.value).count("got 'touche.nDCG@5'") == 1


def test_validate_says_file_colon_error_when_no_line_is_to_blame(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, text = cli("validate", str(empty))
    assert f"{empty}: error: cannot detect the run format" in text and "::" not in text
    code, text = cli("validate", str(empty), "--format", "q0")
    assert f"{empty}: error: the run has no rows" in text


def test_a_pick_tied_with_the_best_ranks_first_where_every_point_ties():
    from touche.retrieval.experiments.robust import SetScores, leave_one_set_out
    per_topic = {p: {"1": 0.5, "2": 0.5} for p in ("1", "2", "3")}
    sets = [SetScores("a", 1.0, per_topic), SetScores("b", 1.0, per_topic)]
    for transfer in leave_one_set_out(sets, ["1", "2", "3"]):
        assert transfer.rank == 1.0 and transfer.best == "1"


def test_an_empty_corpus_list_is_refused_before_the_output_folder_is_made(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set(corpus=[])}, tmp_path / "out")
    with pytest.raises(ToucheError, match="corpus"):
        run_sweep(path, progress=False)
    assert not (tmp_path / "out").exists()
    from touche.indexing.corpora import check_corpus_files
    with pytest.raises(InputError, match="corpus list is empty"):
        check_corpus_files({}, "argsme")

