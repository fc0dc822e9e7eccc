#!/bin/bash
# install-deps.sh: the Debian packages Canal builds, tests and compares with.
# Installs only what is missing; needs root (or does nothing when all exist).
set -u
PKGS="build-essential autoconf automake libtool pkg-config bc libfabric-dev libpmix-dev
      libhwloc-dev check libmpich-dev mpich openmpi-bin libopenmpi-dev valgrind
      clang libclang-rt-14-dev iproute2 util-linux"
# clang + libclang-rt-14-dev: the libFuzzer targets (test/fuzz/run.sh); Debian 12's clang is 14.
# iproute2 + util-linux (unshare, nsenter): the namespace cluster (test/cluster/netns.sh).
missing=
for p in $PKGS; do
    dpkg -s "$p" > /dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && { echo "all dependencies present"; exit 0; }
if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q > /dev/null && apt-get install -y -q $missing > /tmp/canal-apt.log 2>&1 \
    || { tail -20 /tmp/canal-apt.log; exit 1; }
echo "installed:$missing"
