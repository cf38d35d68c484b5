#!/usr/bin/env python3
"""Runs a program with one stream on a pseudo-terminal, as a person at a terminal sees it.

usage: pty_run.py out|err COLS PROGRAM ARGS...
  out: the program's stdout is the terminal (stderr goes to this script's stderr)
  err: its stderr is the terminal (stdout is discarded)
The terminal is COLS columns wide (0: leave the size alone). What the program wrote to the
terminal is copied to this script's stdout with the terminal's \\r\\n turned back into \\n;
the exit status is the program's."""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios


def main():
    which, cols, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    streams = {"stdin": subprocess.DEVNULL}
    if which == "out":
        streams.update(stdout=slave, stderr=sys.stderr)
    else:
        streams.update(stdout=subprocess.DEVNULL, stderr=slave)
    proc = subprocess.Popen(argv, **streams)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    rc = proc.wait()
    sys.stdout.buffer.write(b"".join(chunks).replace(b"\r\n", b"\n"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
