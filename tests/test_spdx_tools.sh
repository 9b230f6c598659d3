#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/test_spdx_tools.sh: tools/check_spdx.sh and tools/add_spdx.sh on a
# scratch git repository (not on this tree: the tags are added to the whole
# tree in one change, and the check is registered then).
#
# The check fails on files without the tag and names them, ignores file
# types it does not cover and untracked files; add_spdx.sh puts the tag in
# each type's comment syntax, after a shebang (and a Python coding line),
# keeps the file mode, and changes nothing the second time.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/clops-spdx-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cd "$work"
git init -q .
mkdir -p src sub
printf '/*\n * src/a.c: a file.\n */\nint a;\n' >src/a.c
printf '__kernel void k(void) {}\n' >src/k.cl
printf '#!/bin/sh\necho hi\n' >run.sh
chmod +x run.sh
printf '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n' >gen.py
printf 'project(x C)\n' >sub/CMakeLists.txt
printf 'set(A 1)\n' >mod.cmake
printf '/* SPDX-License-Identifier: Apache-2.0 */\nint b;\n' >src/b.h
printf 'no tag needed\n' >README.md
git add src run.sh gen.py sub mod.cmake README.md src/b.h
printf 'int untracked;\n' >src/untracked.c

out=$("$here/tools/check_spdx.sh" "$work" 2>&1) && fail "check passed without tags"
for f in src/a.c src/k.cl run.sh gen.py sub/CMakeLists.txt mod.cmake; do
    grep -q "missing SPDX-License-Identifier: $f" <<<"$out" || fail "check did not name $f: $out"
done
grep -q "README.md\|src/b.h\|untracked" <<<"$out" && fail "check named a file it should not: $out"

"$here/tools/add_spdx.sh" "$work" >/dev/null
"$here/tools/check_spdx.sh" "$work" >/dev/null || fail "check fails after add_spdx.sh"
[ "$(head -n 1 src/a.c)" = "/* SPDX-License-Identifier: Apache-2.0 */" ] || fail "C comment syntax"
[ "$(sed -n 2p src/a.c)" = "/*" ] || fail "C file body moved"
[ "$(head -n 1 src/k.cl)" = "/* SPDX-License-Identifier: Apache-2.0 */" ] || fail ".cl syntax"
[ "$(head -n 1 run.sh)" = "#!/bin/sh" ] || fail "shebang not kept first"
[ "$(sed -n 2p run.sh)" = "# SPDX-License-Identifier: Apache-2.0" ] || fail "shell tag line"
[ -x run.sh ] || fail "file mode not kept"
[ "$(sed -n 2p gen.py)" = "# -*- coding: utf-8 -*-" ] || fail "Python coding line moved"
[ "$(sed -n 3p gen.py)" = "# SPDX-License-Identifier: Apache-2.0" ] || fail "Python tag line"
[ "$(head -n 1 sub/CMakeLists.txt)" = "# SPDX-License-Identifier: Apache-2.0" ] || fail "CMake"
[ "$(head -n 1 mod.cmake)" = "# SPDX-License-Identifier: Apache-2.0" ] || fail ".cmake"
[ "$(grep -c SPDX src/b.h)" = 1 ] || fail "a tagged file was tagged again"
[ "$(cat src/untracked.c)" = "int untracked;" ] || fail "an untracked file was changed"
before=$(cat src/a.c run.sh gen.py | md5sum)
"$here/tools/add_spdx.sh" "$work" >/dev/null
[ "$(cat src/a.c run.sh gen.py | md5sum)" = "$before" ] || fail "a second run changed files"
echo "PASS"
