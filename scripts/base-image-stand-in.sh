#!/usr/bin/env bash
# A test double for the public base image `node:20-bookworm-slim`, for machines whose engine cannot reach a registry
# (CI here reaches only npm's registry and Debian's packages). It is what the real image is to the tasks: Debian 12
# (bookworm, minbase) with Node.js 20 at /usr/local/bin/node, a `node` user (uid 1000), Docker's PATH and an entrypoint
# that runs a command given, else node. It is not the real image (no npm or yarn; this machine's Node.js binary), so a
# run on it certifies the tasks' own Dockerfiles, not the registry's image.
#
# Usage: scripts/base-image-stand-in.sh [podman|docker]    (default: podman)
# Does nothing when the engine already has the image (pulled, or made here before); tries a pull first, then builds
# the stand-in with debootstrap from Debian's mirror and imports it under the public name.
set -euo pipefail

engine="${1:-podman}"
image="docker.io/library/node:20-bookworm-slim"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if "$engine" image inspect "$image" >/dev/null 2>&1; then
  echo "base image: $engine has $image"
  exit 0
fi
if timeout 60 "$engine" pull -q "$image" >/dev/null 2>&1; then
  echo "base image: pulled $image"
  exit 0
fi

node_bin="$(command -v node)"
case "$("$node_bin" --version)" in
  v20.*) ;;
  *) echo "base image: this machine's Node.js is $("$node_bin" --version), not 20: no stand-in made" >&2; exit 1 ;;
esac
command -v debootstrap >/dev/null || { echo "base image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }

root="$(mktemp -d /tmp/quotecheck-base-image.XXXXXX)"
trap 'rm -rf "$root"' EXIT
echo "base image: no registry; making a stand-in for $image (debootstrap bookworm from $mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -n 20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
chroot "$root" /usr/sbin/groupadd --gid 1000 node
chroot "$root" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
cat > "$root/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
# The stand-in's entrypoint: a command given runs as it is; an option or a script file goes to node.
set -e
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ] || ! command -v "$1" >/dev/null 2>&1; then
  set -- node "$@"
fi
exec "$@"
ENTRY
chmod 0755 "$root/usr/local/bin/docker-entrypoint.sh"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | "$engine" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION='"$("$node_bin" --version | tr -d v)" \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["node"]' \
  - "$image" >"$root.log" 2>&1 || {
  tail -n 20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"
echo "base image: $image is the stand-in ($("$engine" image inspect --format '{{.Size}}' "$image") bytes)"
