# Debian source packages' upstream tarballs for the builds of dependencies for other targets
# (targets/android/build-test-deps.sh, targets/wasm/build-deps.sh). Sourced after the caller has set:
#   sources   "package pool-dir file sha256" lines, alternatives for one package in order of preference
#   cache_root, mirror, attempts, backoff, and a log function; scripts/retry.sh sourced.
#   fetch PACKAGE            prints the path of a verified tarball of PACKAGE (the first alternative that
#                            can be had: downloaded into $cache_root/src, checked against its SHA-256)
#   unpack TARBALL DEST [MEMBERS...]   DEST becomes the source tree (with or without a top directory)

# fetch PACKAGE: prints the path of a verified tarball of PACKAGE (the first alternative that can be had).
fetch() {
  local want=$1 line pkg pool file sum path url tried=()
  mkdir -p "$cache_root/src"
  for line in "${sources[@]}"; do
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
