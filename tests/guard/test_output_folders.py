"""The output rule, as a property over whole sessions (docs/reliability.md, "What a command may
touch"): whatever an output folder held before (a user's files of any name and suffix, links into
and out of it, pipes and private devices, stale and forged records, temporaries of live and dead
writers) and whatever sequence of run-all, sweep, choose, explore and compare calls and user edits
follows, after each call

* no path the command did not make has changed (kind, inode and content), inside the folder or out;
* the call ended in time (a pipe opened for reading back would block it) with success or a
  located error (exit 0 or 2, never a traceback);
* nothing it wrote is left half-written (no temporary of the writer's).

What a command made is tracked here, independently of the product's record: a path a call created
or changed belongs to that command until someone else changes it. Retrieval is computed once per
variant and replayed (``Session.run`` memoised): the property is about what happens to the files.
``TOUCHE_OUTPUT_EXAMPLES=10000`` runs it long (docs/testing.md has the last long run).
"""
from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from touche.cli import main
from touche.guard import RECORD

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("TOUCHE_OUTPUT_EXAMPLES", "60"))
CALL_SECONDS = 60  # a call that takes longer hangs (a pipe read back blocks for ever)
VARIANTS = [REPO / "configs" / "task1" / "examples" / name for name in ("1-bm25.yaml", "2-krovetz-bm25.yaml")]
FOLDER_COMMANDS = ("run-all", "sweep", "choose")
CALLS: dict[tuple[str, int], int] = {}  # (command, exit code) → calls, for the long run's report

# Names the commands write (and a few they do not), as a user's entries collide with them.
NAMES = ["run.txt", "1-bm25.txt", "2-krovetz-bm25.txt", "evaluation.md", "explore.html", "cmp.md", "page.html",
         "runs", "sets", "results.jsonl", "results.md", "results.csv", "sweep.png", "sweep.json", "suite.yaml",
         "choice.md", "topics.xml", "corpus", "notes.md", "plot.png", "table.csv", "data.json",
         ".touche-made", ".touche.lock", ".sweep.lock", ".touche-links", ".run.txt.999999.backup.tmp",
         ".run.txt.~touche.1.0123456789ab.tmp", ".results.md.~touche.999999.0123456789ab.tmp"]
