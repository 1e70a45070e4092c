#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: the packages the
# kit needs, then the pristine kit built in /autograder/grade so that each submission only
# compiles its own exercise files. Made by `tools/grade gradescope-zip` (tools/grader/README.md).
# AUTOGRADER_ROOT (default /autograder) lets tests/grading/check_gradescope.py play it out.
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
cd "$root/source"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 git >/dev/null
python3 tools/kit setup
python3 tools/grade --gradescope --prepare --root "$root"
# The kit (its solutions/) and the hidden set are root's alone: where the container refuses
# namespaces, ownership and mode are what keeps them from the student's uid. The pristine build
# in $root/grade stays passable: the student's compile reads its headers.
chown -R root:root "$root/source"
chmod 0700 "$root/source"
