# What the builds of dependencies for other targets share (targets/android/build-test-deps.sh,
# targets/wasm/build-deps.sh): Debian source packages' upstream tarballs, the libraries both build from them,
# and the cached prefix. Sourced first (it sources scripts/retry.sh and scripts/cache-entry.sh and defines
# functions and shared_sources only); before calling them the caller sets
#   sources   its own "package pool-dir file sha256" lines (fetch looks in them, then in shared_sources)
#   key, dir, toolchain, a log function, target_settings PREFIX's variables, and (in its build function, once
#   the prefix P and the work directory are known) target_args: the toolchain's cache variables.
#   target_settings PREFIX   cache_root, mirror (TERN_CACHE_DIR, TERN_DEB_MIRROR) and attempts, backoff, refresh,
#                            jobs from TERN_<PREFIX>_ATTEMPTS (4), _BACKOFF (15 s), _REFRESH (0), _JOBS (nproc)
#   cmake_build NAME SRC [ARGS...]   configure, build and install one library into $P for the caller's target
#   fetch PACKAGE            prints the path of a verified tarball of PACKAGE (the first alternative that
#                            can be had: downloaded into $cache_root/src, checked against its SHA-256)
#   unpack TARBALL DEST [MEMBERS...]   DEST becomes the source tree (with or without a top directory)
#   build_pthreadpool P WORK FXDIV PTHREADPOOL [EDIT]   (EDIT: a function given the unpacked pthreadpool tree,
#                            called before it is built), build_xnnpack P SRC, build_sentencepiece SRC,
#                            copy_header_libraries P
#   finish_entry P NAME [INFO_LINES...]   P's manifest, then its info file, written last (the entry is complete)
#   cached_build NAME        the prefix $cache_root/NAME/$key: used when complete, else made by the caller's
#                            `build ENTRY`; $dir becomes a link to it; other keys' entries unused for 14 days go

here=${here:?the caller sets here, the repository}
. "$here/scripts/retry.sh"
. "$here/scripts/cache-entry.sh"

# The libraries both targets build: "package pool-dir file sha256", alternatives for one package in order of
# preference (a mirror in mid-sync that 404s one version does not stop the build).
shared_sources=(
  "cpuinfo cpuinfo cpuinfo_0.0~git20250905.877328f.orig.tar.xz 557ca404a3836b9f335a3a06b65ff9fe9dbaaefab7fb5c0185f53d9f33615a10"
  "cpuinfo cpuinfo cpuinfo_0.0~git20250327.39ea79a.orig.tar.xz 2a10028948f7f0663c56cc34405484391ee3d7ccdf09fe51d73897937b99d9d4"
  "pthreadpool pthreadpool pthreadpool_0.0~git20240616.560c60d.orig.tar.xz 4cc3cbd933b28131d2a34edc54f76af9fb41bc490af5eae1a5bd3cd07ea90708"
  "fxdiv fxdiv fxdiv_0.0~git20200417.b408327.orig.tar.xz 7953482badaf4cb34026c3487c257b8e4ab2df061c019bd6fabbbc12ad52c44b"
  "xnnpack xnnpack xnnpack_0.0~git20241108.4ea82e5.orig.tar.xz 90bde2caef0f880f627bab0dc805a86c4b8070cd98e3243db3046ab3f3be1a99"
  "sentencepiece sentencepiece sentencepiece_0.1.97.orig.tar.gz 56430381f45dc6debfd2e0cbde4f039f9499c49ca825af184b0cbf318c17a18f"
  "sentencepiece sentencepiece sentencepiece_0.2.0.orig.tar.gz d72556a0cb343d6ea23264ecdbc0ff04dfecd879be4d2d7a7026b9de1af2e4d1"
)
sources=()

