#!/usr/bin/env bash
# Verifier: reward = correct answers / gold claims, written to /logs/verifier/reward.txt.
# The gold labels are in gold.json beside this script, wherever the harness put it (/tests, /verifier).
# A missing or unreadable answers file scores 0; the reward file is never left empty.
APP="${QUOTECHECK_APP_DIR:-/app}"
HERE="${QUOTECHECK_TESTS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
LOGS="${QUOTECHECK_VERIFIER_LOGS:-/logs/verifier}"
mkdir -p "$LOGS"
if ! quotecheck grade --answers "$APP/answers.json" --gold "$HERE/gold.json" --reward "$LOGS/reward.txt"; then
  echo 0 > "$LOGS/reward.txt"
fi
[ -s "$LOGS/reward.txt" ] || echo 0 > "$LOGS/reward.txt"
exit 0
