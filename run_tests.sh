#!/usr/bin/env bash
# Sets up the environment on first use, then runs the test suite (one JVM per session).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The tests also need the test tools (Tesseract, Chromium): installed here, not by run_all.sh.
export TOUCHE_TEST_TOOLS=1
source "$ROOT/scripts/ensure_env.sh"
cd "$ROOT"
exec python -m pytest "$@"