# target_settings PREFIX: the download and build settings, from TERN_<PREFIX>_* where the caller's target has one.
target_settings() {
  local v
  cache_root=${TERN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tern}
  mirror=${TERN_DEB_MIRROR:-http://deb.debian.org/debian}
  v=TERN_$1_ATTEMPTS; attempts=${!v:-4}
  v=TERN_$1_BACKOFF; backoff=${!v:-15}
  v=TERN_$1_REFRESH; refresh=${!v:-0}
  v=TERN_$1_JOBS; jobs=${!v:-$(nproc)}
}

# fetch PACKAGE: prints the path of a verified tarball of PACKAGE (the first alternative that can be had).
fetch() {
  local want=$1 line pkg pool file sum path url tried=()
  mkdir -p "$cache_root/src"
  for line in "${sources[@]}" "${shared_sources[@]}"; do
    read -r pkg pool file sum <<< "$line"
    [ "$pkg" = "$want" ] || continue
    path="$cache_root/src/$file"
    if [ -f "$path" ] && [ "$(sha256sum < "$path" | cut -d' ' -f1)" = "$sum" ]; then echo "$path"; return 0; fi
    rm -f "$path"
    url="$mirror/pool/main/${pool:0:1}/$pool/$file"
    if retry "$attempts" "$backoff" curl -fsSL --connect-timeout 20 -o "$path.part" "$url" &&
       [ "$(sha256sum < "$path.part" | cut -d' ' -f1)" = "$sum" ]; then
      mv "$path.part" "$path"; echo "$path"; return 0
    fi
    rm -f "$path.part"
    log "$file: not available from $mirror (or its SHA-256 differs); trying the next version"
    tried+=("$file")
  done
  log "no source of $want could be fetched (tried: ${tried[*]})"
  return 1
}

# unpack TARBALL DEST [MEMBERS...]: DEST is the source tree (tarballs with or without a top directory).
unpack() {
  local t=$1 d=$2; shift 2
  rm -rf "$d.x" && mkdir -p "$d.x"
  tar -xf "$t" -C "$d.x" "$@"
  local top=("$d.x"/*)
  if [ ${#top[@]} -eq 1 ] && [ -d "${top[0]}" ]; then mv "${top[0]}" "$d"; rmdir "$d.x"; else mv "$d.x" "$d"; fi
}

cmake_build() {
  local name=$1 src=$2; shift 2
  log "building $name"
  cmake -S "$src" -B "$work/b-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
        "${target_args[@]}" -DCMAKE_INSTALL_PREFIX="$P" -DCMAKE_INSTALL_LIBDIR=lib "$@" > "$work/$name.log" 2>&1 \
    && cmake --build "$work/b-$name" -j "$jobs" >> "$work/$name.log" 2>&1 \
    && cmake --install "$work/b-$name" >> "$work/$name.log" 2>&1 \
    || { log "$name failed; the last lines of $work/$name.log:"; tail -n 30 "$work/$name.log" >&2; return 1; }
}

# pthreadpool (with FXdiv's header) into prefix P, from the tarballs FXDIV and PTHREADPOOL unpacked in WORK.
build_pthreadpool() {
  local P=$1 work=$2
  unpack "$3" "$work/fxdiv"
  unpack "$4" "$work/pthreadpool"
  if [ -n "${5:-}" ]; then "$5" "$work/pthreadpool"; fi
  cmake_build pthreadpool "$work/pthreadpool" -DPTHREADPOOL_LIBRARY_TYPE=static -DPTHREADPOOL_BUILD_TESTS=OFF \
      -DPTHREADPOOL_BUILD_BENCHMARKS=OFF -DFXDIV_SOURCE_DIR="$work/fxdiv"
  cp "$work/fxdiv/include/fxdiv.h" "$P/include/"
}

# XNNPACK from the source tree SRC (KleidiAI off, production microkernels only, against P's cpuinfo and
# pthreadpool).
build_xnnpack() {
  local P=$1
  cmake_build xnnpack "$2" -DXNNPACK_LIBRARY_TYPE=static -DXNNPACK_BUILD_TESTS=OFF \
      -DXNNPACK_BUILD_BENCHMARKS=OFF -DXNNPACK_BUILD_ALL_MICROKERNELS=OFF -DXNNPACK_ENABLE_KLEIDIAI=OFF \
      -DXNNPACK_USE_SYSTEM_LIBS=ON -DCPUINFO_SOURCE_DIR="$P" -DPTHREADPOOL_SOURCE_DIR="$P" -DFXDIV_SOURCE_DIR="$P"
}

# SentencePiece (static, its own protobuf-lite) from the source tree SRC.
build_sentencepiece() {
  cmake_build sentencepiece "$1" -DSPM_ENABLE_SHARED=OFF -DSPM_ENABLE_TCMALLOC=OFF -DSPM_BUILD_TEST=OFF \
      -DCMAKE_INSTALL_LIBDIR=lib
}

# Header-only libraries of the build machine, with their CMake configs (relocatable), into P (xxhash.h: XXH3, used
# header-only; no config).
copy_header_libraries() {
  local P=$1 h
  for h in flatbuffers nlohmann CLI doctest xxhash.h; do cp -r "/usr/include/$h" "$P/include/"; done
  mkdir -p "$P/share/cmake" "$P/lib/cmake"
  cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$P/share/cmake/"
  cp -r /usr/lib/cmake/doctest "$P/lib/cmake/"
}

finish_entry() {
  local P=$1 name=$2
  shift 2
  entry_manifest "$P" "$name" > "$P/.tern-$name-manifest"
  {
    echo "key=$key"
    echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '%s\n' "$@"
    echo "manifest_sha256=$(sha256sum < "$P/.tern-$name-manifest" | cut -d' ' -f1)"
  } > "$P/.tern-$name-info.tmp"
  mv "$P/.tern-$name-info.tmp" "$P/.tern-$name-info"   # written last: the entry is complete
}

cached_build() {
  local name=$1 cache="$cache_root/$1" start
  announce() { log "$dir -> $(readlink -f "$1"): $(sed -n 's/^sources=//p' "$1/.tern-$name-info")"; }
  mkdir -p "$cache"
  exec 9> "$cache/.lock"
  flock 9   # one builder at a time; a second run waits, then finds the entry
  entry="$cache/$key"
  if [ "$refresh" != 1 ] && [ -e "$entry" ]; then
    if entry_valid "$entry" "$name"; then ln -sfn "$entry" "$dir"; announce "$entry"; return 0; fi
    log "cache entry $entry is incomplete or damaged: deleting it"
  fi
  rm -rf "$entry"
  start=$(date +%s)
  # (Not `if build`: set -e does not apply inside a function called as a condition.)
  trap 'rc=$?; [ $rc -eq 0 ] || log "failed (exit $rc); the partial entry $entry is kept for inspection and rebuilt on the next run"' EXIT
  build "$entry"
  rm -rf "$dir"; ln -sfn "$entry" "$dir"
  # Entries of other keys (older versions of the script or the toolchain) untouched for 14 days go.
  find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -mtime +14 -exec rm -rf {} + 2> /dev/null || true
  log "built in $(( $(date +%s) - start )) s"
  announce "$entry"
}
