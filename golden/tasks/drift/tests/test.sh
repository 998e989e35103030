#!/usr/bin/env bash
# Verifier: reward = correct answers / gold claims, written to /logs/verifier/reward.txt.
# A missing or unreadable answers file scores 0; the reward file is never left empty.
APP="${QUOTECHECK_APP_DIR:-/app}"
TESTS="${QUOTECHECK_TESTS_DIR:-/tests}"
LOGS="${QUOTECHECK_VERIFIER_LOGS:-/logs/verifier}"
mkdir -p "$LOGS"
if ! quotecheck grade --answers "$APP/answers.json" --gold "$TESTS/gold.json" --reward "$LOGS/reward.txt"; then
  echo 0 > "$LOGS/reward.txt"
fi
[ -s "$LOGS/reward.txt" ] || echo 0 > "$LOGS/reward.txt"
exit 0
