#!/usr/bin/env bash
# Builds a Debian sysroot for cross-compiling tern to a Raspberry Pi (Raspberry Pi OS is Debian based):
# the -dev packages the runtime and its tests link against, for arm64 or armhf.
#
#   targets/rpi/make-sysroot.sh arm64|armhf [DIR]     (default DIR: build-sysroots/ARCH)
#
# Which suite. The suites in TERN_SYSROOT_SUITES are tried in order (default "trixie forky sid"): each
# one up to TERN_SYSROOT_ATTEMPTS times (default 3) with pauses of TERN_SYSROOT_BACKOFF s, then 3x that
# (default 20 s, 60 s): a mirror in mid-sync ("File has unexpected size ... Mirror sync in progress?")
# usually clears within minutes; when it does not, the next suite is used. A suite is accepted only if
# its libxnnpack-dev is at least TERN_SYSROOT_MIN_XNNPACK (the 2024-11-08 snapshot whose
# dynamically-quantized kernels tern uses); an older one is refused with a message. Signatures and
# index hashes are always checked; the one thing relaxed is Release's Valid-Until date
# (Acquire::Check-Valid-Until "false"), because testing's and unstable's Release files on a mirror may
# be past it while still correctly signed. To build against the release your Pi runs, name it first:
# TERN_SYSROOT_SUITES=trixie (Raspberry Pi OS 13); bookworm has no XNNPACK, so it is refused.
#
# What was used. DIR/.tern-sysroot-info records the suite, mirror, date, and the versions of XNNPACK,
# cpuinfo, glibc (libc6), libstdc++ and SentencePiece; the toolchain files print it at configure time.
# A binary linked against this sysroot needs at least that glibc on the device.
#
# Cache. A finished sysroot is kept in TERN_CACHE_DIR (default ${XDG_CACHE_HOME:-~/.cache}/tern) under
# sysroots/ARCH/SUITE-KEY, KEY a hash of the package list and of this script's layout, and DIR becomes
# a symbolic link to it; later runs and later clones on the same machine reuse it without downloading.
# Each entry carries a manifest (type, size and path of every file, and the manifest's own SHA-256):
# an entry that does not match it (partial, truncated, damaged) is deleted and rebuilt. A cached entry
# of the first suite is always used; one of a fallback suite is used without trying the first suite
# again for TERN_SYSROOT_FALLBACK_DAYS days (default 7), after which the first suite is tried again
# (and the cached fallback still used if it fails). TERN_SYSROOT_CACHE=0 builds into DIR directly.
# TERN_SYSROOT_REFRESH=1 ignores the cache (and an existing DIR) and builds again.
#
# mmdebstrap --variant=extract unpacks the packages without running maintainer scripts, so it works
# without binfmt_misc or root-owned chroots (about 15-60 s and 200-300 MB per architecture). `extract`
# creates no /bin, /lib, /sbin: the setup hook makes them the merged-/usr symlinks, or the linker scripts
# and the ELF interpreter would not be found. TERN_MMDEBSTRAP replaces the mmdebstrap command (tests).
set -euo pipefail
arch=${1:?usage: make-sysroot.sh arm64|armhf [DIR]}
case "$arch" in
  arm64) triple=aarch64-linux-gnu ;;
  armhf) triple=arm-linux-gnueabihf ;;
  *) echo "make-sysroot: unknown architecture '$arch' (arm64, armhf)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/retry.sh"
