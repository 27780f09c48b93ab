"""The toolkit's worker processes never run the caller's script again (touche/processes.py): a
script without ``if __name__ == "__main__":`` that reads ClueWeb12 with a pool or builds shards
in processes runs once (before, each worker re-ran it, and each of those started workers again,
without end)."""
from __future__ import annotations

import subprocess
import sys
import types

import pytest

from tests.shared import REPO
from tests.tasks.test_task2 import _write_corpus
from touche.processes import callers_script_hidden

READ_CLUEWEB = """
from touche.indexing.clueweb import ClueWebSource
print(len(list(ClueWebSource(Path("corpus"), workers=2).records())))
"""
BUILD_SHARDS = """
from tests.shared import write_argsme
from touche.config import VariantSpec
from touche.indexing.builder import ensure_index
write_argsme(Path("args/args.json"), [(f"S{i:07x}-A{i:08x}", f"claim {i}", [(f"premise {i}", "PRO")], "t")
                                      for i in range(8)])
variant = VariantSpec(tag="t", index={"fields": ["contents"], "threads": 1})
print(ensure_index(variant, Path("args"), Path("R"), shards=2, progress=False).meta["stats"]["documents"])
"""


@pytest.mark.parametrize("work, printed", [(READ_CLUEWEB, "4"), (BUILD_SHARDS, "8")], ids=["clueweb-pool", "shards"])
def test_a_script_without_a_main_guard_runs_once_whatever_workers_it_starts(tmp_path, work, printed):
    _write_corpus(tmp_path / "corpus", files=4, per_file=1)
    script = tmp_path / "unguarded.py"
    script.write_text(f"import sys\nfrom pathlib import Path\nsys.path.insert(0, {str(REPO)!r})\n"
                      "with open('runs.txt', 'a') as out:\n    out.write('ran\\n')\n" + work)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == f"{printed}\n" and (tmp_path / "runs.txt").read_text() == "ran\n"


def test_the_callers_names_are_hidden_only_while_workers_start(monkeypatch):
    main = types.ModuleType("__main__")
    spec = types.SimpleNamespace(name="my_script")
    main.__file__, main.__spec__ = "/somewhere/my_script.py", spec
    monkeypatch.setitem(sys.modules, "__main__", main)
    with callers_script_hidden():
        assert not hasattr(main, "__file__") and main.__spec__ is None
    assert main.__file__ == "/somewhere/my_script.py" and main.__spec__ is spec
    with pytest.raises(KeyError), callers_script_hidden():
        raise KeyError("a pool that failed to start")
    assert main.__file__ == "/somewhere/my_script.py" and main.__spec__ is spec
    del main.__file__  # an interactive session: nothing to hide, nothing made up afterwards
    with callers_script_hidden():
        assert main.__spec__ is None
    assert not hasattr(main, "__file__") and main.__spec__ is spec
    monkeypatch.delitem(sys.modules, "__main__")
    with callers_script_hidden():
        pass
