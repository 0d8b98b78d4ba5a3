#!/usr/bin/env bash
# Installs what tern needs, on Debian 13 (trixie) or Debian 12 (bookworm), in groups:
#
#   sudo scripts/setup.sh              native: the toolchain and libraries that build tern and its command line
#                                      (README's first command, the demo)
#   sudo scripts/setup.sh test         + the test suite and the Python package (pybind11, PyTorch for the reference
#                                      decoder and test models, pytest, a JDK for the JNI host test, doxygen):
#                                      README's second command
#   sudo scripts/setup.sh cross        + the Raspberry Pi and Android cross builds and their tests under qemu
#                                      (mmdebstrap, qemu-user-static 10, clang/lld, bookworm's clang-14)
#   sudo scripts/setup.sh wasm         + WebAssembly (Emscripten 3.1.69 and binaryen from trixie, clang-19, Node)
#                                      and the browsers the example page's test drives (Chromium, Firefox ESR,
#                                      WebKitGTK with their drivers; Xvfb)
#   sudo scripts/setup.sh check        + the sanitizer and libFuzzer builds (clang, compiler-rt) and the benchmark
#                                      tools (llvm-mca, matplotlib)
#   sudo scripts/setup.sh all          every group (.ci/run installs test, then check, cross and wasm as it goes)
#
# Groups combine (`scripts/setup.sh cross wasm`); the native group always comes with them. Idempotent: does
# nothing when every package of the groups is present.
#
# On bookworm, five libraries (with doctest, FlatBuffers' compiler and, for cross, qemu-user-static 10) come
# from trixie: the trixie source is added with pin priority 100 (so nothing else is ever upgraded from it) and
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

# The groups asked for.
want_test=0 want_cross=0 want_wasm=0 want_check=0
for g in "$@"; do
  case "$g" in
    native) ;;
    test) want_test=1 ;;
    cross) want_cross=1 ;;
    wasm) want_wasm=1 ;;
    check) want_check=1 ;;
    all) want_test=1 want_cross=1 want_wasm=1 want_check=1 ;;
    *) echo "setup: unknown group '$g' (native, test, cross, wasm, check, all)" >&2; exit 2 ;;
  esac
done

# Libraries that must be trixie's versions (XNNPACK snapshot 2024-11-08 with the qd8/qc8w kernels,
# FlatBuffers 23.5 whose flatc must match the headers used by the cross sysroots).
trixie_pkgs=(libxnnpack-dev libcpuinfo-dev libpthreadpool-dev libflatbuffers-dev flatbuffers-compiler doctest-dev)
# native: everything else from the host's own release.
host_pkgs=(cmake ninja-build g++ pkg-config git
           libsentencepiece-dev nlohmann-json3-dev libcli11-dev libicu-dev libxxhash-dev
           python3 curl xz-utils
           ccache)  # .ci/run's compiler cache (~/.cache/tern/ccache)
wasm_pkgs=()
if [ $want_test = 1 ]; then
  host_pkgs+=(python3-torch python3-numpy python3-sentencepiece python3-pytest libopenblas0-pthread
              pybind11-dev python3-dev python3-venv python3-pip python3-setuptools python3-wheel  # the Python package
              default-jdk-headless  # the JNI binding's host test
              doxygen)  # the API reference check (docs/Doxyfile)
fi
if [ $want_cross = 1 ]; then
  trixie_pkgs+=(qemu-user-static)  # qemu 10: emulates MIDR_EL1, so cpuinfo names the Pi core (7.2 does not)
  host_pkgs+=(clang lld mmdebstrap)
  # The Android test build (targets/android/build-test-deps.sh) builds LLVM 14's libc++ and compiler-rt
  # with clang-14, which only bookworm has among the supported releases.
  if [ "$codename" = bookworm ]; then
    host_pkgs+=(clang-14 lld-14 llvm-14)
  fi
fi
if [ $want_wasm = 1 ]; then
  # WebAssembly (preset wasm, targets/wasm/): Emscripten 3.1.69 and its binaryen are trixie's (bookworm's 3.1.6
  # predates the SIMD the wasm build uses); both are installed by name from trixie (emscripten/trixie,
  # binaryen/trixie), so their compiler is the host's clang-19/lld-19 (bookworm has 19.1.7 too) and nothing
  # else comes from trixie.
  wasm_pkgs=(emscripten binaryen)
  host_pkgs+=(clang-19 lld-19 llvm-19 nodejs node-acorn
              # the example page's test in each browser engine (targets/wasm/browser-test.py): Chromium (V8), Firefox
              # ESR (SpiderMonkey, driven through Marionette), WebKitGTK (JavaScriptCore) on an Xvfb display
              chromium chromium-driver firefox-esr webkit2gtk-driver xvfb)
fi
if [ $want_check = 1 ]; then
  host_pkgs+=(clang lld libclang-rt-14-dev llvm  # ASan, TSan, libFuzzer (presets asan, tsan, fuzz); llvm-mca
              python3-matplotlib)                # bench/report.py's plots
fi

missing=()
for p in "${trixie_pkgs[@]}" "${host_pkgs[@]}" "${wasm_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# libxnnpack-dev must be the 2024-11-08 snapshot (bookworm has none at all); qemu-user-static 10 or newer.
if ! dpkg-query -W -f='${Version}' libxnnpack-dev 2>/dev/null | grep -q '^0.0~git2024'; then
  missing+=(libxnnpack-dev)
fi
if [ $want_cross = 1 ] && ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' qemu-user-static 2>/dev/null || echo 0)" ge 1:10; then
  missing+=(qemu-user-static)
fi
if [ $want_wasm = 1 ] && ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' emscripten 2>/dev/null || echo 0)" ge 3.1.69; then
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
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${host_pkgs[@]}"
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends -t trixie "${trixie_pkgs[@]}"
    if [ ${#wasm_pkgs[@]} -gt 0 ]; then
      retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${wasm_pkgs[@]/%//trixie}"
    fi
    ;;
  trixie|forky|sid|"")
    retry "$attempts" 20 apt-get update -q
    retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${host_pkgs[@]}"
    # A host set up from bookworm keeps bookworm's sources at a higher priority: name trixie for these.
    if apt-cache policy | grep -q 'n=trixie'; then
      retry "$attempts" 20 apt-get install -y -q --no-install-recommends -t trixie "${trixie_pkgs[@]}"
    else
      retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${trixie_pkgs[@]}"
    fi
    if [ ${#wasm_pkgs[@]} -gt 0 ]; then
      retry "$attempts" 20 apt-get install -y -q --no-install-recommends "${wasm_pkgs[@]}"
    fi
    ;;
  *)
    echo "setup: unsupported release '$codename' (need Debian 12 bookworm or 13 trixie)" >&2
    exit 1
    ;;
esac
echo "setup: done"
