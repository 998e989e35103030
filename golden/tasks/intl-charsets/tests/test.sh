#!/usr/bin/env bash
# Verifier: grade /app/answers.json against the gold labels; the reward file is never left empty.
mkdir -p /logs/verifier
if ! quotecheck grade --answers /app/answers.json --gold /tests/gold.json --reward /logs/verifier/reward.txt; then
  if ! grep -Eq '^[[:space:]]*[0-9]' /logs/verifier/reward.txt 2>/dev/null; then
    echo 0 > /logs/verifier/reward.txt
  fi
fi
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
