#!/usr/bin/env bash
set -euo pipefail
quotecheck run --claims /app/claims.json --out /app/answers.json