KINDS = ["file", "folder", "link to a file outside", "link to a folder outside", "dangling link", "pipe",
         "device", "forged record"]


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under ``root`` (links not followed): kind, inode and content."""
    found = {}
    for path in [root, *sorted(root.rglob("*"))]:
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            content = os.readlink(path)
        elif stat.S_ISREG(info.st_mode):
            content = path.read_bytes()
        else:
            content = None
        found[str(path.relative_to(root))] = (stat.S_IFMT(info.st_mode), info.st_ino, content)
    return found


def dead_writers_temporary(path: str) -> bool:
    """A temporary of the writer's whose process is gone, or inside one (a folder's temporary):
    ours by its token, removed whole by the next write of its output."""
    from touche.atomic import process_alive, temporary_owner
    pids = [temporary_owner(part) for part in Path(path).parts]
    return any(pid is not None and not process_alive(pid) for pid in pids)


def checked_call(what: str, root: Path, elsewhere, run, is_record, may_change) -> list[str]:
    """The rule both state machines hold each call to: ``run()`` (exit code and text) ends in 0 or a
    located refusal (2) without a traceback; under ``root`` every path but the records (``is_record``)
    and what ``may_change`` is as it was (a dead writer's temporary aside), and no new temporary is
    left; ``elsewhere()`` (a snapshot of the inputs and what lies outside) is unchanged. Returns the
    paths under ``root`` the call created or changed, records aside: its own from now on."""
    before, before_elsewhere = snapshot(root), elsewhere()
    code, text = run()
    CALLS[what, code] = CALLS.get((what, code), 0) + 1
    assert code in (0, 2), f"{what} ended with {code}:\n{text}"
    assert "Traceback" not in text, text
    after = snapshot(root)
    for path, was in before.items():
        if path == "." or is_record(path) or may_change(path) or dead_writers_temporary(path):
            continue
        assert after.get(path) == was, f"{what} changed {path}, which it did not make:\n{text}"
    assert elsewhere() == before_elsewhere, f"{what} changed an input or something outside:\n{text}"
    leftovers = [p for p in after if ".~touche." in p and p not in before]
    assert not leftovers, f"{what} left temporaries: {leftovers}"
    return [path for path, now in after.items() if before.get(path) != now and path != "." and not is_record(path)]


class Timeout(Exception):
    pass


def call(*args: str) -> tuple[int, str]:
    """The command in this process, ended after CALL_SECONDS (the alarm interrupts a blocking open)."""
    def expire(signum, frame):
        raise Timeout(f"touche {' '.join(args)} took more than {CALL_SECONDS} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(CALL_SECONDS)
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(list(args))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def replayed_retrieval(jvm_started):
    """``Session.run`` once per variant, corpus and topics; then its result again."""
    from touche.retrieval.session import Session
    real, memo = Session.run, {}

    def run(self, loaded, *args, **kwargs):
        key = (str(loaded.path), repr(sorted(loaded.merged.items())), str(self.corpus_path), str(self.topics_path))
        if key not in memo:
            memo[key] = real(self, loaded, *args, **kwargs)
        return memo[key]
    Session.run = run
    yield
    Session.run = real


@pytest.fixture(scope="module")
def world(replayed_retrieval, fixture_corpus, index_root, tmp_path_factory):
    """The inputs every session reads: the fixture corpus, qrels, a finished sweep to choose from,
    two runs to explore and compare; made once, and checked unchanged after every call."""
    inputs = tmp_path_factory.mktemp("inputs")
    qrels = inputs / "qrels.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n1 0 Sa0000001-A00000002 0\n2 0 Sa0000002-A00000001 1\n")
    sweep_file = inputs / "sweep.yaml"
    sweep_file.write_text(yaml.safe_dump({
        "base": str(VARIANTS[0]), "grid": {"retrieval.similarity.k1": [0.9, 1.2]},
        "corpus": str(fixture_corpus), "topics": str(fixture_corpus / "topics.xml"),
        "qrels": {"relevance": str(qrels)}, "measure": "relevance:touche.nDCG@5", "measures": ["touche.nDCG@5"]}))
    finished = inputs / "finished-sweep"
    assert call("sweep", str(sweep_file), "-o", str(finished), "--index-root", str(index_root), "--quiet")[0] == 0
    runs = []
    for variant in VARIANTS:
        runs.append(inputs / f"{variant.stem}.txt")
        assert call("run", "-c", str(variant), "-i", str(fixture_corpus), "-t", str(fixture_corpus / "topics.xml"),
                    "-o", str(runs[-1]), "--index-root", str(index_root))[0] == 0
    return {"corpus": fixture_corpus, "qrels": qrels, "sweep_file": sweep_file, "finished": finished, "runs": runs,
            "index_root": index_root, "inputs": inputs}


class OutputFolders(RuleBasedStateMachine):
    """One output folder, what a user put there, and the commands that write into it."""
    world: dict = {}
    base: Path = Path()

    def __init__(self):
        super().__init__()
        self.number = getattr(OutputFolders, "_count", 0) + 1
        OutputFolders._count = self.number
        self.root = self.base / f"session-{self.number}"
        self.folder = self.root / "out"
        self.outside = self.root / "outside"
        self.outside.mkdir(parents=True)
        (self.outside / "file.txt").write_text("outside")
        (self.outside / "dir").mkdir()
        (self.outside / "dir" / "topics.xml").write_text("<topics/>")
        self.owner: dict[str, str] = {}  # path in the folder → the command that made it, or "user"
        self.calls = 0

    # ------------------------------------------------------------------------- the user's entries
    def _place(self, name: str, kind: str, data: bytes) -> None:
        path = self.folder / name
        if path.exists() or path.is_symlink():
            return
        if kind == "file":
            path.write_bytes(data)
        elif kind == "folder":
            path.mkdir()
            (path / "inside.txt").write_bytes(data)
        elif kind == "link to a file outside":
            path.symlink_to(self.outside / "file.txt")
        elif kind == "link to a folder outside":
            path.symlink_to(self.outside / "dir")
        elif kind == "dangling link":
            path.symlink_to(self.outside / "nothing-here")
        elif kind == "pipe":
            os.mkfifo(path)
        elif kind == "device":
            if os.geteuid() != 0:
                return
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # like /dev/null, inside tmp
        elif kind == "forged record":
            path.write_text('{"name": "notes.md", "kind": "file", "size": 1, "sha256": "00"}\nrun.txt\n'
                            '{"name": "evaluation.md", "gone": true}\n')
        for entry in [path, *(path.rglob("*") if path.is_dir() and not path.is_symlink() else [])]:
            self.owner[str(entry.relative_to(self.folder))] = "user"

    @initialize(entries=st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(KINDS), st.binary(max_size=20)),
                                 max_size=6))
    def prior_contents(self, entries):
        self.folder.mkdir()
        for name, kind, data in entries:
            self._place(name, kind, data)

    @rule(name=st.sampled_from(NAMES), kind=st.sampled_from(KINDS), data=st.binary(max_size=20))
    def user_adds(self, name, kind, data):
        self._place(name, kind, data)

    @precondition(lambda self: any(o != "user" for o in self.owner.values()))
    @rule(data=st.data())
    def user_edits_what_a_command_made(self, data):
        made = sorted(p for p, o in self.owner.items() if o != "user" and (self.folder / p).is_file()
                      and not (self.folder / p).is_symlink() and not p.startswith(".touche"))
        if made:
            path = self.folder / data.draw(st.sampled_from(made))
            path.write_bytes(path.read_bytes() + b"\nedited by hand\n")
            self.owner[str(path.relative_to(self.folder))] = "user"

    # ------------------------------------------------------------------------- the commands
    def _command(self, command: str, args: list[str], named: tuple[Path, ...] = ()) -> None:
        """Run it; then check the rule against what it may touch: its own earlier outputs (folder
        commands) or the files it was named (explore, compare)."""
        allowed = {str(p.relative_to(self.folder)) for p in named}

        def mine(path: str) -> bool:
            return self.owner.get(path) == command if command in FOLDER_COMMANDS else path in allowed
        made = checked_call(command, self.folder, self._outside_snapshot, lambda: call(*args),
                            lambda path: path == RECORD, mine)
        self.calls += 1
        for path in made:
            self.owner[path] = command

    def _outside_snapshot(self) -> dict:
        inputs = self.world["inputs"]
        return {"outside": snapshot(self.outside), "inputs": snapshot(inputs)}

    @rule(variants=st.sampled_from([VARIANTS[:1], VARIANTS]), with_qrels=st.booleans())
    def run_all(self, variants, with_qrels):
        suite = self.root / f"suite-{len(variants)}.yaml"
        suite.write_text(yaml.safe_dump({"variants": [str(v) for v in variants], "primary": str(variants[0])}))
        args = ["run-all", "-i", str(self.world["corpus"]), "-o", str(self.folder), "--suite", str(suite),
                "--index-root", str(self.world["index_root"])]
        self._command("run-all", args + (["--qrels", str(self.world["qrels"])] if with_qrels else []))

    @rule()
    def sweep(self):
        self._command("sweep", ["sweep", str(self.world["sweep_file"]), "-o", str(self.folder), "--quiet",
                                "--index-root", str(self.world["index_root"])])

    @rule(count=st.integers(1, 2))
    def choose(self, count):
        self._command("choose", ["choose", str(self.world["finished"]), "--out", str(self.folder), "--count",
                                 str(count), "--no-reference", "--no-second", "--index-root",
                                 str(self.world["index_root"])])

    @rule(name=st.sampled_from(["explore.html", "page.html"]))
    def explore(self, name):
        page = self.folder / name
        self._command("explore", ["explore", *map(str, self.world["runs"]), "-o", str(page)], named=(page,))

    @rule(name=st.sampled_from(["cmp.md", "notes.md"]))
    def compare(self, name):
        report = self.folder / name
        a, b = self.world["runs"]
        self._command("compare", ["compare", str(a), str(b), str(self.world["qrels"]), "-o", str(report)],
                      named=(report,))

    @invariant()
    def no_temporary_of_ours_outlives_a_call(self):
        if self.folder.exists():
            planted = {".run.txt.~touche.1.0123456789ab.tmp", ".results.md.~touche.999999.0123456789ab.tmp"}
            stray = [p.name for p in self.folder.iterdir() if ".~touche." in p.name and p.name not in planted]
            assert not stray, stray


def test_no_command_touches_what_it_did_not_make(world, tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_PIPE_WAIT", "0.2")  # a pipe nobody reads is refused after this long
    OutputFolders.world = world
    OutputFolders.base = tmp_path
    run_state_machine_as_test(OutputFolders, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=6, deadline=None, derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                               HealthCheck.filter_too_much]))
    print("calls (command, exit code):", dict(sorted(CALLS.items())))


def test_the_check_sees_a_command_that_deletes_a_users_file(world, tmp_path, monkeypatch):
    """The property is only as good as its check: a run-all that deletes evaluation.md whatever
    made it (f1b1620's) is caught."""
    from touche.guard import OutputFolder
    monkeypatch.setattr(OutputFolder, "remove", lambda self, name: (self.path / name).unlink() or True)
    OutputFolders.world, OutputFolders.base = world, tmp_path
    machine = OutputFolders()
    machine.prior_contents([("evaluation.md", "file", b"mine")])
    with pytest.raises(AssertionError, match="changed evaluation.md, which it did not make"):
        machine.run_all(VARIANTS[:1], with_qrels=False)


# ------------------------------------------------------------------ the locations a user names
# The same rule over the index root (plain and sharded builds, from a folder or an ir_datasets id),
# the datasets cache, the model and encodings cache, the OCR cache and the helper jar's place, each
# where a setting puts it or at its default. What is built is built by the product's own code down to
# the files; only Lucene's filling of an index, the JVM's analyzers, the shard processes' spawning,
# javac and Tesseract are stood in for (what happens to the files is the property, and a build then
# costs milliseconds, so long runs are long in examples).
LOCATION_EXAMPLES = int(os.environ.get("TOUCHE_OUTPUT_EXAMPLES", "25"))
LOCATION_KINDS = [*KINDS, "empty folder", "arguments", "jar of our classes"]
DATASET = "argsme/2020-04-01/touche-2021-task-1"


def quick_fill(tmp, source, analyzer, analyzer_spec, spec, target, progress):
    """What builder._fill leaves, without Lucene: a segment file and the index's description."""
    count = sum(1 for _ in source.documents(list(spec.fields)))
    (tmp / "_0.cfs").write_bytes(b"segment")
    return {"format": 1, "corpus": source.describe(), "analyzer": analyzer_spec.model_dump(mode="json"),
            "index": spec.model_dump(mode="json"), "stats": {"documents": count, "fields": {}},
            "build": {"seconds": 0.0, "docs_per_second": None, "skipped_records": 0, "skipped": [], "created": "now"}}


class InlinePool:
    """build_sharded's process pool, run in this process (the shard processes' own code)."""

    def __init__(self, *args, **kwargs):
        pass

    def imap_unordered(self, function, jobs):
        return map(function, jobs)

    def close(self):
        pass

    join = terminate = close


def our_jar(path: Path) -> None:
    import zipfile
    with zipfile.ZipFile(path, "w") as packed:
        packed.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        packed.writestr("touche/lucene/BatchSearcher.class", b"\xca\xfe\xba\xbe")


@pytest.fixture
def stand_ins(jvm_started, monkeypatch):
    import multiprocessing
    import subprocess

    from touche import jvm
    from touche.indexing import builder, ocr
    from touche.retrieval.encoders import dense
    monkeypatch.setattr(builder, "_fill", quick_fill)
    monkeypatch.setattr(builder, "_statistics", lambda paths, analyzer, fields: {"documents": 0, "fields": {}})
    monkeypatch.setattr(builder.analyzers, "build", lambda spec, base_dir=None: None)
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: type("Context", (), {"Pool": InlinePool}))
    real_run = subprocess.run

    def tools(cmd, **kwargs):  # javac compiles nothing; jar packs our classes at the path it is given
        if Path(cmd[0]).name == "jar":
            our_jar(Path(cmd[2]))
        return real_run(cmd, **kwargs) if Path(cmd[0]).name not in ("javac", "jar") else \
            subprocess.CompletedProcess(cmd, 0, "", "")
    monkeypatch.setattr(jvm.subprocess, "run", tools)
    engine = ocr.OcrEngine("tesseract", "stand-in")
    monkeypatch.setattr(ocr, "engine", lambda *args, **kwargs: engine)
    monkeypatch.setattr(ocr.OcrEngine, "run", lambda self, image: [[("STRESS", 90.0)]])
    monkeypatch.setitem(dense.PACKAGED_MODELS, "tiny-packaged", ("tiny_model_pkg", "tiny-model-pkg"))
    return engine


@pytest.fixture(scope="module")
def location_world(fixture_corpus, tmp_path_factory):
    """What every session reads: the corpus, args.me's five files of ir_datasets, a packaged tiny
    model, two images."""
    import json
    import zipfile

    from tests.retrieval.test_dense import write_tiny_model
    from touche import datasets as ds
    inputs = tmp_path_factory.mktemp("location-inputs")
    arguments = json.loads((REPO / "demo" / "args.me" / "args-demo.json").read_text(encoding="utf-8"))["arguments"]
    argsme = {}
    for i, f in enumerate(ds.ARGSME.files):
        argsme[f.relpath] = inputs / "argsme" / Path(f.relpath).name
        argsme[f.relpath].parent.mkdir(exist_ok=True)
        argsme[f.relpath].write_text(json.dumps({"arguments": arguments[i::5][:4]}), encoding="utf-8")
    tiny = write_tiny_model(inputs / "tiny")
    package = inputs / "site" / "tiny_model_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    with zipfile.ZipFile(package / "model.zip", "w") as zipped:
        for f in sorted(tiny.rglob("*")):
            zipped.write(f, f.relative_to(tiny).as_posix())
    (inputs / "site" / "tiny_model_pkg-0.3.dist-info").mkdir()
    (inputs / "site" / "tiny_model_pkg-0.3.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tiny-model-pkg\nVersion: 0.3\n")
    images = [inputs / "one.png", inputs / "two.png"]
    for number, image in enumerate(images):
        image.write_bytes(b"png %d" % number)
    return {"corpus": fixture_corpus, "argsme": argsme, "site": inputs / "site", "images": images, "inputs": inputs,
            "keys": index_names(fixture_corpus)}


def index_names(corpus: Path) -> list[str]:
    """The folder names `touche index -c VARIANT -i corpus` builds in, per variant."""
    from touche.config import load_variant
    from touche.indexing.builder import index_dir
    from touche.indexing.corpora import open_corpus
    names = []
    for variant in VARIANTS:
        loaded = load_variant(variant)
        names.append(index_dir(Path("."), loaded.variant, open_corpus("argsme", corpus), loaded.path.parent).name)
    return names


def attempt(what: str, function) -> tuple[int, str]:
    """A library call as a command would make it: 0, or 2 with the message of a located refusal
    (anything else propagates: a traceback is a failure)."""
    from touche.errors import ToucheError

    def expire(signum, frame):
        raise Timeout(f"{what} took more than {CALL_SECONDS} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(CALL_SECONDS)
    log = io.StringIO()
    try:
        with contextlib.redirect_stderr(log):
            function()
    except ToucheError as exc:
        return 2, f"{what}: {exc}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return 0, log.getvalue()


class OwnedLocations(RuleBasedStateMachine):
    """An index root, the caches and the jar's place of one session, what a user put there, and the
    builds that fill them."""
    world: dict = {}
    base: Path = Path()
    patch = None

    def __init__(self):
        super().__init__()
        self.number = getattr(OwnedLocations, "_count", 0) + 1
        OwnedLocations._count = self.number
        self.root = self.base / f"locations-{self.number}"
        self.outside = self.root / "outside"
        self.outside.mkdir(parents=True)
        (self.outside / "file.txt").write_text("outside")
        (self.outside / "dir").mkdir()
        (self.outside / "dir" / "notes.txt").write_text("outside")
        self.owner: dict[str, str] = {}
        self.keys = self.world["keys"]

    @initialize(settings=st.fixed_dictionaries({"datasets": st.booleans(), "models": st.booleans(),
                                                "ocr": st.booleans()}),
                entries=st.lists(st.tuples(st.integers(0, 10 ** 6), st.sampled_from(LOCATION_KINDS),
                                           st.binary(max_size=12)), max_size=6))
    def prior_contents(self, settings, entries):
        """Where the settings put each location (a setting's folder, or its default inside the index
        root or ir_datasets' cache), and a user's entries at names the builds use."""
        irds = self.root / "irds"
        for relpath, source in self.world["argsme"].items():
            (irds / relpath).parent.mkdir(parents=True, exist_ok=True)
            (irds / relpath).symlink_to(source)
        self.index_root = self.root / "R"
        self.caches = {"datasets": self.root / "C" if settings["datasets"] else irds / "touche-toolkit",
                       "models": self.root / "M" if settings["models"] else self.index_root / "models",
                       "ocr": self.root / "O" if settings["ocr"] else self.index_root / "ocr-cache"}
        self.jar = self.root / "J" / "helpers.jar"
        environment = {"IR_DATASETS_HOME": irds, "TOUCHE_INDEX_ROOT": self.index_root, "TOUCHE_HELPER_JAR": self.jar,
                       "TOUCHE_DATASETS_CACHE": self.caches["datasets"] if settings["datasets"] else None,
                       "TOUCHE_MODEL_CACHE": self.caches["models"] if settings["models"] else None,
                       "TOUCHE_OCR_CACHE": self.caches["ocr"] if settings["ocr"] else None}
        for name, value in environment.items():
            if value is None:
                self.patch.delenv(name, raising=False)
            else:
                self.patch.setenv(name, str(value))
        for entry, kind, data in entries:
            names = self.names()
            self._place(names[entry % len(names)], kind, data)

    def names(self) -> list[str]:
        """The entries (relative to the session) the builds make, and a few beside them."""
        from touche.indexing import ocr
        from touche.retrieval.encoders import dense
        k1, k2 = self.keys
        r = self.index_root.relative_to(self.root)
        names = [f"{r}/{k1}", f"{r}/{k1}/notes.txt", f"{r}/{k1}.shards", f"{r}/{k1}.shards/shard-0-of-2",
                 f"{r}/{k1}.shards/shard-1-of-2", f"{r}/{k1}.shards/notes.txt", f"{r}/{k1}.shards/.touche-made",
                 f"{r}/{k2}", f"{r}/.{k1}.touche.lock", f"{r}/{k1}.lock", f"{r}/.touche-made", f"{r}/notes.txt",
                 f"{r}/.{k1}.~touche.999999.0123456789ab.tmp", f"{r}/models", f"{r}/ocr-cache"]
        c = self.caches["datasets"].relative_to(self.root)
        names += [f"{c}/argsme-2020-04-01", f"{c}/argsme-2020-04-01/corpus", f"{c}/.touche-made",
                  f"{c}/argsme-2020-04-01/.touche-made", f"{c}/argsme-2020-04-01/.touche.lock",
                  *(f"{c}/argsme-2020-04-01/corpus/{n}" for n in ("debateorg.json", "extra.json", "mine.json",
                                                                    ".touche-made"))]
        m = self.caches["models"].relative_to(self.root)
        names += [f"{m}/tiny-packaged-0.3", f"{m}/tiny-packaged-0.3/notes.txt", f"{m}/encodings",
                  f"{m}/.touche-made", f"{m}/encodings/.touche-made"]
        weights = self.caches["models"] / "tiny-packaged-0.3" / "model.safetensors"
        if weights.is_file() and not weights.is_symlink():
            names.append(str(dense.encodings_file(weights.parent, 16).relative_to(self.root)))
        o = self.caches["ocr"]
        for image in self.world["images"]:
            entry = ocr._entry(o, ocr.file_digest(image), ocr.engine())
            names += [str(entry.parent.relative_to(self.root)), str(entry.relative_to(self.root))]
        names += [f"{o.relative_to(self.root)}/.touche-made", "J/helpers.jar", "J/.touche-made", "J/notes.txt"]
        return names

    # ------------------------------------------------------------------------- the user's entries
    def _place(self, name: str, kind: str, data: bytes) -> None:
        path = self.root / name
        if path.exists() or path.is_symlink():
            return
        missing = [p for p in reversed(path.parents) if p.is_relative_to(self.root) and not p.exists()]
        if any(p.is_symlink() for p in path.parents if p.is_relative_to(self.root)) or \
                any(not p.is_dir() for p in path.parents if p.is_relative_to(self.root) and p.exists()):
            return  # no real folder to put it in
        if kind == "device" and os.geteuid() != 0:
            return
        for parent in missing:
            parent.mkdir()
            self.owner[str(parent.relative_to(self.root))] = "user"
        if kind == "file":
            path.write_bytes(data)
        elif kind == "folder":
            path.mkdir()
            (path / "inside.txt").write_bytes(data)
        elif kind == "empty folder":
            path.mkdir()
        elif kind == "link to a file outside":
            path.symlink_to(self.outside / "file.txt")
        elif kind == "link to a folder outside":
            path.symlink_to(self.outside / "dir")
        elif kind == "dangling link":
            path.symlink_to(self.outside / "nothing-here")
        elif kind == "pipe":
            os.mkfifo(path)
        elif kind == "device":
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        elif kind == "forged record":  # every name of the folder forged as the toolkit's
            names = [p.name for p in path.parent.iterdir()] + ["shard-0-of-2", "corpus", "tiny-packaged-0.3"]
            forged = [f'{{"name": "{n}", "kind": "folder", "command": "touche"}}\n' for n in names]
            path.write_text("".join(forged) + '{"name": "helpers.jar", "kind": "file", "size": 1, "sha256": "00", '
                            '"command": "touche"}\n')
        elif kind == "arguments":
            path.write_text('{"arguments": [{"id": "Sx-A1", "conclusion": "c", "premises": [{"text": "t", '
                            '"stance": "PRO"}]}]}')
        elif kind == "jar of our classes":  # what an older version compiled there, unrecorded
            our_jar(path)
        for entry in [path, *(path.rglob("*") if path.is_dir() and not path.is_symlink() else [])]:
            self.owner[str(entry.relative_to(self.root))] = "user"

    @rule(entry=st.integers(0, 10 ** 6), kind=st.sampled_from(LOCATION_KINDS), data=st.binary(max_size=12))
    def user_adds(self, entry, kind, data):
        names = self.names()
        self._place(names[entry % len(names)], kind, data)

    @precondition(lambda self: any(o == "touche" for o in self.owner.values()))
    @rule(data=st.data())
    def user_changes_what_the_toolkit_made(self, data):
        made = sorted(p for p, o in self.owner.items() if o == "touche" and (self.root / p).exists()
                      and not (self.root / p).is_symlink() and Path(p).name != RECORD)
        if made:
            path = self.root / data.draw(st.sampled_from(made))
            if path.is_dir():
                (path / "mine.txt").write_text("a user's")
                self.owner[str((path / "mine.txt").relative_to(self.root))] = "user"
            else:
                path.write_bytes(path.read_bytes() + b"\nedited by hand\n")
                self.owner[str(path.relative_to(self.root))] = "user"

    @rule(data=st.data())
    def user_removes_a_record(self, data):
        """Without its record nothing in a folder is the toolkit's any more: all of it is judged anew."""
        records = sorted(p for p in self.root.rglob(RECORD) if p.is_file() and not p.is_symlink())
        if records:
            record = data.draw(st.sampled_from(records))
            record.unlink()
            for entry in record.parent.iterdir():
                self.owner[str(entry.relative_to(self.root))] = "user"

    # ------------------------------------------------------------------------- the builds
    def _adoptable(self) -> set[str]:
        """What the compatibility rules may take as the toolkit's: a jar of our classes only, an
        encodings database of the encodings table only (what an older version made, unrecorded),
        and shards recognised by what they hold (gathered from other machines, say by rsync, so
        unrecorded here): a finished shard, a shards folder of finished shards only, with all
        they hold (assembling moves them into the index)."""
        from touche import jvm
        from touche.indexing import builder
        from touche.retrieval.encoders import dense
        found = {p for p in self.root.rglob("*") if p.is_file() and not p.is_symlink()
                 and (jvm.is_helper_jar(p) or dense._is_encodings_database(p))}
        shards = [p for p in self.root.rglob("*") if p.is_dir() and not p.is_symlink()
                  and (builder._built_shard(p) or p.name.endswith(".shards") and builder._gathered_shards(p))]
        found |= {q for shard in shards for q in [shard, *shard.rglob("*")]}
        return {str(p.relative_to(self.root)) for p in found}

    def _build(self, what: str, function) -> None:
        adoptable = self._adoptable()
        made = checked_call(what, self.root, lambda: snapshot(self.world["inputs"]), function,
                            lambda path: Path(path).name == RECORD,
                            lambda path: self.owner.get(path) == "touche" or path in adoptable)
        for path in made:
            self.owner[path] = "touche"

    @rule(variant=st.sampled_from(VARIANTS), layout=st.sampled_from([(), ("--shards", "2", "--shard", "0"),
                                                                      ("--shards", "2", "--shard", "1"),
                                                                      ("--shards", "2")]))
    def index(self, variant, layout):
        self._build("index", lambda: call("index", "-c", str(variant), "-i", str(self.world["corpus"]),
                                          "--index-root", str(self.index_root), *layout))

    @rule()
    def index_a_dataset(self):
        self._build("index irds:", lambda: call("index", "-c", str(VARIANTS[0]), "-i", f"irds:{DATASET}"))

    @rule()
    def model(self):
        from touche.retrieval.encoders import dense

        def encode():
            folder = dense.resolve_model("tiny-packaged")
            cache = dense.EncodingCache(dense.encodings_file(folder, 16))
            cache.put({"a": dense.np.ones(2, dtype=dense.np.float32)})
            cache.get(["a"])
        self._build("model", lambda: attempt("model", encode))

    @rule()
    def ocr(self):
        from touche.indexing import ocr
        images = [(str(i), image) for i, image in enumerate(self.world["images"])]
        self._build("ocr", lambda: attempt("ocr", lambda: list(ocr.ocr_texts(images))))

    @rule()
    def jar(self):
        from touche import jvm
        self._build("jar", lambda: attempt("jar", lambda: jvm.build_helpers(force=True, target=self.jar)))


def test_no_build_or_cache_touches_what_it_did_not_make(location_world, stand_ins, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(location_world["site"]))
    OwnedLocations.world, OwnedLocations.base, OwnedLocations.patch = location_world, tmp_path, monkeypatch
    run_state_machine_as_test(OwnedLocations, settings=settings(
        max_examples=LOCATION_EXAMPLES, stateful_step_count=6, deadline=None, derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                               HealthCheck.filter_too_much]))
    print("calls (build, exit code):", dict(sorted((k, v) for k, v in CALLS.items() if k[0] not in FOLDER_COMMANDS)))


def test_the_check_sees_a_build_that_deletes_a_users_folder_in_the_indexs_place(location_world, stand_ins, tmp_path,
                                                                              monkeypatch):
    """The property is only as good as its check: the builder that deleted a folder in the
    index's place (03240b1's) is caught."""
    import shutil

    from touche.indexing import builder

    def deleting(folder, name, what):
        shutil.rmtree(folder.path / name, ignore_errors=True)
    monkeypatch.setattr(builder, "free_place", deleting)
    monkeypatch.syspath_prepend(str(location_world["site"]))
    OwnedLocations.world, OwnedLocations.base, OwnedLocations.patch = location_world, tmp_path, monkeypatch
    machine = OwnedLocations()
    machine.prior_contents({"datasets": True, "models": True, "ocr": True}, [])
    machine._place(f"R/{machine.keys[0]}", "folder", b"mine")
    with pytest.raises(AssertionError, match=f"index changed R/{machine.keys[0]}, which it did not make"):
        machine.index(VARIANTS[0], ())
