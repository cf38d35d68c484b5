#!/usr/bin/env python3
"""Writes docs/cudoctor.1 from the built binary's own help texts, so the man page says what
the code does. Usage: tools/gen_man.py build/cudoctor > docs/cudoctor.1
tests/unit/test_docs.c checks that every command's --help text is in the page."""
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.argv[1], *args], capture_output=True, text=True).stdout


def roff(text):
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


top = run("--help")
version = run("--version").split()[-1]
commands = []
in_cmds = False
for line in top.split("\n"):
    if line.startswith("commands:"):
        in_cmds = True
        continue
    if in_cmds:
        if not line.strip():
            break
        name, summary = line.split(None, 1)
        commands.append((name, summary))

print(f'.TH CUDOCTOR 1 "" "cudoctor {version}" "User Commands"')
print(".SH NAME\ncudoctor \\- check the CUDA stack on this machine and explain what it finds")
print(".SH SYNOPSIS\n.B cudoctor\n[\\fIGLOBAL OPTIONS\\fR] [\\fICOMMAND\\fR [\\fIARGS\\fR]]")
print(".SH DESCRIPTION")
print("cudoctor answers, with evidence, whether CUDA programs will run on this machine and why not:"
      " the driver, GPUs, toolkits, CUDA runtimes and frameworks checked against each other,"
      " the kernel images inside binaries, the meaning of pasted CUDA errors, GPU memory,"
      " and experiments that verify the CUDA programming model on the GPU."
      " It needs only libc and, for GPU work, the NVIDIA driver, which it loads at run time.")
print(".PP\nThe full help text of the program:\n.PP\n.nf")
print(roff(top))
print(".fi")
print(".SH COMMANDS")
for name, summary in commands:
    print(f".SS {name}\n{roff(summary)}\n.PP\n.nf")
    print(roff(run(name, "--help")))
    print(".fi")
print(""".SH EXIT STATUS
.TP
.B 0
no finding of severity error
.TP
.B 1
at least one finding of severity error
.TP
.B 2
usage error (the message names what was wrong)
.TP
.B 3
cudoctor itself failed (I/O error, out of memory; for arch: every input failed)
.SH ENVIRONMENT
.TP
.B CUDOCTOR_LIBCUDA, CUDOCTOR_LIBNVML
load this file instead of searching for libcuda.so.1 / libnvidia-ml.so.1
.TP
.B LD_LIBRARY_PATH
applies to the search for the driver libraries, as it does for the CUDA runtime
.TP
.B CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER
applied and validated as the CUDA runtime applies them
.TP
.B CUDA_FORCE_PTX_JIT, CUDA_DISABLE_PTX_JIT
honoured by arch's verdicts as the driver honours them
.TP
.B NO_COLOR
turns colour off when --color=auto
.SH FILES
The knowledge tables (kb/*.tsv in the source tree) and the lab kernels are built into the binary.
.SH SEE ALSO
.BR nvidia-smi (1),
.BR cuobjdump (1),
.BR compute-sanitizer (1).
The project's docs/ folder: findings.md (every finding id), json.md (the JSON contract),
arch.md, kb.md, mem.md, lab.md.""")
