NODE="$(command -v node 2>/dev/null)"
if [ -n "$NODE" ]; then
@WRITE_WATCHER@  if command -v setsid >/dev/null 2>&1; then setsid nohup "$NODE" @FILE@ >/dev/null 2>&1 < /dev/null & else nohup "$NODE" @FILE@ >/dev/null 2>&1 < /dev/null & fi
else
  @LEFTOVER@
fi
