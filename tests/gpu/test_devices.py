#!/usr/bin/env python3
"""GPU test for `cudoctor devices`: runs compare_devices.py against the binary given as $1."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(subprocess.call([sys.executable, os.path.join(here, "compare_devices.py")] + sys.argv[1:2]))
