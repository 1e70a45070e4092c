#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: the packages the
# kit needs, then the pristine kit built in /autograder/grade so that each submission only
# compiles its own exercise files. Made by `tools/grade gradescope-zip` (tools/grader/README.md).
# AUTOGRADER_ROOT (default /autograder) lets tests/grading/check_gradescope.py play it out.
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
cd "$root/source"
# The kit is tested on Debian 12 and 13, and Ubuntu 24.04's packages lie between theirs (its
# docs/working.md, "Platforms"); on another base image say so in the build log.
os=$( (. /etc/os-release 2>/dev/null && echo "${ID:-?} ${VERSION_ID:-?} (${PRETTY_NAME:-?})") || echo "unknown")
case $os in
  "debian 12 "* | "debian 13 "* | "ubuntu 24.04 "*) ;;
  *) echo "setup.sh: this image is $os; choose a Debian 12 or 13 or an Ubuntu 24.04 base" \
       "image (the kit's docs/working.md, \"Platforms\"); elsewhere it needs CMake >= 3.25 and" \
       "xtensor >= 0.24 (Ubuntu 22.04, Gradescope's default, has CMake 3.22)" >&2 ;;
esac
# Another apt-get of the machine (a test installing Slurm beside it) holds dpkg's lock a while:
# wait for it rather than fail.
apt-get -o DPkg::Lock::Timeout=600 update -qq
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
  --no-install-recommends python3 git >/dev/null
python3 tools/kit setup
python3 tools/grade --gradescope --prepare --root "$root"
# The kit (its solutions/ and goldens) and the hidden set (autograder/hidden) are root's alone:
# where the container refuses namespaces, ownership and mode are what keep them from the
# student's uid. Every folder of them 0700 too, should /autograder/source ever be opened.
chown -R root:root "$root/source"
chmod -R go-rwx "$root/source"
chmod 0700 "$root/source"
# What the student's compile reads stays reachable: $root/grade (0711) holds the pristine
# build, its headers 0644 and everything else root's (the grader's lock_down): its own copy
# of solutions/ and reference_data/ is 0600, its copy of the hidden set (.cases) 0700.
chmod 0711 "$root/grade"
