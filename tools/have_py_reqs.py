"""Exit 0 when every package named in a requirements file is importable-installed."""
import sys
from importlib import metadata

ok = True
for line in open(sys.argv[1]):
    name = line.split("#")[0].strip().split("=")[0].split(">")[0].split("<")[0].strip()
    if not name:
        continue
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        ok = False
sys.exit(0 if ok else 1)
