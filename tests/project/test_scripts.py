"""The shell entry points: arguments the wrapper itself parses fail with a located message."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "TOUCHE_TEST_TOOLS": "0"}  # the environment exists: no test-tool installs


@pytest.mark.parametrize("option", ["-i", "-o", "-c", "-s", "--input"])
def test_run_all_names_an_option_given_without_its_value(option):
    done = subprocess.run(["bash", str(REPO / "run_all.sh"), option], capture_output=True, text=True,
                          timeout=120, env=ENV)
    assert done.returncode == 2
    assert f"{option} needs a value" in done.stderr
    assert "unbound variable" not in done.stderr


def test_run_all_names_an_empty_value():
    done = subprocess.run(["bash", str(REPO / "run_all.sh"), "-o", ""], capture_output=True, text=True,
                          timeout=120, env=ENV)
    assert done.returncode == 2 and "-o needs a value" in done.stderr