. "$here/scripts/cache-entry.sh"
dir=${2:-"$here/build-sysroots/$arch"}
suites=(${TERN_SYSROOT_SUITES:-trixie forky sid})
mirror=${TERN_SYSROOT_MIRROR:-http://deb.debian.org/debian}
attempts=${TERN_SYSROOT_ATTEMPTS:-3}
backoff=${TERN_SYSROOT_BACKOFF:-20}
min_xnnpack=${TERN_SYSROOT_MIN_XNNPACK:-0.0~git20241108}
fallback_days=${TERN_SYSROOT_FALLBACK_DAYS:-7}
use_cache=${TERN_SYSROOT_CACHE:-1}
refresh=${TERN_SYSROOT_REFRESH:-0}
cache_root=${TERN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tern}
mmdebstrap_cmd=${TERN_MMDEBSTRAP:-mmdebstrap}
[ ${#suites[@]} -ge 1 ] || { echo "make-sysroot: TERN_SYSROOT_SUITES is empty" >&2; exit 2; }

packages=(
  libc6-dev libstdc++-14-dev libgcc-14-dev linux-libc-dev
  libxnnpack-dev libcpuinfo-dev libpthreadpool-dev libflatbuffers-dev
  libsentencepiece-dev libprotobuf-dev   # sentencepiece.pc requires protobuf's .pc
  libabsl-dev                            # SentencePiece >= 0.2's header includes Abseil
  nlohmann-json3-dev libcli11-dev doctest-dev
  libxxhash-dev                          # XXH3, header-only: the packed-weights cache's digests
  libicu-dev                             # sentence splitting (ICU's BreakIterator)
)
layout=2   # bump when the hooks or the entry layout change: old cache entries are then not used
key=$(printf '%s\n' "layout=$layout" "arch=$arch" "${packages[@]}" | sha256sum | cut -c1-12)

log() { echo "make-sysroot: $*" >&2; }

# True when $1 is a complete sysroot (scripts/cache-entry.sh) with XNNPACK in it.
valid_sysroot() {
  entry_valid "$1" sysroot && [ -f "$1/usr/lib/$triple/libXNNPACK.so" ]
}

info_value() { sed -n "s/^$2=//p" "$1/.tern-sysroot-info" 2>/dev/null; }

# The version of package $2 among the .debs the extract hook listed (epoch colon is %3a in names).
deb_version() {
  sed -n "s/^$2_\([^_]*\)_.*\.deb\$/\1/p" "$1/.tern-debs" | head -n 1 | sed 's/%3a/:/g'
}

# One mmdebstrap run of suite $1 into $2 (which must not exist: a failed attempt leaves a partial tree).
mmdebstrap_once() {
  rm -rf "$2"
  "$mmdebstrap_cmd" --quiet --variant=extract --architectures="$arch" \
      --include="$(IFS=,; echo "${packages[*]}")" \
      --aptopt='Acquire::Check-Valid-Until "false"' --aptopt='Acquire::Retries "3"' \
      --setup-hook='mkdir -p "$1/usr/bin" "$1/usr/sbin" "$1/usr/lib" && ln -sfn usr/bin "$1/bin" && ln -sfn usr/sbin "$1/sbin" && ln -sfn usr/lib "$1/lib"' \
      --extract-hook='ls "$1/var/cache/apt/archives" > "$1/.tern-debs"' \
      "$1" "$2" "$mirror"
}

# Builds suite $1 into the new directory $2 and checks it; returns non-zero with a message otherwise.
build_suite() {
  local suite=$1 out=$2 xnn
  if ! retry "$attempts" "$backoff" mmdebstrap_once "$suite" "$out"; then
    log "suite '$suite' failed after $attempts attempt(s)"
    return 1
  fi
  if [ ! -s "$out/.tern-debs" ]; then
    log "suite '$suite': no package list recorded (the extract hook did not run)"; return 1
  fi
  xnn=$(deb_version "$out" libxnnpack-dev)
  if [ -z "$xnn" ]; then
    log "suite '$suite' has no libxnnpack-dev for $arch"; return 1
  fi
  if ! dpkg --compare-versions "$xnn" ge "$min_xnnpack"; then
    log "suite '$suite' has libxnnpack-dev $xnn, older than the $min_xnnpack tern needs (its qd8/qc8w kernels); refused"
    return 1
  fi
  if [ ! -f "$out/usr/lib/$triple/libXNNPACK.so" ]; then
    log "suite '$suite': libXNNPACK.so missing in $out"; return 1
  fi
  entry_manifest "$out" sysroot > "$out/.tern-sysroot-manifest"
  {
    echo "suite=$suite"
    echo "mirror=$mirror"
    echo "arch=$arch"
    echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "created_epoch=$(date -u +%s)"
    echo "key=$key"
    echo "libxnnpack-dev=$xnn"
    local p
    for p in libcpuinfo-dev libc6-dev libstdc++-14-dev libsentencepiece-dev; do
      echo "$p=$(deb_version "$out" "$p")"
    done
    echo "manifest_sha256=$(sha256sum < "$out/.tern-sysroot-manifest" | cut -d' ' -f1)"
  } > "$out/.tern-sysroot-info.tmp"
  mv "$out/.tern-sysroot-info.tmp" "$out/.tern-sysroot-info"   # written last: the entry is complete
}

announce() {
  local d=$1
  log "$dir -> $(readlink -f "$d"): suite $(info_value "$d" suite), XNNPACK $(info_value "$d" libxnnpack-dev), glibc $(info_value "$d" libc6-dev | cut -d- -f1) (created $(info_value "$d" created))"
  if [ "$(info_value "$d" suite)" != "${suites[0]}" ]; then
    log "note: fallback suite $(info_value "$d" suite), not ${suites[0]}: binaries need its glibc on the device"
  fi
}

if [ "$refresh" != 1 ] && valid_sysroot "$dir"; then
  announce "$dir"
  exit 0
fi
command -v "$mmdebstrap_cmd" > /dev/null || { log "mmdebstrap missing (`scripts/setup.sh cross` installs it)"; exit 1; }
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"

if [ "$use_cache" = 0 ]; then
  for suite in "${suites[@]}"; do
    if build_suite "$suite" "$dir"; then announce "$dir"; exit 0; fi
    rm -rf "$dir"
  done
  log "no suite gave a usable $arch sysroot (tried: ${suites[*]})"
  exit 1
fi

cache="$cache_root/sysroots/$arch"
mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9   # one builder per cache at a time; a second run waits, then finds the entry

entry_of() { echo "$cache/$1-$key"; }
use_entry() { ln -sfn "$1" "$dir"; announce "$dir"; exit 0; }
cached() {   # prints the entry of suite $1 if it is valid; deletes it if it is there but broken
  local e
  e=$(entry_of "$1")
  [ -e "$e" ] || return 1
  if valid_sysroot "$e"; then echo "$e"; return 0; fi
  log "cache entry $e is incomplete or damaged: deleting it"
  rm -rf "$e"
  return 1
}
rm -rf "$cache"/*.tmp.*   # partial builds of runs that were killed

if [ "$refresh" != 1 ]; then
  if e=$(cached "${suites[0]}"); then use_entry "$e"; fi
  now=$(date -u +%s)
  for suite in "${suites[@]:1}"; do
    if e=$(cached "$suite"); then
      age_days=$(( (now - $(info_value "$e" created_epoch)) / 86400 ))
      if [ "$age_days" -lt "$fallback_days" ]; then
        log "using the cached fallback suite '$suite' ($age_days day(s) old; '${suites[0]}' is tried again after $fallback_days days or with TERN_SYSROOT_REFRESH=1)"
        use_entry "$e"
      fi
    fi
  done
fi

for suite in "${suites[@]}"; do
  if [ "$refresh" != 1 ] && e=$(cached "$suite"); then use_entry "$e"; fi
  tmp="$(entry_of "$suite").tmp.$$"
  log "building the $arch sysroot from '$suite' ($mirror)"
  if build_suite "$suite" "$tmp"; then
    rm -rf "$(entry_of "$suite")"
    mv "$tmp" "$(entry_of "$suite")"
    du -sh "$(entry_of "$suite")" >&2
    use_entry "$(entry_of "$suite")"
  fi
  rm -rf "$tmp"
done
log "no suite gave a usable $arch sysroot (tried: ${suites[*]}; mirror $mirror)"
exit 1
