#!/usr/bin/env bash
# Verifier: reward = correct answers / gold claims, written to /logs/verifier/reward.txt, and with how the answers
# failed to /logs/verifier/reward.json; the reason for a 0 is printed. The gold labels are in gold.json beside this
# script, wherever the harness put it (/tests, /verifier); the grader is grade.mjs beside it. Nothing from the agent's
# environment is used: see the second half.
if [ "${1-}" != --clean ]; then
  # Run again with an empty environment (no PATH, BASH_ENV, NODE_OPTIONS, functions), the folders as arguments.
  /usr/bin/env -i /bin/bash --noprofile --norc -- "${BASH_SOURCE[0]}" --clean "${@APP_ENV@:-@APP_PATH@}" "${@VERIFIER_LOGS_ENV@:-@VERIFIER_LOGS_PATH@}"
  exit 0
fi
PATH=/usr/sbin:/usr/bin:/sbin:/bin
APP="$2"
LOGS="$3"
HERE="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"

# Reward 0 in both files, each by temp file and rename: whatever is at reward.txt or reward.json (a stale 1, a link, a
# FIFO, a read-only file or folder) is removed or moved aside first, and nothing is written through a link.
reward_zero() {
  if [ -L "$LOGS" ] || { [ -e "$LOGS" ] && [ ! -d "$LOGS" ]; }; then rm -f -- "$LOGS"; fi
  mkdir -p -- "$LOGS" || return 1
  if [ -O "$LOGS" ]; then chmod u+rwx -- "$LOGS"; fi
  for name in reward.txt reward.json; do
    if [ -e "$LOGS/$name" ] || [ -L "$LOGS/$name" ]; then
      rm -rf -- "$LOGS/$name" 2>/dev/null || mv -f -T -- "$LOGS/$name" "$LOGS/.stale-$name-$$"
    fi
  done
  write_zero reward.txt 0 && write_zero reward.json @ZERO_REWARD_JSON@
}
write_zero() {
  local tmp
  tmp="$(mktemp -- "$LOGS/.reward.XXXXXX")" && printf '%s\n' "$2" > "$tmp" && chmod 644 -- "$tmp" && mv -f -T -- "$tmp" "$LOGS/$1"
}
reward_zero

# Node.js by absolute path: the image's (node's official images keep it in /usr/local/bin) or the system's.
NODE=""
for candidate in /usr/local/bin/node /usr/bin/node; do
  if [ -x "$candidate" ]; then NODE="$candidate"; break; fi
done
if [ -z "$NODE" ]; then
  echo "reward 0: the verifier found no Node.js at /usr/local/bin/node or /usr/bin/node"
  exit 0
fi
# The grader writes both reward files itself (0 until it knows better); if it fails or runs out of time, 0 is written again.
/usr/bin/timeout -k 5 @GRADER_TIMEOUT_SEC@ "$NODE" -- "$HERE/@GRADER_FILE@" --answers "$APP/answers.json" --gold "$HERE/gold.json" --logs "$LOGS"
status=$?
if [ "$status" -ne 0 ]; then
  echo "reward 0: the grader failed (exit status $status)"
  reward_zero
fi
exit 0
