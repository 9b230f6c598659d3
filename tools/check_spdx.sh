#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/check_spdx.sh [DIR]: fails when a tracked source file lacks the
# licence tag.
#
# Every tracked .c, .h, .cpp, .hpp, .cl, .clh, .py, .sh, .cmake and CMakeLists.txt file
# of the git checkout at DIR (default: the checkout holding this script)
# must carry "SPDX-License-Identifier: Apache-2.0" in its first 5 lines.
# tools/add_spdx.sh adds the line where it is missing.
# Exit status: 0 when every file has it, 1 otherwise (the files are listed),
# 2 on bad usage.
set -u

dir=${1:-$(dirname "$0")/..}
if ! git -C "$dir" rev-parse --git-dir >/dev/null 2>&1; then
    echo "$0: $dir is not a git checkout" >&2
    exit 2
fi
cd "$dir" || exit 2

missing=0
while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    if ! head -n 5 -- "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
        echo "missing SPDX-License-Identifier: $f"
        missing=$((missing + 1))
    fi
done < <(git ls-files -z -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cl' '*.clh' '*.py' '*.sh' '*.cmake' \
             'CMakeLists.txt' '*/CMakeLists.txt')

if [ "$missing" -ne 0 ]; then
    echo "$0: $missing file(s) without 'SPDX-License-Identifier: Apache-2.0' in their" \
         "first 5 lines (tools/add_spdx.sh adds it)" >&2
    exit 1
fi
exit 0
