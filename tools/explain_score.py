#!/usr/bin/env python3
"""Scores `cudoctor explain` on a directory of error texts: NNN.txt beside NNN.expect, the
format of tests/explain/ (`expect: a b` exactly these findings, `absent: c` never this one,
`class: false-positive` no error finding at all). Each text is explained as a user would run it
(`cudoctor explain --offline --json FILE`) and judged as tests/unit/test_explain.c
judges it. Prints one line per text that is not fully right and the totals:

  fully right     all expected causes found and no other cause (no error finding for a
                  false positive)
  expected found  expected causes found / expected causes
  wrong causes    findings that are neither expected nor allowed (on a false positive: each
                  error finding)

With --by-tag it then prints the same three counts for each tag of the `tags:` lines (a text
counts under every tag it carries; texts without tags under "(untagged)").

usage: tools/explain_score.py [--bin build/cudoctor] [--quiet] [--by-tag] DIR [DIR...]
`make explain-score DIR=...` runs it on DIR (default tests/explain)."""
import argparse
import json
import os
import subprocess
import sys


def read_expect(path):
    want, absent, fp, tags = [], [], False, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("expect:"):
                want += line[7:].split()
            elif line.startswith("absent:"):
                absent += line[7:].split()
            elif line == "class: false-positive":
                fp = True
            elif line.startswith("tags:"):
                tags += line[5:].split()
    return want, absent, fp, tags


def findings(binary, path):
    out = subprocess.run([binary, "explain", "--offline", "--json", path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    if out.returncode not in (0, 1):
        raise RuntimeError("%s: cudoctor exited %d" % (path, out.returncode))
    doc = json.loads(out.stdout.decode("utf-8", errors="replace"))
    seen = {}
    for f in doc.get("findings", []):
        seen.setdefault(f["id"], f["severity"])
    return seen


def print_by_tag(per_tag):
    """One row per tag: texts, fully right, expected causes found, wrong causes."""
    rows = sorted(per_tag.items(), key=lambda kv: (-kv[1][0], kv[0]))
    width = max([len(t) for t, _ in rows] + [3])
    print("%-*s  %5s  %11s  %14s  %5s" % (width, "tag", "texts", "fully right",
                                          "expected found", "wrong"))
    for tag, (n, right, found, total, wrong) in rows:
        print("%-*s  %5d  %6d %3.0f%%  %8d/%-5d  %5d" % (width, tag, n, right,
                                                      100.0 * right / n, found, total, wrong))


def score(binary, dirs, quiet, by_tag=False):
    n = right = want_total = want_found = wrong = 0
    per_tag = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".txt"):
                continue
            txt = os.path.join(d, name)
            exp = txt[:-4] + ".expect"
            if not os.path.exists(exp):
                continue
            want, absent, fp, tags = read_expect(exp)
            got = findings(binary, txt)
            found = [w for w in want if w in got]
            if fp:
                bad = [i for i, sev in got.items() if sev == "error" and i not in want]
            else:
                bad = [i for i in got if i not in want]
            bad += [a for a in absent if a in got and a not in bad]
            n += 1
            want_total += len(want)
            want_found += len(found)
            wrong += len(bad)
            ok = len(found) == len(want) and not bad
            right += ok
            for tag in tags or ["(untagged)"]:
                t = per_tag.setdefault(tag, [0, 0, 0, 0, 0])
                t[0] += 1
                t[1] += ok
                t[2] += len(found)
                t[3] += len(want)
                t[4] += len(bad)
            if not ok and not quiet:
                print("%s: expected %s, got %s" % (txt, " ".join(want) or "(no error)",
                                                 " ".join(sorted(got)) or "(nothing)"))
    print("texts %d, fully right %d (%.0f%%), expected causes found %d/%d, wrong causes %d" %
          (n, right, 100.0 * right / max(n, 1), want_found, want_total, wrong))
    if by_tag and per_tag:
        print_by_tag(per_tag)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/cudoctor")
    ap.add_argument("--quiet", action="store_true", help="totals only")
    ap.add_argument("--by-tag", action="store_true",
                    help="then the counts for each tag of the expect files' tags: lines")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    return score(a.bin, a.dirs, a.quiet, a.by_tag)


if __name__ == "__main__":
    sys.exit(main())
