#!/bin/sh
# Makes a stand-in for node:20-bookworm-slim where no image registry is reachable (this project's
# machines): a Debian bookworm minbase from Debian's own packages (mmdebstrap), this machine's Node 20
# with npm and headers, and the `node` user. Then the Dockerfile builds unchanged:
#   podman --runtime runc build --pull=never --network=host \
#     --ulimit nofile=$(ulimit -Hn):$(ulimit -Hn) --ulimit nproc=1024:1024 \
#     --volume /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro \
#     -t localhost/eventgraph:local .
# Needs root and `apt-get install podman mmdebstrap runc`; why each flag: docs/operations.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node_bin=$(command -v node)
node_root=$(dirname "$(dirname "$(readlink -f "$node_bin")")")

# With the settings Debian's official slim images carry (debuerreotype), which keep the builds' apt
# and dpkg quick: dpkg does not fsync every file (a failed build is simply run again) and skips docs,
# man pages and translations; apt fetches no translated descriptions. The path filter is written last
# (a customize hook): as a --dpkgopt it would pass every package of the bootstrap through mmtarfilter.
mmdebstrap --variant=minbase --include=ca-certificates \
  --dpkgopt=force-unsafe-io --aptopt='Acquire::Languages "none"' \
  --customize-hook='cp "'"$here"'/dpkg-slim.cfg" "$1/etc/dpkg/dpkg.cfg.d/docker-slim"' \
  bookworm "$work/rootfs.tar" http://deb.debian.org/debian
podman import "$work/rootfs.tar" localhost/debian-bookworm-minbase:local

cp "$here/Containerfile" "$work/"
cp "$(readlink -f "$node_bin")" "$work/node"
cp -r "$node_root/lib/node_modules/npm" "$work/npm"
cp -r "$node_root/include/node" "$work/include-node"
podman --runtime runc build --network=host --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
  -t docker.io/library/node:20-bookworm-slim "$work"
