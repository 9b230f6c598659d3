#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/md2man.py: docs/cli.md -> the clops(1) man page (roff, man macros).

Debian's pandoc is ~170 MB installed, so the build converts the one
markdown page it needs with this small script instead.  It knows the subset
of markdown docs/cli.md uses: '#' title, '##'/'###' sections, paragraphs,
fenced code blocks, '|' tables, '- ' lists, definition lists ('term' line
followed by ': text'), inline `code`, **bold**, *emphasis* and [links](..).
Anything else passes through as text, escaped.

Usage: md2man.py INPUT.md OUTPUT.1 VERSION
"""
import re
import sys


def esc(text):
    """Escapes roff's special characters in running text."""
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    # Non-ASCII as groff's Unicode escapes: the page renders without preconv.
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)


def inline(text):
    """Markdown inline markup to roff font changes."""
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]*)`|\*\*([^*]+)\*\*|\[([^\]]*)\]\([^)]*\)|(?<![\w*])\*([^*\s][^*]*)\*", text):
        out.append(esc(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + esc(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + esc(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            out.append(inline(m.group(3)))
        else:
            out.append("\\fI" + esc(m.group(4)) + "\\fR")
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def line_out(text):
    """A text line that roff will not take for a request."""
    return "\\&" + text if text[:1] in (".", "'") else text


def table_cells(row):
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def indented_item(lines, i, text, out):
    """A list item or definition starting at lines[i] (its text without the
    marker), continued by the indented lines after it; returns the next
    line's index."""
    i += 1
    while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
        text += " " + lines[i].strip()
        i += 1
    out.append(line_out(inline(text)))
    return i


def convert(md, version):
    lines = md.splitlines()
    out = []
    title = "clops"
    i = 0
    if lines and lines[0].startswith("# "):
        i = 1
    out.append('.TH CLOPS 1 "" "clops %s" "clops manual"' % version)
    para_open = False
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("```"):
            i += 1
            out.append(".PP\n.RS 2\n.nf")
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_out(esc(lines[i])))
                i += 1
            out.append(".fi\n.RE")
            i += 1
            continue
        if ln.startswith("## ") or ln.startswith("### "):
            level = 2 if ln.startswith("## ") else 3
            text = ln.split(" ", 1)[1].strip()
            name = text.upper() if level == 2 else text
            out.append('%s "%s"' % (".SH" if level == 2 else ".SS", inline(name).replace('"', "")))
        elif ln.strip() == "---" or not ln.strip():
            pass
        elif ln.lstrip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                cells = table_cells(lines[i])
                if not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                    rows.append([c.replace("\\|", "|") for c in cells])
                i += 1
            header, body = rows[0], rows[1:]
            for r in body:
                out.append(".TP\n" + line_out("\\fB" + inline(r[0]) + "\\fR"))
                rest = r[1:]
                if len(header) > 2:
                    rest = ["%s: %s" % (h, c) for h, c in zip(header[1:], r[1:])]
                out.append(line_out(inline("; ".join(rest))))
            continue
        elif ln.startswith("- ") or ln.startswith("* "):
            out.append(".IP \\(bu 2")
            i = indented_item(lines, i, ln[2:], out)
            continue
        elif i + 1 < len(lines) and lines[i + 1].startswith(": "):
            out.append(".TP\n" + line_out(inline(ln.strip())))
            i = indented_item(lines, i + 1, lines[i + 1][2:], out)
            continue
        else:
            text = ln.strip()
            i += 1
            while (i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "```", "|", "- ")) and
                   not (i + 1 < len(lines) and lines[i + 1].startswith(": "))):
                text += " " + lines[i].strip()
                i += 1
            out.append(".PP\n" + line_out(inline(text)))
            continue
        i += 1
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: md2man.py INPUT.md OUTPUT.1 VERSION\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        md = f.read()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(convert(md, sys.argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
