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
