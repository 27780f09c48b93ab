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

from tests.shared import REPO
from touche.cli import main
from touche.guard import RECORD

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
    for path, was in sorted(before.items()):  # a folder before what it holds: the message names the first change
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


def place_user_entry(path: Path, kind: str, data: bytes, outside: Path) -> bool:
    """A user's entry of a kind both session machines place (a file, a folder with a file, links out
    of the folder, a pipe, a device like /dev/null inside tmp); False for a kind it does not make."""
    if kind == "file":
        path.write_bytes(data)
    elif kind == "folder":
        path.mkdir()
        (path / "inside.txt").write_bytes(data)
    elif kind == "link to a file outside":
        path.symlink_to(outside / "file.txt")
    elif kind == "link to a folder outside":
        path.symlink_to(outside / "dir")
    elif kind == "dangling link":
        path.symlink_to(outside / "nothing-here")
    elif kind == "pipe":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    else:
        return False
    return True


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
        if kind == "device" and os.geteuid() != 0:
            return
        if not place_user_entry(path, kind, data, self.outside) and kind == "forged record":
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
