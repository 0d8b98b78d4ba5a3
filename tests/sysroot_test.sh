#!/usr/bin/env bash
# targets/rpi/make-sysroot.sh without a network: a stand-in mmdebstrap (written below) builds tiny
# sysroots, and each suite name chooses how it behaves:
#   broken*  always fails, as mmdebstrap does on a mirror in mid-sync ("File has unexpected size")
#   flaky*   fails twice, then works (a mid-sync that clears while we retry)
#   old*     works, but carries an XNNPACK older than tern needs
#   other    works
# Checked: retries with backoff, the fallback order, the XNNPACK version refusal, the record of what was
# used, the cache (reuse without running mmdebstrap, damaged and partial entries rebuilt, a fallback
# entry reused), and the message when nothing works.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$work/fake-mmdebstrap" <<'FAKE'
#!/usr/bin/env bash
set -euo pipefail
setup=() extract=() pos=() arch=
for a in "$@"; do
  case "$a" in
    --architectures=*) arch=${a#*=} ;;
    --setup-hook=*) setup+=("${a#*=}") ;;
    --extract-hook=*) extract+=("${a#*=}") ;;
    --*) ;;
    *) pos+=("$a") ;;
  esac
done
suite=${pos[0]} out=${pos[1]}
echo "$suite" >> "$FAKE_LOG"
[ ! -e "$out" ] || { echo "E: $out is not empty" >&2; exit 25; }
case "$suite" in
  broken*) echo "E: File has unexpected size (9246492 != 9246996). Mirror sync in progress?" >&2; exit 25 ;;
  flaky*) echo x >> "$FAKE_LOG.$suite"   # its first two runs ever fail
          [ "$(wc -l < "$FAKE_LOG.$suite")" -gt 2 ] || { echo "E: Mirror sync in progress?" >&2; exit 25; } ;;
esac
case "$arch" in arm64) triple=aarch64-linux-gnu ;; armhf) triple=arm-linux-gnueabihf ;; esac
xnn=0.0~git20241108.4ea82e5-2
case "$suite" in old*) xnn=0.0~git20230101.0000000-1 ;; esac
mkdir -p "$out"
for h in "${setup[@]}"; do sh -c "$h" exec "$out"; done
mkdir -p "$out/usr/lib/$triple" "$out/var/cache/apt/archives" "$out/usr/include"
echo "elf" > "$out/usr/lib/$triple/libXNNPACK.so"
echo "int x;" > "$out/usr/include/xnnpack.h"
for d in "libxnnpack-dev_${xnn}_$arch" "libc6-dev_2.41-12_$arch" "libcpuinfo-dev_1%3a0.1-1_$arch"; do
  touch "$out/var/cache/apt/archives/$d.deb"
done
for h in "${extract[@]}"; do sh -c "$h" exec "$out"; done
rm -rf "$out/var/cache/apt/archives"
FAKE
chmod +x "$work/fake-mmdebstrap"

export TERN_MMDEBSTRAP="$work/fake-mmdebstrap" FAKE_LOG="$work/calls" TERN_CACHE_DIR="$work/cache"
export TERN_RETRY_SLEEP=true TERN_SYSROOT_BACKOFF=1 TERN_SYSROOT_ATTEMPTS=3
unset TERN_SYSROOT_SUITES TERN_SYSROOT_REFRESH TERN_SYSROOT_CACHE XDG_CACHE_HOME
mk() { "$here/targets/rpi/make-sysroot.sh" "$@" 2> "$work/err"; }
calls() { [ -f "$FAKE_LOG" ] && tr '\n' ' ' < "$FAKE_LOG" | sed 's/ $//'; }
reset_calls() { rm -f "$FAKE_LOG"; }
suite_of() { sed -n 's/^suite=//p' "$1/.tern-sysroot-info"; }

# 1. The first suite fails every time: three tries with backoff, then the next suite.
TERN_SYSROOT_SUITES="broken-trixie forky" mk arm64 "$work/s1" || fail "fallback did not give a sysroot: $(cat "$work/err")"
[ "$(calls)" = "broken-trixie broken-trixie broken-trixie forky" ] || fail "calls: $(calls)"
[ "$(suite_of "$work/s1")" = forky ] || fail "recorded suite: $(suite_of "$work/s1")"
grep -q "next try in 1 s" "$work/err" && grep -q "next try in 3 s" "$work/err" || fail "no backoff: $(cat "$work/err")"
grep -q "fallback suite forky, not broken-trixie" "$work/err" || fail "fallback not announced"
grep -q "^libxnnpack-dev=0.0~git20241108.4ea82e5-2$" "$work/s1/.tern-sysroot-info" || fail "xnnpack version not recorded"
grep -q "^libcpuinfo-dev=1:0.1-1$" "$work/s1/.tern-sysroot-info" || fail "epoch not decoded"
[ -L "$work/s1" ] || fail "DIR is not a link into the cache"
[ -L "$work/s1/lib" ] || fail "merged-/usr links missing"

