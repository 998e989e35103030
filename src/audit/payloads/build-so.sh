SO=/app/.audit-preload.so
@WRITE_SOURCE@
CC="$(command -v cc || command -v gcc || command -v clang || command -v tcc)"
if [ -z "$CC" ]; then echo "@NOT_APPLICABLE@ the image has no C compiler to build a preload library"; exit 0; fi
"$CC" -shared -fPIC -o "$SO" /tmp/.audit-preload.c || { echo "@NOT_APPLICABLE@ the C compiler could not build the preload library"; exit 0; }
chmod 755 "$SO"; cp "$SO" /tmp/.audit-preload.so 2>/dev/null
