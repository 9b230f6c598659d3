#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/add_spdx.sh [DIR]: adds the licence tag to tracked source files
# that lack it.
#
# For every tracked .c, .h, .cpp, .hpp, .cl, .clh, .py, .sh, .cmake and CMakeLists.txt
# file of the git checkout at DIR (default: the checkout holding this
# script) without "SPDX-License-Identifier: Apache-2.0" in its first 5
# lines, inserts the tag as the first line, in the file's comment syntax:
#     /* SPDX-License-Identifier: Apache-2.0 */    C, C++, OpenCL C (.c .h .cpp .hpp .cl .clh)
#     # SPDX-License-Identifier: Apache-2.0        Python, shell, CMake
# after a "#!" line when the file starts with one (and after a Python
# coding line that follows it).  Files that have the tag are left alone,
# so running it twice changes nothing.  tools/check_spdx.sh checks.
# Exit status: 0 on success, 1 when a file could not be rewritten, 2 on bad
# usage.
set -u

dir=${1:-$(dirname "$0")/..}
if ! git -C "$dir" rev-parse --git-dir >/dev/null 2>&1; then
    echo "$0: $dir is not a git checkout" >&2
    exit 2
fi
cd "$dir" || exit 2

tag='SPDX-License-Identifier: Apache-2.0'
failed=0
added=0
while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    head -n 5 -- "$f" | grep -q "$tag" && continue
    case "$f" in
    *.c | *.h | *.cpp | *.hpp | *.cl | *.clh) line="/* $tag */" ;;
    *) line="# $tag" ;;
    esac
    # Lines to keep above the tag: a shebang, and a Python coding line
    # right after it.
    keep=0
    first=$(head -n 1 -- "$f")
    if [ "${first#\#!}" != "$first" ]; then
        keep=1
        second=$(sed -n 2p -- "$f")
        case "$f" in
        *.py) if printf '%s\n' "$second" | grep -Eq '^#.*coding[:=]'; then keep=2; fi ;;
        esac
    fi
    tmp=$(mktemp "$f.spdx.XXXXXX") || { failed=1; continue; }
    {
        head -n "$keep" -- "$f"
        printf '%s\n' "$line"
        tail -n +"$((keep + 1))" -- "$f"
    } >"$tmp" && chmod --reference="$f" "$tmp" && mv -- "$tmp" "$f" || {
        rm -f -- "$tmp"
        echo "$0: cannot rewrite $f" >&2
        failed=1
        continue
    }
    added=$((added + 1))
done < <(git ls-files -z -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cl' '*.clh' '*.py' '*.sh' '*.cmake' \
             'CMakeLists.txt' '*/CMakeLists.txt')
echo "$0: added the tag to $added file(s)"
exit $failed
