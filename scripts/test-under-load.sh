#!/usr/bin/env bash
# Runs `npm test` with CPU-bound processes beside it, as a busy machine would have them: the suite
# must pass so, without longer timeouts (its tests wait on events, never on sleeps). The burners are
# `node -e 'for(;;){}'` (two unless UNDERSTUDY_LOAD_PROCESSES says otherwise), at normal priority,
# and are stopped on exit, whatever the suite does (a trap on EXIT, INT and TERM). Arguments go
# to `npm test` (`scripts/test-under-load.sh test/ops`); the exit code is the suite's.
set -euo pipefail
cd "$(dirname "$0")/.."

count=${UNDERSTUDY_LOAD_PROCESSES:-2}
if ! [[ "$count" =~ ^[0-9]+$ ]]; then
  printf 'test-under-load: UNDERSTUDY_LOAD_PROCESSES must be a whole number, not %q\n' "$count" >&2
  exit 2
fi

burners=()
suite=''
stop_burners() {
  # Only the processes this script started, by their ids.
  if [ "${#burners[@]}" -gt 0 ]; then
    kill "${burners[@]}" 2>/dev/null || true
    wait "${burners[@]}" 2>/dev/null || true
    burners=()
  fi
}
interrupted() { # interrupted <signal> <exit code>
  [ -n "$suite" ] && kill "-$1" "$suite" 2>/dev/null
  stop_burners
  exit "$2"
}
trap stop_burners EXIT
trap 'interrupted INT 130' INT
trap 'interrupted TERM 143' TERM

for _ in $(seq 1 "$count"); do
  node -e 'for(;;){}' &
  burners+=("$!")
done
printf 'test-under-load: %s CPU-bound processes running (%s)\n' "$count" "${burners[*]:-none}" >&2

# In the background and waited for, so a signal reaches the traps at once (bash runs a trap only
# after the foreground command ends). The script's own settings stay out of the suite's
# environment (start-up warns of an unknown UNDERSTUDY_* name).
env -u UNDERSTUDY_LOAD_PROCESSES -u UNDERSTUDY_CI_LOAD npm test -- "$@" &
suite=$!
status=0
wait "$suite" || status=$?
suite=''
stop_burners
exit "$status"
