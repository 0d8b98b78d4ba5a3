#!/usr/bin/env bash
# Builds a Debian trixie sysroot for cross-compiling tern to a Raspberry Pi (Raspberry Pi OS is Debian
# based): the -dev packages the runtime and its tests link against, for arm64 or armhf.
#
#   targets/rpi/make-sysroot.sh arm64|armhf [DIR]     (default DIR: build-sysroots/ARCH)
#
# mmdebstrap --variant=extract unpacks the packages without running maintainer scripts, so it works
# without binfmt_misc or root-owned chroots (about 15 s and 150-200 MB per architecture). `extract`
# creates no /bin, /lib, /sbin: the setup hook makes them the merged-/usr symlinks, or the linker scripts
# and the ELF interpreter would not be found. There is no dpkg database afterwards: to add a package,
# delete DIR and run this again.
set -euo pipefail
arch=${1:?usage: make-sysroot.sh arm64|armhf [DIR]}
case "$arch" in
  arm64) triple=aarch64-linux-gnu ;;
  armhf) triple=arm-linux-gnueabihf ;;
  *) echo "make-sysroot: unknown architecture '$arch' (arm64, armhf)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=${2:-"$here/build-sysroots/$arch"}
if [ -f "$dir/.tern-sysroot-ok" ]; then
  echo "make-sysroot: $dir is ready"
  exit 0
fi
command -v mmdebstrap > /dev/null || { echo "make-sysroot: mmdebstrap missing (scripts/setup.sh installs it)" >&2; exit 1; }
packages=(
  libc6-dev libstdc++-14-dev libgcc-14-dev linux-libc-dev
  libxnnpack-dev libcpuinfo-dev libpthreadpool-dev libflatbuffers-dev
  libsentencepiece-dev libprotobuf-dev   # sentencepiece.pc requires protobuf's .pc
  nlohmann-json3-dev libcli11-dev doctest-dev
)
rm -rf "$dir" && mkdir -p "$(dirname "$dir")"
mmdebstrap --quiet --variant=extract --architectures="$arch" --include="$(IFS=,; echo "${packages[*]}")" \
  --setup-hook='mkdir -p "$1/usr/bin" "$1/usr/sbin" "$1/usr/lib" && ln -sfn usr/bin "$1/bin" && ln -sfn usr/sbin "$1/sbin" && ln -sfn usr/lib "$1/lib"' \
  trixie "$dir" http://deb.debian.org/debian
test -f "$dir/usr/lib/$triple/libXNNPACK.so" || { echo "make-sysroot: libXNNPACK.so missing in $dir" >&2; exit 1; }
touch "$dir/.tern-sysroot-ok"
du -sh "$dir"
