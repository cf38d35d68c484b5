"""cudoctor's launcher: the package carries the cudoctor binary (bin/cudoctor) and runs it.

`cudoctor` on the environment's PATH and `python -m cudoctor` both replace the Python process
with the binary (__main__.main), so its arguments, output and exit status are the binary's own.
"""
