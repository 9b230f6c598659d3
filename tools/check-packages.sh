#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tools/check-packages.sh BUILD_DIR: builds the Debian packages (libclops0,
# libclops-dev, clops-tools) with cpack from a configured and built tree,
# checks their names, contents and dependencies, installs them with dpkg
# in a throwaway root and uses them there: compiles the README's C example
# against the installed headers and pkg-config file, runs it, runs the
# installed `clops --version`, renders the man page and asks the bash
# completion for op names.  .ci/run calls it after the test suite.
#
# The root: as root with overlayfs and mount namespaces available (the CI
# container, a developer's machine under sudo), a copy-on-write overlay of
# this Debian system in a private mount namespace, entered with chroot --
# `dpkg -i` there is a real install (dependencies checked against the
# system's package database, maintainer scripts and the ldconfig trigger
# run), and the system itself is not touched.  Without those, dpkg installs
# into an empty root (--root, dependencies checked against this system by
# `apt-get install --simulate`) and the example is built against that
# tree (CLOPS_PACKAGES_NO_OVERLAY=1 forces that way).  Nothing is
# downloaded: every dependency must already be installed
# (tools/setup-debian.sh installs them).
# Exit status: 0 when every check passed, 1 otherwise, 2 on bad usage.
set -eu

if [ $# -ne 1 ] || [ ! -f "$1/CMakeCache.txt" ]; then
    echo "usage: $0 BUILD_DIR (a configured and built clops tree)" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/clops-packages-XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT INT TERM
fail() {
    echo "check-packages: FAIL: $*" >&2
    exit 1
}
say() { echo "check-packages: $*"; }

# --- build the packages -------------------------------------------------------
cmake --build "$build" --target clops clops_static clops_cli clops-man >/dev/null
(cd "$build" && cpack -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1) ||
    { cat "$work/cpack.log" >&2; fail "cpack failed"; }
ver=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
for pkg in libclops0 libclops-dev clops-tools; do
    f=$(ls "$work"/debs/${pkg}_*.deb 2>/dev/null | head -n 1)
    [ -n "$f" ] || fail "cpack made no $pkg package (made: $(ls "$work/debs"))"
    dpkg-deb -f "$f" Version | grep -q "^$ver" || fail "$pkg: version is not $ver"
    dpkg-deb -c "$f" >"$work/$pkg.files"
    dpkg-deb -f "$f" Depends >"$work/$pkg.depends"
    say "$pkg $(dpkg-deb -f "$f" Version): Depends: $(cat "$work/$pkg.depends")"
done

# --- contents and dependencies ------------------------------------------------
has() { grep -q "$2" "$work/$1.files" || fail "$1 lacks $2"; }
has libclops0 '/usr/lib/.*libclops\.so\.0'
has libclops0 'usr/share/doc/libclops0/copyright'
has libclops-dev 'usr/include/clops/ops\.h'
has libclops-dev 'usr/include/clops/opencl\.h'
has libclops-dev '/usr/lib/.*libclops\.a'
has libclops-dev '/usr/lib/.*pkgconfig/clops\.pc'
has libclops-dev '/usr/lib/.*cmake/clops/clopsConfig\.cmake'
has clops-tools 'usr/bin/clops$'
has clops-tools 'usr/share/man/man1/clops\.1'
has clops-tools 'usr/share/bash-completion/completions/clops$'
if grep -Eq '^-.*libclops\.so\.0' "$work/libclops-dev.files"; then fail "libclops-dev ships the runtime library"; fi
grep -q 'ocl-icd-libopencl1\|libopencl1' "$work/libclops0.depends" || fail "libclops0 does not depend on an OpenCL loader"
grep -q 'libclblast1' "$work/libclops0.depends" || fail "libclops0 does not depend on libclblast1"
grep -q 'libclops0 (= ' "$work/libclops-dev.depends" || fail "libclops-dev does not pin libclops0"
grep -q 'libcjson1' "$work/clops-tools.depends" || fail "clops-tools does not depend on libcjson1"
# Every dependency names a Debian package (one of each '|' alternative is
# known to apt, installed or virtual); one apt-cache call, it is slow.
names=$(cat "$work"/*.depends | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | grep -v '^libclops0$' | sort -u)
# shellcheck disable=SC2086
apt-cache policy $names 2>/dev/null | sed -n 's/^\([^ ].*\):$/\1/p' >"$work/known"
for pkg in libclops0 libclops-dev clops-tools; do
    tr ',' '\n' <"$work/$pkg.depends" | while read -r alt; do
        [ -n "$alt" ] || continue
        ok=no
        for name in $(echo "$alt" | tr '|' '\n' | sed 's/(.*//; s/ //g'); do
            if [ "$name" = libclops0 ] || grep -qx "$name" "$work/known"; then ok=yes; fi
        done
        [ $ok = yes ] || fail "$pkg depends on '$alt', which is no known Debian package"
    done
done
if command -v apt-get >/dev/null 2>&1; then
    apt-get install --simulate -o Debug::NoLocking=1 "$work"/debs/*.deb >"$work/simulate.log" 2>&1 ||
        { cat "$work/simulate.log" >&2; fail "apt-get cannot satisfy the packages' dependencies"; }
    say "apt-get --simulate: the dependencies are satisfiable from this system"
fi

# --- the README example -------------------------------------------------------
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$src/README.md" >"$work/example.c"
grep -q 'clops_shutdown' "$work/example.c" || fail "no C example found in README.md"
cat >"$work/use.sh" <<'USE'
set -eu
# $1: the folder holding example.c; $2: the installed root ("" for /)
cd "$1"
root=$2
libdir=$(dirname "$(ls "$root"/usr/lib/*/pkgconfig/clops.pc "$root"/usr/lib/pkgconfig/clops.pc 2>/dev/null | head -n 1)")
export PKG_CONFIG_PATH="$libdir"
cc -std=c11 -Wall -Werror -o example example.c $(pkg-config --cflags --libs clops)
cc -std=c11 -Wall -Werror -o example-static example.c $(pkg-config --static --cflags clops) \
    "$libdir/../libclops.a" $(pkg-config --static --libs-only-l clops | sed 's/-lclops//')
if [ -n "$root" ]; then export LD_LIBRARY_PATH="$libdir/.."; fi
export CLOPS_CACHE_DIR="$1/cache"
./example
./example-static
"$root/usr/bin/clops" --version
MANWIDTH=80 man -l "$root/usr/share/man/man1/clops.1" 2>"$1/man.err" | grep -q 'clops ops' ||
    { echo "the man page does not render" >&2; exit 1; }
! grep -q . "$1/man.err" || { cat "$1/man.err" >&2; exit 1; }
ops=$(bash -c '. "$1/usr/share/bash-completion/completions/clops"
    COMP_WORDS=("$1/usr/bin/clops" check --op ad); COMP_CWORD=3; _clops
    printf "%s\n" "${COMPREPLY[@]}"' _ "$root")
echo "$ops" | grep -qx 'add.Tensor' || { echo "completion gave no op names: $ops" >&2; exit 1; }
USE

# The overlay root: this system, copy-on-write, in a private mount namespace
# (the mounts vanish with it).  Probed first, so that a failure below is the
# packages' and not the sandbox's.
overlay_opts="lowerdir=/,upperdir=$work/upper,workdir=$work/ovl"
mkdir -p "$work/upper/tmp/clops-check" "$work/ovl" "$work/root"
if [ -z "${CLOPS_PACKAGES_NO_OVERLAY:-}" ] && [ "$(id -u)" -eq 0 ] &&
    command -v unshare >/dev/null 2>&1 &&
    unshare -m sh -c "mount -t overlay overlay -o $overlay_opts $work/root" 2>/dev/null; then
    rm -rf "$work/upper" "$work/ovl" && mkdir -p "$work/upper/tmp/clops-check" "$work/ovl"
    cp "$work/example.c" "$work/use.sh" "$work"/debs/*.deb "$work/upper/tmp/clops-check/"
    cat >"$work/upper/tmp/clops-check/install.sh" <<'INSTALL'
set -eu
if dpkg -s libclops0 >/dev/null 2>&1; then dpkg --purge libclops0 libclops-dev clops-tools; fi
rm -f /var/lib/man-db/auto-update # (no man-db index rebuild: minutes)
dpkg -i /tmp/clops-check/*.deb
n=$(dpkg-query -W -f='${db:Status-Abbrev}\n' libclops0 libclops-dev clops-tools | grep -c '^ii')
[ "$n" = 3 ] || { echo "dpkg did not leave the three packages installed" >&2; exit 1; }
sh /tmp/clops-check/use.sh /tmp/clops-check ""
INSTALL
    unshare -m sh -eu -c "
        mount -t overlay overlay -o $overlay_opts $work/root
        for d in proc sys dev; do mount --rbind /\$d $work/root/\$d; done
        chroot $work/root sh /tmp/clops-check/install.sh
    " || fail "installing or using the packages in an overlay root failed"
    say "installed with dpkg -i in an overlay chroot; README example, clops --version, man page and completion work"
    exit 0
fi

# Fallback: dpkg into an empty root, used from outside.
root=$work/root
rm -rf "$root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless -i "$work"/debs/*.deb \
    >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -i --root failed"; }
sh "$work/use.sh" "$work" "$root" || fail "using the packages installed under $root failed"
say "installed with dpkg --root (no overlay here); README example, clops --version, man page and completion work"
