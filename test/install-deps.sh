#!/bin/bash
# install-deps.sh: the Debian packages Canal builds, tests and compares with.
# Installs only what is missing; needs root (or does nothing when all exist).
# A package counts as present only when dpkg says it is installed: one that
# was removed but left its configuration files ("deinstall ok config-files")
# is missing.
set -u
PKGS="build-essential python3 autoconf automake libtool pkg-config bc procps libfabric-dev libpmix-dev
      libhwloc-dev check libmpich-dev mpich openmpi-bin libopenmpi-dev valgrind
      clang libclang-rt-14-dev slurmd slurmctld slurm-client default-jdk-headless
      iproute2 util-linux gfortran"
# procps: pgrep, with which test/mpi/runtests.sh finds ranks left running.
# libmpich-dev, mpich: the ABI check (test/abi-check.sh), Hydra launch tests, MPICH binaries on Canal.
# gfortran (and build-essential's g++): programs built with MPICH's mpif90.mpich and
#   mpicxx.mpich run on Canal (test/mpi/testlist.lang), Canal's mpicxx.
# openmpi-bin: the Open MPI launch test (test/launch/openmpi.sh).
# clang + libclang-rt-14-dev: the libFuzzer targets (test/fuzz/run.sh); Debian 12's clang is 14.
# slurmd slurmctld slurm-client: the private Slurm of test/launch/slurm.sh.
# default-jdk-headless: the Java binding's tests (bindings/java).
# iproute2 + util-linux (unshare, nsenter): the namespace cluster (test/cluster/netns.sh).
# gfortran: the mpi module and the Fortran programs of test/fortran/run.sh.
missing=
for p in $PKGS; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && { echo "all dependencies present"; exit 0; }
if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt may hold the lock for a while: wait for it rather than fail.
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
apt_get update -q > /dev/null && apt_get install -y -q $missing > /tmp/canal-apt.log 2>&1 \
    || { tail -20 /tmp/canal-apt.log; exit 1; }
for p in $missing; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] \
        || { echo "install-deps.sh: $p is still not installed (see /tmp/canal-apt.log)" >&2; exit 1; }
done
echo "installed:$missing"
