#!/usr/bin/env python3
"""A strict reader of the Prometheus text exposition format (version 0.0.4), as node_exporter's
textfile collector reads it: https://prometheus.io/docs/instrumenting/exposition_formats/
and the naming conventions of https://prometheus.io/docs/practices/naming/.

usage: prom_check.py FILE [PREFIX]
Every line must parse; each family has at most one HELP and one TYPE, given before its
samples, and its samples stand together; counters end in _total; no series repeats; metric
names start with PREFIX (default cudoctor_) and are snake_case. Prints one line per sample,
NAME{LABELS sorted by name} VALUE (NAME alone without labels) with label values unescaped as JSON strings, for the caller to
check; exits 1 naming the first bad line."""
import json
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r'"(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(r"^(%s)(?:\{((?:%s=%s)(?:,%s=%s)*,?)?\})? (\S+)(?: (-?\d+))?$" % (NAME, LABEL, VALUE, LABEL, VALUE))
PAIR = re.compile(r"(%s)=(%s)" % (LABEL, VALUE))
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def unescape(v):
    out, i = [], 1
    while i < len(v) - 1:
        if v[i] == "\\":
            out.append({"\\": "\\", '"': '"', "n": "\n"}[v[i + 1]])
            i += 2
        else:
            out.append(v[i])
            i += 1
    return "".join(out)


def fail(n, line, why):
    print("prom_check: line %d: %s: %r" % (n, why, line), file=sys.stderr)
    sys.exit(1)


def main():
    path = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else "cudoctor_"
    data = open(path, "rb").read()
    if data and not data.endswith(b"\n"):
        fail(0, "", "the last line has no newline")
    text = data.decode("utf-8")
    helps, types, done, series, current = set(), {}, set(), set(), None
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not re.fullmatch(NAME, name):
                    fail(n, line, "bad metric name")
                if name in done or (current and current != name and name in types):
                    fail(n, line, "family given again after other families")
                if parts[1] == "HELP":
                    if name in helps:
                        fail(n, line, "second HELP")
                    if len(parts) == 4 and re.search(r"\\[^\\n]", parts[3].replace("\\\\", "")):
                        fail(n, line, "bad escape in HELP")
                    helps.add(name)
                else:
                    if name in types:
                        fail(n, line, "second TYPE")
                    if len(parts) != 4 or parts[3] not in TYPES:
                        fail(n, line, "bad TYPE")
                    if name in {s.split("{")[0] for s in series}:
                        fail(n, line, "TYPE after the family's samples")
                    types[name] = parts[3]
                if current and current != name:
                    done.add(current)
                current = name
            continue
        if not line.strip():
            fail(n, line, "blank line")
        m = SAMPLE.match(line)
        if not m:
            fail(n, line, "not a sample")
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        if name in done:
            fail(n, line, "sample away from its family")
        if current and current != name:
            done.add(current)
        current = name
        if value not in ("NaN", "+Inf", "-Inf"):
            try:
                float(value)
            except ValueError:
                fail(n, line, "bad value")
        pairs = PAIR.findall(labels)
        names = [k for k, _ in pairs]
        if len(set(names)) != len(names):
            fail(n, line, "label given twice")
        if not name.startswith(prefix) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            fail(n, line, "not a %s snake_case name" % prefix)
        if types.get(name) == "counter" and not name.endswith("_total"):
            fail(n, line, "a counter's name must end in _total")
        if name not in types:
            fail(n, line, "sample without TYPE")
        key = name + ("{" + ",".join(sorted("%s=%s" % (k, json.dumps(unescape(v))) for k, v in pairs)) + "}" if pairs else "")
        if key in series:
            fail(n, line, "series repeated")
        series.add(key)
        print(key, value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
