#!/usr/bin/env bash
# Sets up the environment on first use, then runs the test suite (one JVM per session) and, beside
# it, the static checks (scripts/static_checks.sh: ruff, mypy); fails when either fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The tests also need the test tools (Tesseract, Chromium): installed here, not by run_all.sh.
export TOUCHE_TEST_TOOLS=1
source "$ROOT/scripts/ensure_env.sh"
cd "$ROOT"
# The checks take seconds (a minute on a cold mypy cache) on the second core while the tests run;
# their findings are printed as soon as they are known, not after the tests' summary line.
checks_rc="$(mktemp)"
trap 'rm -f "$checks_rc"' EXIT
(
  if found="$("$ROOT/scripts/static_checks.sh" 2>&1)"; then
    echo 0 > "$checks_rc"
    printf '\n[static checks] ruff and mypy: no problems\n' >&2
  else
    echo 1 > "$checks_rc"
    printf '\n[static checks] ruff or mypy found problems:\n%s\n' "$found" >&2
  fi
) &
checks=$!
tests=0
python -m pytest "$@" || tests=$?
wait "$checks" || true
if [ "$(cat "$checks_rc")" != 0 ]; then
  echo "[static checks] failed (above): scripts/static_checks.sh runs them alone" >&2
  [ "$tests" != 0 ] || tests=1
fi
exit "$tests"
