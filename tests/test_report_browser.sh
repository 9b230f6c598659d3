#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/test_report_browser.sh: report.html as a browser shows it.
#
#     test_report_browser.sh TEST_CLI_REPORT [HTML PNG]
#
# Renders the sample report of test_cli_report (three devices, failures,
# fallbacks, skips, a result above the copy peak; CLOPS_TEST_REPORT_DIR),
# or takes HTML, and has headless Chromium (Debian's `chromium`, offline:
# a file:// page that loads nothing) write a screenshot, then checks:
#   - Chromium rendered the page: the PNG exists, has the page's width,
#     and every device colour of the charts' bars covers a visible area;
#   - the chart elements are in Chromium's DOM: two charts (GB/s and
#     GFLOP/s), bars, copy-peak ticks, axis labels, the summary, the
#     performance table and the skip reasons;
#   - no two axis labels of a chart overlap (their estimated widths at
#     11 px against their positions).
# With HTML and PNG it keeps the screenshot at PNG (docs/images/ is made
# so).  Exit 77 (skipped) when chromium or python3 is missing.
set -eu
TEST_BIN=${1:?usage: test_report_browser.sh TEST_CLI_REPORT [HTML PNG]}
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ] || ! command -v python3 >/dev/null; then
    echo "SKIP: chromium or python3 not installed (tools/setup-debian.sh installs both)"
    exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/clops-browser-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if [ $# -ge 3 ]; then
    HTML=$2
    PNG=$3
else
    CLOPS_TEST_REPORT_DIR="$TMP/report" "$TEST_BIN" >"$TMP/unit.log" 2>&1 || {
        cat "$TMP/unit.log"
        exit 1
    }
    HTML="$TMP/report/report.html"
    PNG="$TMP/shot.png"
fi
WIDTH=1400
HEIGHT=${CLOPS_SHOT_HEIGHT:-2400}
# The check renders at half scale (a quarter of the pixels to decode); the
# screenshot kept for docs/ at full scale.
SCALE=0.5
NDEV=3
if [ $# -ge 3 ]; then
    SCALE=1
    NDEV=1 # a report of this machine may have one device
fi
# One profile per run, no network, no first-run work; the timeout keeps a
# hung browser from hanging CI.
run_browser() {
    timeout 90 "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --disable-extensions --disable-background-networking \
        --user-data-dir="$TMP/profile" --window-size="$WIDTH,$HEIGHT" \
        --force-device-scale-factor="$SCALE" "$@" \
        "file://$(realpath "$HTML")" 2>>"$TMP/browser.log"
}
run_browser --screenshot="$PNG" >/dev/null || {
    tail -5 "$TMP/browser.log"
    exit 1
}
run_browser --dump-dom >"$TMP/dom.html" || {
    tail -5 "$TMP/browser.log"
    exit 1
}
python3 - "$PNG" "$TMP/dom.html" "$WIDTH" "$SCALE" "$NDEV" <<'EOF'
import re, struct, sys, zlib

png, dom_path = sys.argv[1], sys.argv[2]
width = int(int(sys.argv[3]) * float(sys.argv[4]))
enough = 400  # pixels of a device's colour that make its bars visible
errors = []

# --- the screenshot: decode the PNG (8-bit RGB or RGBA, no interlace) ---
data = open(png, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("FAIL: %s is not a PNG" % png)
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
if w != width or depth != 8 or ctype not in (2, 6) or interlace:
    sys.exit("FAIL: unexpected screenshot format %dx%d depth %d type %d" % (w, h, depth, ctype))
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts = {}
palette = dict(list({(0x4e, 0x79, 0xa7): "device 1", (0xf2, 0x8e, 0x2b): "device 2",
                     (0x76, 0xb7, 0xb2): "device 3"}.items())[:int(sys.argv[5])])
i = 0
for y in range(h):
    f = raw[i]
    line = bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        px = (line[x], line[x + 1], line[x + 2])
        if px in palette:
            counts[px] = counts.get(px, 0) + 1
    if all(counts.get(px, 0) >= enough for px in palette):
        break  # seen enough: the rest need not be decoded
for px, name in palette.items():
    if counts.get(px, 0) < enough:
        errors.append("the bars of %s (#%02x%02x%02x) cover %d pixels in the screenshot"
                      % (name, px[0], px[1], px[2], counts.get(px, 0)))

# --- the DOM Chromium built ---
dom = open(dom_path, encoding="utf-8").read()
charts = re.findall(r'<svg class="chart".*?</svg>', dom, re.S)
if len(charts) < 2:
    errors.append("%d charts in the DOM, want 2 (GB/s and GFLOP/s)" % len(charts))
for need in ['class="bar"', 'class="peak"', 'class="axis"', 'id="summary"', 'id="perf"',
             'id="skips"', "GB/s (log scale)", "GFLOP/s (log scale)"]:
    if need not in dom:
        errors.append("no %s in the DOM" % need)
for k, svg in enumerate(charts):
    labels = sorted((float(x), t) for x, t in re.findall(
        r'<text class="axis" x="([0-9.]+)"[^>]*text-anchor="middle">([^<]*)</text>', svg))
    if len(labels) < 2:
        errors.append("chart %d: %d axis labels" % (k, len(labels)))
    for (x0, t0), (x1, t1) in zip(labels, labels[1:]):
        if x1 - x0 < 6.5 * (len(t0) + len(t1)) / 2 + 4:
            errors.append("chart %d: axis labels %r and %r overlap" % (k, t0, t1))
if errors:
    print("FAIL:\n  " + "\n  ".join(errors))
    sys.exit(1)
print("report.html renders: %d charts, bars of every device, axis labels apart" % len(charts))
EOF
