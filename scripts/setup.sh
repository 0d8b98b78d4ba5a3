#!/usr/bin/env bash
# Installs everything tern needs to build, test and train, on Debian 13 (trixie) or Debian 12 (bookworm).
#
# Usage: sudo scripts/setup.sh        (idempotent; does nothing when all packages are present)
#
# On bookworm, five libraries (with doctest, FlatBuffers' compiler and qemu-user-static 10) come from
# trixie: the trixie source is added with pin priority 100 (so nothing else is ever upgraded from it) and
# only those packages are installed with `apt-get install -t trixie`. This pulls about 40 upgrades (libc6,
# libstdc++6, gcc runtimes); it never runs a dist-upgrade.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  exec sudo -E bash "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
# Every download is tried again with growing pauses (20 s, 60 s): a mirror in mid-sync clears in minutes.
. "$(dirname "$0")/retry.sh"
attempts=${TERN_SETUP_ATTEMPTS:-3}

. /etc/os-release
codename="${VERSION_CODENAME:-}"

# Libraries that must be trixie's versions (XNNPACK snapshot 2024-11-08 with the qd8/qc8w kernels,
# FlatBuffers 23.5 whose flatc must match the headers used by the cross sysroots).
trixie_pkgs=(libxnnpack-dev libcpuinfo-dev libpthreadpool-dev libflatbuffers-dev flatbuffers-compiler doctest-dev
             qemu-user-static)  # qemu 10: emulates MIDR_EL1, so cpuinfo names the Pi core (7.2 does not)
# Everything else from the host's own release.
host_pkgs=(cmake ninja-build g++ clang lld pkg-config git
           libsentencepiece-dev nlohmann-json3-dev libcli11-dev libicu-dev libxxhash-dev
           python3 python3-torch python3-numpy python3-sentencepiece python3-pytest libopenblas0-pthread
           pybind11-dev python3-dev python3-venv python3-pip python3-setuptools python3-wheel  # the Python package
           libclang-rt-14-dev default-jdk-headless mmdebstrap python3-matplotlib curl xz-utils
           doxygen  # the API reference check (docs/Doxyfile)
           ccache)  # .ci/run's compiler cache (~/.cache/tern/ccache)
# WebAssembly (preset wasm, targets/wasm/): Emscripten 3.1.69 and its binaryen are trixie's (bookworm's 3.1.6 predates
# the SIMD the wasm build uses); both are installed by name from trixie (emscripten/trixie, binaryen/trixie), so
# their compiler is the host's clang-19/lld-19 (bookworm has 19.1.7 too) and nothing else comes from trixie.
wasm_pkgs=(emscripten binaryen)
host_pkgs+=(clang-19 lld-19 llvm-19 nodejs node-acorn
           chromium chromium-driver)  # the example page's test in a real browser (targets/wasm/browser-test.py)
# The Android test build (targets/android/build-test-deps.sh) builds LLVM 14's libc++ and compiler-rt
# with clang-14, which only bookworm has among the supported releases.
if [ "$codename" = bookworm ]; then
  host_pkgs+=(clang-14 lld-14 llvm-14)
fi

missing=()
for p in "${trixie_pkgs[@]}" "${host_pkgs[@]}" "${wasm_pkgs[@]}" "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# libxnnpack-dev must be the 2024-11-08 snapshot (bookworm has none at all); qemu-user-static 10 or newer.
if ! dpkg-query -W -f='${Version}' libxnnpack-dev 2>/dev/null | grep -q '^0.0~git2024'; then
  missing+=(libxnnpack-dev)
fi
if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' qemu-user-static 2>/dev/null || echo 0)" ge 1:10; then
  missing+=(qemu-user-static)
fi
if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' emscripten 2>/dev/null || echo 0)" ge 3.1.69; then
  missing+=(emscripten)
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing: ${missing[*]}"

case "$codename" in
  bookworm)
    if [ ! -f /etc/apt/sources.list.d/tern-trixie.sources ]; then
      cat > /etc/apt/sources.list.d/tern-trixie.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    cat > /etc/apt/preferences.d/tern-trixie <<'PIN'
Package: *
Pin: release n=trixie
Pin-Priority: 100
PIN
    retry "$attempts" 20 apt-get update -q
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${host_pkgs[@]}" "$@"
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends -t trixie "${trixie_pkgs[@]}"
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${wasm_pkgs[@]/%//trixie}"
    ;;
  trixie|forky|sid|"")
    retry "$attempts" 20 apt-get update -q
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${host_pkgs[@]}" "$@"
    # A host set up from bookworm keeps bookworm's sources at a higher priority: name trixie for these.
    if apt-cache policy | grep -q 'n=trixie'; then
      retry "$attempts" 20 apt-get install -y -q --no-install-recommends -t trixie "${trixie_pkgs[@]}"
    else
      retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${trixie_pkgs[@]}"
    fi
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${wasm_pkgs[@]}"
    ;;
  *)
    echo "setup: unsupported release '$codename' (need Debian 12 bookworm or 13 trixie)" >&2
    exit 1
    ;;
esac
echo "setup: done"
