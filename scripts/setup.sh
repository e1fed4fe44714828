#!/usr/bin/env bash
# Set up .venv with every helia-aot distribution (editable, with test and reference extras), then
#   scripts/setup.sh example   convert the bundled KWS model, build it with gcc, check it against LiteRT
#   scripts/setup.sh test      run the whole test suite
#   scripts/setup.sh           only set up
# Idempotent: the install is skipped when no pyproject.toml changed since the last run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
VENV=$ROOT/.venv

# The Arm cross compiler and QEMU run the on-target tests; installed with apt-get when missing.
bash scripts/install_cross_toolchain.sh

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
stamp=$VENV/.helia-aot-installed
want=$(cat pyproject.toml helia_aot_core/pyproject.toml helia_aot_ops_builtin/pyproject.toml \
       helia_aot_platforms_apollo/pyproject.toml helia_aot_frontend_onnx/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip setuptools wheel
    "$VENV/bin/python" -m pip install --quiet \
        -e "./helia_aot_core[test,reference]" \
        -e "./helia_aot_ops_builtin[test]" \
        -e ./helia_aot_platforms_apollo \
        -e "./helia_aot_frontend_onnx[test]" \
        -e .
    echo "$want" > "$stamp"
fi

case "${1:-}" in
    example) exec "$VENV/bin/python" scripts/run_example.py ;;
    # worksteal: a worker that runs dry takes queued tests from the other, so the long QEMU tests
    # do not leave one worker busy alone at the end of the run.
    test) shift; exec "$VENV/bin/python" -m pytest -n auto --dist worksteal "$@" ;;
    "") ;;
    *) echo "usage: scripts/setup.sh [example|test [pytest args]]" >&2; exit 2 ;;
esac
