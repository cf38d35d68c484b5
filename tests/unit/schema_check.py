#!/usr/bin/env python3
"""Validates cudoctor --json reports against docs/cudoctor.schema.json (JSON Schema draft
2020-12, with the jsonschema package of tests/requirements.txt).

usage: schema_check.py SCHEMA REPORT.json...
Prints "ok COMMAND FILE" per valid report; for an invalid one, every error with its JSON
path, and exits 1."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print("%s: %s: %s" % (path, where, e.message[:300]), file=sys.stderr)
        if errors:
            bad += 1
        else:
            print("ok", doc.get("command"), path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
