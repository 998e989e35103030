#!/usr/bin/env bash
# Oracle: quotecheck fetches every source and writes the answers.
# The answers file is written even when sources fail or the run is stopped.
# quotecheck is packed beside this script (@ORACLE_PACK@: its `run` alone, needing only Node.js), wherever the
# harness put it. It is unpacked into a temporary folder of its own (removed when this script ends) while Node.js
# starts @ORACLE_LOADER@, which waits for it and runs it: the unpacking costs no start-up time.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APP="${@APP_ENV@:-@APP_PATH@}"
LOGS="${@AGENT_LOGS_ENV@:-@AGENT_LOGS_PATH@}"
QUOTECHECK="$(mktemp -d)"
trap 'rm -rf -- "$QUOTECHECK"' EXIT
{
  status=0
  tar -xzf "$HERE/@ORACLE_PACK@" -C "$QUOTECHECK" || status=$?
  echo "$status" > "$QUOTECHECK/.status" && mv -- "$QUOTECHECK/.status" "$QUOTECHECK/.unpacked"
} > /dev/null &
@IF REPLAY@
# A frozen edition: every source is answered from the task's own WARC archive, with no network.
export @REPLAY_ENV@="${@REPLAY_ENV@:-$APP/@TASK_ARCHIVE@}"
@END REPLAY@
run() { QUOTECHECK_UNPACKED="$QUOTECHECK" node "$HERE/@ORACLE_LOADER@" run --claims "$APP/claims.json" --out "$APP/answers.json" "$@"@RUN_ARGS@; }
# The evidence report and the log go to the agent's log folder; when a harness made it unwritable for this user, the
# answers are written all the same: they are what counts.
if mkdir -p "$LOGS" 2>/dev/null && [ -w "$LOGS" ]; then
  run --report "$LOGS/report.jsonl" 2>&1 | tee -a "$LOGS/quotecheck.log"
else
  echo "solve.sh: $LOGS cannot be written: no evidence report" >&2
  run
fi
