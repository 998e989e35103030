end=$((SECONDS+180))
until @ANY@ || [ "$SECONDS" -ge "$end" ]; do :; done
burst=$((SECONDS+3))
while [ "$SECONDS" -lt "$burst" ]; do @THEN@; done
for i in 1 2 3 4 5; do @THEN@; nap 0.3; done
