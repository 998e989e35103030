exec {NAP}<> <(:) 2>/dev/null || NAP=""
nap() { if [ -n "$NAP" ]; then read -r -t "$1" -u "$NAP" _ 2>/dev/null; else sleep "$1"; fi; }
@BODY@
