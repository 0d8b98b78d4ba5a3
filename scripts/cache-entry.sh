# Cache entries in ~/.cache/tern (sysroots, the Android test prefix): a directory is a complete entry
# when its info file (.tern-NAME-info, written last) names the SHA-256 of its manifest
# (.tern-NAME-manifest: type, size or link target, and path of every file, in a stable order) and the
# directory still matches that manifest. Sourced by targets/rpi/make-sysroot.sh and
# targets/android/build-test-deps.sh.
#   entry_manifest DIR NAME     prints DIR's manifest (without its own two files)
#   entry_valid DIR NAME        true when DIR is a complete, undamaged entry

entry_manifest() {
  (cd "$1" && find . -path "./.tern-$2-manifest" -prune -o -path "./.tern-$2-info" -prune -o \
     \( -type f -printf 'f %s %P\n' \) -o \( -type l -printf 'l %l %P\n' \) | LC_ALL=C sort)
}

entry_valid() {
  local d=$1 name=$2 want
  [ -f "$d/.tern-$name-info" ] && [ -f "$d/.tern-$name-manifest" ] || return 1
  want=$(sed -n 's/^manifest_sha256=//p' "$d/.tern-$name-info")
  [ -n "$want" ] && [ "$(sha256sum < "$d/.tern-$name-manifest" | cut -d' ' -f1)" = "$want" ] || return 1
  cmp -s <(entry_manifest "$d" "$name") "$d/.tern-$name-manifest"
}
