# Sourced by the scripts that download (setup.sh, targets/rpi/make-sysroot.sh): run a command again,
# with growing pauses, when it fails. A package mirror in mid-sync, a dropped connection or a busy
# proxy clears in seconds to minutes; a command that fails every time still fails, after the last try.
#
#   . scripts/retry.sh
#   retry ATTEMPTS FIRST_DELAY_S COMMAND [ARGS...]
#
# Tries COMMAND up to ATTEMPTS times (>= 1). After failure k it sleeps FIRST_DELAY_S * 3^(k-1) seconds
# (20, 60, 180 ... for 20). Returns COMMAND's last exit status. TERN_RETRY_SLEEP overrides `sleep`
# (the tests set it to `true`).

retry() {
  local attempts=$1 delay=$2 n=1 rc=0
  shift 2
  case "$attempts$delay" in
    *[!0-9]*) echo "retry: ATTEMPTS and FIRST_DELAY_S must be whole numbers (got '$attempts', '$delay')" >&2; return 2 ;;
  esac
  [ "$attempts" -ge 1 ] || attempts=1
  while :; do
    "$@" && return 0
    rc=$?
    if [ "$n" -ge "$attempts" ]; then
      echo "retry: '$1' failed $n time(s) (last exit status $rc); giving up" >&2
      return "$rc"
    fi
    echo "retry: '$1' failed (exit status $rc), attempt $n of $attempts; next try in ${delay} s" >&2
    ${TERN_RETRY_SLEEP:-sleep} "$delay"
    n=$((n + 1))
    delay=$((delay * 3))
  done
}
