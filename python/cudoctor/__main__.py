"""Runs the cudoctor binary this package carries, in place of Python.

CUDOCTOR_PYTHON_PREFIX tells the binary which environment it was started from (sys.prefix):
doctor and `arch --python` look at that environment's site-packages first.
"""
import os
import subprocess
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["CUDOCTOR_PYTHON_PREFIX"] = sys.prefix
    try:
        if os.name == "nt":
            # Windows has no exec: os.execv starts the program and ends Python at once, so the
            # console would take input while it runs and its exit status would be lost
            exe = os.path.join(here, "bin", "cudoctor.exe")
            try:
                return subprocess.call([exe] + sys.argv[1:])
            except KeyboardInterrupt:  # the console's Ctrl+C reached the binary too
                return 130
        exe = os.path.join(here, "bin", "cudoctor")
        os.execv(exe, [exe] + sys.argv[1:])
    except OSError as e:
        # exit 3 is cudoctor's "could not run": what the binary itself would say
        sys.stderr.write("cudoctor: cannot run %s: %s\n" % (exe, e.strerror or e))
        return 3


if __name__ == "__main__":
    sys.exit(main())
