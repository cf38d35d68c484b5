"""cudoctor's launcher: the package carries the cudoctor binary (bin/cudoctor) and runs it.

`cudoctor` on the environment's PATH and `python -m cudoctor` both replace the Python process
with the binary (__main__.main; on Windows, which has no exec, it runs the binary and returns its
status), so its arguments, output and exit status are the binary's own.
"""
