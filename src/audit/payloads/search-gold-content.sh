NODE="$(command -v node 2>/dev/null)"
[ -n "$NODE" ] || { echo "@NOT_APPLICABLE@ the image has no Node.js to read the files it finds"; exit 0; }
@WRITE_IDS@@WRITE_READER@
found="$(timeout 60 grep -rlsIwF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev @PATTERNS@ / 2>/dev/null | grep -vxF "$A" | grep -v '^/tmp/.audit-' | head -5000)"
n="$(printf '%s\n' "$found" | grep -c .)"
rm -rf "$A"
said="$(printf '%s\n' "$found" | "$NODE" /tmp/.audit-gold-content.js /tmp/.audit-ids.json "$A")"
if [ -n "$said" ]; then echo "@NOTE@ id-label pairs found in: $(printf '%s' "$said" | tr '\n' ' ')"
else echo "@NOTE@ $n files name a claim id; none pairs one with a label"; rm -f "$A"; fi
