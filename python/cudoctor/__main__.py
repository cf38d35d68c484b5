"""Runs the cudoctor binary this package carries, in place of Python (os.execv).

CUDOCTOR_PYTHON_PREFIX tells the binary which environment it was started from (sys.prefix):
doctor and `arch --python` look at that environment's site-packages first.
"""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "cudoctor")
    os.environ["CUDOCTOR_PYTHON_PREFIX"] = sys.prefix
    try:
        os.execv(exe, [exe] + sys.argv[1:])
    except OSError as e:
        # exit 3 is cudoctor's "could not run": what the binary itself would say
        sys.stderr.write("cudoctor: cannot run %s: %s\n" % (exe, e.strerror or e))
        return 3


if __name__ == "__main__":
    sys.exit(main())
