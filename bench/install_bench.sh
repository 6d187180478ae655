#!/usr/bin/env bash
# The README's install figures, from a fresh clone of this checkout's HEAD: the wheel's
# size and build time, `uv tool install` of it (empty cache) and of the clone,
# `pipx install` and `pip install` of it, and `ajantik walkthrough` from that install,
# outside the source tree. Each step's wall time, with the load average.
#   bash bench/install_bench.sh [WORKDIR]     (needs network for uv, pipx and pip)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
M=${1:-$(mktemp -d -t ajantik-install-XXXXXX)}
mkdir -p "$M" && cd "$M" || exit 2
t() {
  local s e rc
  s=$(date +%s.%N); "$@" >"$M/last.log" 2>&1; rc=$?; e=$(date +%s.%N)
  printf '%6.1f s  rc=%s  %s\n' "$(echo "$e - $s" | bc)" "$rc" "$*"
}
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)  $(date -u +%FT%TZ)  in $M"
python3 -m venv "$M/tools" && "$M/tools/bin/pip" install -q uv pipx >/dev/null 2>&1
git clone -q "$ROOT" "$M/clone" && cd "$M/clone" || exit 2
git checkout -q "$(git -C "$ROOT" rev-parse HEAD)" || exit 2
t python3 -m pip wheel --no-deps -w "$M/dist" .
WHEEL=$(ls "$M"/dist/*.whl)
echo "wheel: $(( $(stat -c %s "$WHEEL") / 1024 )) KB  $WHEEL"
export UV_TOOL_DIR="$M/uv/tools" UV_CACHE_DIR="$M/uv/cache" UV_TOOL_BIN_DIR="$M/uv/bin"
t "$M/tools/bin/uv" tool install "$WHEEL"
rm -rf "$M/uv"
t "$M/tools/bin/uv" tool install .
PIPX_HOME="$M/pipx" PIPX_BIN_DIR="$M/pipx/bin" t "$M/tools/bin/pipx" install "$WHEEL"
python3 -m venv "$M/venv"
t "$M/venv/bin/pip" install -q "$WHEEL"
mkdir -p "$M/outside" && cd "$M/outside" || exit 2
t "$M/uv/bin/ajantik" walkthrough
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
