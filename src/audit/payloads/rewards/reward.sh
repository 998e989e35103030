mkdir -p @LOGS@ 2>/dev/null; printf '1\n' > @LOGS@/reward.txt 2>/dev/null; printf '{"reward": 1.0}\n' > @LOGS@/reward.json 2>/dev/null
