#!/usr/bin/env bash
# tools/setup_baselines.sh -- installs the references a few tests and the benchmarks compare
# with. tools/run_tests.sh (CI) runs it when pyenv's Python 3.8 exists; nothing else needs it
# to build or test this repository.
#
# Installs the reference implementations that benchmarks and a few compatibility
# tests compare against when they are present (they skip or report "unavailable" otherwise):
#
#   1. Apache MXNet 1.9.1 in its own virtualenv, /root/mxnet191-venv (override with
#      MXNET191_VENV), built on pyenv's Python 3.8 (MXNet 1.9.1 wheels stop at 3.8-ish
#      and need numpy<1.24).  Scripts find it as $MXNET191_PYTHON or
#      /root/mxnet191-venv/bin/python.
#   2. PyTorch from Debian (python3-torch 1.13), used through /usr/bin/python3.
#      Scripts find it as $TORCH_PYTHON or /usr/bin/python3.
#   3. PyTorch's current release from PyPI in /root/torch-venv (override with
#      TORCH_PYPI_VENV). Scripts find it as $TORCH_PYPI_PYTHON or /root/torch-venv/bin/python.
#      Only the benchmarks use it (a multi-GB download): `--tests` (what CI passes) skips it.
#
# Idempotent: each step is skipped when its result already works.
set -euo pipefail

VENV="${MXNET191_VENV:-/root/mxnet191-venv}"

# --- 1. MXNet 1.9.1 ---------------------------------------------------------
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c \
     'import mxnet, sys; sys.exit(mxnet.__version__ != "1.9.1")' 2>/dev/null; then
  echo "mxnet 1.9.1: already in $VENV"
else
  PY38=""
  for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.8.*/bin/python; do
    [ -x "$p" ] && PY38="$p"
  done
  if [ -z "$PY38" ]; then
    echo "error: no pyenv Python 3.8 found under ${PYENV_ROOT:-$HOME/.pyenv}/versions/3.8.*" >&2
    exit 1
  fi
  [ -x "$VENV/bin/python" ] || "$PY38" -m venv "$VENV"
  "$VENV/bin/pip" install mxnet==1.9.1 'numpy<1.24'
fi
"$VENV/bin/python" -c 'import mxnet; print("mxnet", mxnet.__version__, mxnet.nd.ones((2,2)).asnumpy().tolist())'

# --- 2. PyTorch (Debian) ----------------------------------------------------
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "torch: already importable by /usr/bin/python3"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # apt may be locked by another install; retry for a few minutes.
  for i in $(seq 1 30); do
    if $SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y python3-torch; then
      break
    fi
    echo "apt busy or failed (try $i), retrying in 10 s..." >&2
    sleep 10
  done
fi
/usr/bin/python3 -c 'import torch; print("torch", torch.__version__)'

# --- 3. PyTorch (PyPI's current release, its own venv) ----------------------
if [ "${1:-}" = "--tests" ]; then
  exit 0
fi
TORCH_VENV="${TORCH_PYPI_VENV:-/root/torch-venv}"
if [ -x "$TORCH_VENV/bin/python" ] && "$TORCH_VENV/bin/python" -c 'import torch' 2>/dev/null; then
  echo "torch (PyPI): already in $TORCH_VENV"
else
  [ -x "$TORCH_VENV/bin/python" ] || python3 -m venv "$TORCH_VENV"
  "$TORCH_VENV/bin/pip" install torch numpy
fi
"$TORCH_VENV/bin/python" -c 'import torch; print("torch (PyPI)", torch.__version__)'
