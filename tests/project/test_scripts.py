"""The shell entry points: arguments the wrapper itself parses fail with a located message."""
from __future__ import annotations

import os
import subprocess

import pytest

from tests.shared import REPO

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


# --------------------------------------------------------------------------- the set-up's words
def test_the_set_up_says_it_adds_the_test_packages_not_that_it_creates_the_environment(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    fake = venv / "bin" / "python"
    fake.write_text("#!/bin/sh\nexit 0\n")  # pip and the helper build do nothing here
    fake.chmod(0o755)
    script = f"source {REPO / 'scripts' / 'ensure_env.sh'}"
    env = {**os.environ, "TOUCHE_VENV": str(venv), "TOUCHE_TEST_TOOLS": "0"}
    first = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "creating the project environment" in first.stderr
    second = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                            env={**env, "TOUCHE_TEST_TOOLS": "1"}, timeout=600)
    assert "adding the tests' packages" in second.stderr and "creating" not in second.stderr
