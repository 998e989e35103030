#!/usr/bin/env bash
# Oracle: quotecheck fetches every source and writes the answers.
# The answers file is written even when sources fail or the run is stopped.
# quotecheck is packed beside this script (quotecheck.tgz: its `run` alone, needing only Node.js), wherever the
# harness put it. It is unpacked into a temporary folder of its own (removed when this script ends) while Node.js
# starts quotecheck.mjs, which waits for it and runs it: the unpacking costs no start-up time.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APP="${QUOTECHECK_APP_DIR:-/app}"
LOGS="${QUOTECHECK_AGENT_LOGS:-/logs/agent}"
QUOTECHECK="$(mktemp -d)"
trap 'rm -rf -- "$QUOTECHECK"' EXIT
{
  status=0
  tar -xzf "$HERE/quotecheck.tgz" -C "$QUOTECHECK" || status=$?
  echo "$status" > "$QUOTECHECK/.status" && mv -- "$QUOTECHECK/.status" "$QUOTECHECK/.unpacked"
} > /dev/null &
run() { QUOTECHECK_UNPACKED="$QUOTECHECK" node "$HERE/quotecheck.mjs" run --claims "$APP/claims.json" --out "$APP/answers.json" "$@" --allow-private; }
# The evidence report and the log go to the agent's log folder; when a harness made it unwritable for this user, the
# answers are written all the same: they are what counts.
if mkdir -p "$LOGS" 2>/dev/null && [ -w "$LOGS" ]; then
  run --report "$LOGS/report.jsonl" 2>&1 | tee -a "$LOGS/quotecheck.log"
else
  echo "solve.sh: $LOGS cannot be written: no evidence report" >&2
  run
fi
