#!/usr/bin/env bash
# Installs the peers `tessera-bench --model` times Tessera against: a Python virtual
# environment (default .venv-peers/ in the repository root, git-ignored) made from
# /usr/bin/python3 with --system-site-packages, so Debian's python3-torch,
# python3-onnx and numpy stay visible, and onnxruntime from PyPI installed into it.
# Debian's PyTorch calls libblas.so.3 for its matrix products, which is the reference
# (unoptimised) BLAS unless an optimised one is installed system-wide; so Debian's
# OpenBLAS (libopenblas0-openmp, the OpenMP build PyTorch's own threads use) is
# unpacked into the environment (ENV/blas/, nothing installed system-wide), and
# scripts/peer_runner.py puts it first on PyTorch's library path.
# Idempotent: an existing environment is reused, a present onnxruntime and OpenBLAS kept.
# Not needed by `make test`.
#
#   bash scripts/install-peers.sh [--dir D]
#
# tessera-bench finds the environment's interpreter at .venv-peers/bin/python; one made
# elsewhere is passed with --python D/bin/python or TESSERA_PEER_PYTHON=D/bin/python.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir="$root/.venv-peers"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir)
      [[ $# -ge 2 ]] || { echo "install-peers: --dir needs a directory" >&2; exit 2; }
      dir=$2
      shift 2
      ;;
    -h | --help)
      sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "install-peers: unknown argument '$1' (usage: install-peers.sh [--dir D])" >&2
      exit 2
      ;;
  esac
done

system_python=/usr/bin/python3
if [[ ! -x "$system_python" ]]; then
  echo "install-peers: $system_python not found (apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! "$system_python" -c "import ensurepip, venv" 2>/dev/null; then
  echo "install-peers: the venv module is missing; installing python3-venv"
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-peers: not root: apt-get install python3-venv as root" >&2; exit 1; }
    as_root=(sudo)
  fi
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends python3-venv
fi

python="$dir/bin/python"
if [[ -x "$python" ]] && "$python" -c "import sys; sys.exit(0 if sys.prefix != sys.base_prefix else 1)" 2>/dev/null; then
  echo "install-peers: reusing the environment $dir"
else
  echo "install-peers: creating $dir ($system_python -m venv --system-site-packages)"
  "$system_python" -m venv --system-site-packages "$dir"
fi

if version=$("$python" -c "import onnxruntime; print(onnxruntime.__version__)" 2>/dev/null); then
  echo "install-peers: onnxruntime $version already installed"
else
  echo "install-peers: pip install onnxruntime (from PyPI)"
  "$python" -m pip install --quiet --disable-pip-version-check onnxruntime
  version=$("$python" -c "import onnxruntime; print(onnxruntime.__version__)")
  echo "install-peers: onnxruntime $version installed"
fi

blas_package=libopenblas0-openmp
if compgen -G "$dir/blas/usr/lib/*/openblas-openmp/libblas.so.3" >/dev/null; then
  echo "install-peers: OpenBLAS already unpacked in $dir/blas"
else
  echo "install-peers: unpacking Debian's $blas_package into $dir/blas (apt-get download; nothing installed system-wide)"
  work=$(mktemp -d)
  chmod 755 "$work"  # apt-get download fetches as the _apt user where it can
  if (cd "$work" && apt-get download -q "$blas_package" >/dev/null 2>&1) || \
     { apt-get update -q >/dev/null 2>&1 && (cd "$work" && apt-get download -q "$blas_package" >/dev/null 2>&1); }; then
    rm -rf "$dir/blas"
    dpkg-deb -x "$work"/"$blas_package"_*.deb "$dir/blas"
    echo "install-peers: OpenBLAS $(dpkg-deb -f "$work"/"$blas_package"_*.deb Version) in $dir/blas"
  else
    echo "install-peers: could not download $blas_package: PyTorch keeps libblas.so.3 as the system has it" >&2
  fi
  rm -rf "$work"
fi

# What each peer will find (PyTorch comes from Debian, not from PyPI).
if torch=$("$python" -c "import torch; print(torch.__version__)" 2>/dev/null); then
  echo "install-peers: PyTorch $torch visible (Debian's python3-torch)"
else
  echo "install-peers: PyTorch not visible: the pytorch peer is skipped until python3-torch is installed" \
       "(bash scripts/install-deps.sh --models)"
fi
if numpy=$("$python" -c "import numpy; print(numpy.__version__)" 2>/dev/null); then
  echo "install-peers: numpy $numpy"
fi
echo "install-peers: done; tessera-bench --model uses $python"
