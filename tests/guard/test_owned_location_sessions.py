"""The location rule, as a property over whole sessions (docs/reliability.md, "What a command may
touch"): whatever the index root, the datasets, model, encodings and OCR caches and the helper
jar's place held before (a user's folders, files, links, pipes and devices at the names builds
use, forged records, dead writers' temporaries), each where a setting puts it or at its default,
and whatever sequence of builds (plain, shard by shard, assembled, from an ``irds:`` id), models,
encodings, OCR, jars and user edits follows, each call is held to test_output_folders.py's
``checked_call``: nothing the toolkit did not make changes, no call hangs or ends in a traceback.
``TOUCHE_OUTPUT_EXAMPLES=10000`` runs it long (docs/testing.md has the last long run)."""
from __future__ import annotations

import contextlib
import io
import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.guard.test_output_folders import (
    CALL_SECONDS,
    CALLS,
    FOLDER_COMMANDS,
    KINDS,
    REPO,
    VARIANTS,
    Timeout,
    call,
    checked_call,
    place_user_entry,
    snapshot,
)
from touche.guard import RECORD

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
        if not place_user_entry(path, kind, data, self.outside):
            if kind == "empty folder":
                path.mkdir()
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
    # the folder itself, or (when the file system gives the new index the deleted folder's inode) the file in it
    with pytest.raises(AssertionError, match=f"index changed R/{machine.keys[0]}(/inside.txt)?, which it did not make"):
        machine.index(VARIANTS[0], ())