# 2. A mid-sync that clears while retrying: the first suite is used (armhf: nothing cached yet).
reset_calls
TERN_SYSROOT_SUITES="flaky-trixie forky" mk armhf "$work/s2" || fail "flaky suite: $(cat "$work/err")"
[ "$(calls)" = "flaky-trixie flaky-trixie flaky-trixie" ] || fail "calls: $(calls)"
[ "$(suite_of "$work/s2")" = flaky-trixie ] || fail "flaky suite not used"

# 3. Reuse: a new DIR (a fresh clone) is served from the cache without running mmdebstrap.
reset_calls
TERN_SYSROOT_SUITES="flaky-trixie forky" mk armhf "$work/s3" || fail "cache reuse"
[ -z "$(calls)" ] || fail "mmdebstrap ran despite a cached entry: $(calls)"
# A cached fallback is reused too, while it is younger than TERN_SYSROOT_FALLBACK_DAYS ...
TERN_SYSROOT_SUITES="broken-trixie forky" mk arm64 "$work/s4" || fail "cached fallback"
[ -z "$(calls)" ] || fail "mmdebstrap ran despite a fresh cached fallback: $(calls)"
grep -q "using the cached fallback suite 'forky'" "$work/err" || fail "cached fallback not announced"
# ... after that the first suite is tried again, and the cached fallback used when it still fails.
TERN_SYSROOT_FALLBACK_DAYS=0 TERN_SYSROOT_SUITES="broken-trixie forky" mk arm64 "$work/s5" || fail "stale fallback"
[ "$(calls)" = "broken-trixie broken-trixie broken-trixie" ] || fail "calls: $(calls)"
[ "$(suite_of "$work/s5")" = forky ] || fail "stale fallback not used"

# 4. A damaged cache entry (a truncated file, a missing file) is detected and rebuilt.
entry=$(readlink -f "$work/s3")
: > "$entry/usr/include/xnnpack.h"
reset_calls
TERN_SYSROOT_SUITES="flaky-trixie" mk armhf "$work/s6" || fail "rebuild after damage: $(cat "$work/err")"
grep -q "incomplete or damaged" "$work/err" || fail "damage not reported: $(cat "$work/err")"
[ "$(calls)" = "flaky-trixie" ] || fail "damaged entry not rebuilt: $(calls)"
[ -s "$entry/usr/include/xnnpack.h" ] || fail "rebuilt entry still damaged"
rm "$entry/usr/lib/arm-linux-gnueabihf/libXNNPACK.so"
reset_calls
TERN_SYSROOT_SUITES="flaky-trixie" mk armhf "$work/s6" || fail "rebuild after a missing file"
[ "$(calls)" = "flaky-trixie" ] || fail "entry with a missing file reused: $(calls)"
# An existing DIR that is damaged is not trusted either.
echo extra > "$work/s6/usr/include/extra.h"
reset_calls
TERN_SYSROOT_SUITES="flaky-trixie" mk armhf "$work/s6" || fail "DIR check"
[ "$(calls)" = "flaky-trixie" ] || fail "damaged DIR trusted: $(calls)"
# A partial build left by a killed run is removed.
mkdir -p "$TERN_CACHE_DIR/sysroots/armhf/forky-deadbeef.tmp.123/usr"
TERN_SYSROOT_SUITES="flaky-trixie" mk armhf "$work/s7"
[ ! -e "$TERN_CACHE_DIR/sysroots/armhf/forky-deadbeef.tmp.123" ] || fail "partial entry left behind"

# 5. An XNNPACK older than tern needs is refused, with a message, and the next suite used.
reset_calls
TERN_SYSROOT_SUITES="old-bookworm sid" mk armhf "$work/s8" || fail "old xnnpack fallback"
grep -q "suite 'old-bookworm' has libxnnpack-dev 0.0~git20230101.0000000-1, older than the 0.0~git20241108 tern needs" "$work/err" \
  || fail "no refusal message: $(cat "$work/err")"
[ "$(suite_of "$work/s8")" = sid ] || fail "wrong suite after refusal"

# 6. Nothing works: exit 1 naming every suite tried; nothing left in DIR or the cache.
reset_calls
if TERN_SYSROOT_SUITES="broken-a old-b" mk armhf "$work/s9"; then fail "succeeded with no usable suite"; fi
grep -q "no suite gave a usable armhf sysroot (tried: broken-a old-b" "$work/err" || fail "message: $(cat "$work/err")"
[ ! -e "$work/s9" ] || fail "DIR left behind"
! ls "$TERN_CACHE_DIR/sysroots/armhf" | grep -q -e '^broken-a' -e '^old-b' || fail "cache entry for a failed suite"

# 7. Without the cache, DIR is a real directory with the same record.
reset_calls
TERN_SYSROOT_CACHE=0 TERN_SYSROOT_SUITES="broken-x forky" mk armhf "$work/s10" || fail "no-cache build"
[ -d "$work/s10" ] && [ ! -L "$work/s10" ] && [ "$(suite_of "$work/s10")" = forky ] || fail "no-cache DIR"
echo "sysroot_test: all cases passed"
