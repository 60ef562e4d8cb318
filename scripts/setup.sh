#!/usr/bin/env bash
# Installs every dependency of rootline on Debian 12 and builds it into build/.
# Usage: ./scripts/setup.sh [build-dir] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang-19 llvm-19-dev libclang-rt-19-dev
  libz3-dev libgit2-dev nlohmann-json3-dev libcli11-dev catch2
  libzstd-dev libfmt-dev zlib1g-dev libedit-dev libxml2-dev libffi-dev libncurses-dev
  python3 python3-jsonschema jq bear dpkg-dev chromium
  libcmocka-dev
  # What GNU-style projects need to build from their git history (autoreconf, gettext,
  # libtool, texinfo manuals, generated parsers) and Meson projects.
  autoconf automake autoconf-archive autopoint gettext libtool m4 texinfo
  bison flex gperf help2man meson
  # Runs a program linked against its project's own shared libraries without the
  # project's wrapper script (docs/project.md).
  patchelf
  # objcopy (the compiler wrapper's bitcode section) and readelf (tests).
  binutils
  slurm-wlm munge
  clang-format-19
)
# npm fetches the SARIF 2.1.0 schema for the report tests; any npm will do.
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build_dir" -j "$(nproc)"
