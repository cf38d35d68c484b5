#!/usr/bin/env python3
"""Writes docs/cudoctor.1 from the built binary's own command and option tables (the same
tables that parse the command line, print --help and drive completion), so the man page
says what the code does. Usage: tools/gen_man.py build/cudoctor > docs/cudoctor.1
tests/unit/test_docs.c checks that the page is current and fits 80 columns."""
import json
import re
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.argv[1], *args], capture_output=True, text=True, check=True).stdout


def esc(text):
    """Escapes text for roff: backslashes, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + l if l.startswith((".", "'")) else l for l in text.split("\n"))


def code(text):
    """`spans` of the help texts become bold, as man pages show commands."""
    return re.sub(r"`([^`]+)`", lambda m: "\\fB" + m.group(1) + "\\fR", esc(text))


def prose(text):
    """Help text: paragraphs; a line "  TERM  description" (two spaces around) is a tagged
    entry, and a deeper-indented line continues the entry before it."""
    out = []
    for para in text.strip("\n").split("\n\n"):
        out.append(".PP")
        in_entry = False
        for line in para.split("\n"):
            m = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
            if m and not line.startswith("    "):
                out += [".TP", ".B " + esc(m.group(1)), code(m.group(2))]
                in_entry = True
            elif line.startswith("    ") and in_entry:
                out.append(code(line.strip()))
            else:
                if in_entry:
                    out.append(".PP")
                    in_entry = False
                out.append(code(line.strip()))
    return "\n".join(out)


def synopsis(usage, prefix=""):
    """Each synopsis line: the command in bold, its arguments filled (man wraps them)."""
    out = []
    for line in usage.split("\n"):
        line = (prefix + line.strip()) if not line.startswith(" ") else line.strip()
        if line.startswith("cudoctor"):
            m = re.match(r"^(cudoctor(?: \[GLOBAL OPTIONS\])?(?: [a-z]+){0,2}?)((?: [^a-z].*)?)$", line)
            head, rest = (m.group(1), m.group(2)) if m else (line, "")
            out.append(".B %s\n%s" % (esc(head), esc(rest.strip())))
        elif out:
            out[-1] += "\n" + esc(line)
    return ".PP\n" + "\n.br\n".join(out)


def options(opts):
    out = []
    for o in opts:
        names = []
        if o.get("short"):
            names.append("\\fB\\-%s\\fR" % o["short"])
        if o.get("long"):
            n = "\\fB\\-\\-%s\\fR" % esc(o["long"])
            if o["arg"] == "required":
                n += " \\fI%s\\fR" % esc(o["metavar"] or "VALUE")
            elif o["arg"] == "optional":
                n += "[=\\fI%s\\fR]" % esc(o["metavar"] or "VALUE")
            names.append(n)
        elif o["arg"] == "required":
            names[-1] += " \\fI%s\\fR" % esc(o["metavar"] or "VALUE")
        out += [".TP", ", ".join(names), code(o["help"])]
    return "\n".join(out)


def exit_codes(top_help):
    block = top_help.split("exit status:\n", 1)[1]
    out = []
    for line in block.split("\n"):
        m = re.match(r"^\s+(\d+)\s+(.*)$", line)
        if m:
            out += [".TP", ".B " + m.group(1), esc(m.group(2))]
    return "\n".join(out)


tables = json.loads(run("completion", "json"))
top = run("--help")
version = run("--version").split()[1]

print(f'.TH CUDOCTOR 1 "" "cudoctor {version}" "User Commands"')
print(".nh\n.ad l")
print(".SH NAME\ncudoctor \\- check the CUDA stack on this machine and explain what it finds")
print(".SH SYNOPSIS\n.B cudoctor\n[\\fIGLOBAL OPTIONS\\fR] [\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]]")
print(".br\n.B cudoctor help\n\\fICOMMAND\\fR")
print(".SH DESCRIPTION")
print("cudoctor answers, with evidence, whether CUDA programs will run on this machine and why not:"
      " the driver, GPUs, toolkits, CUDA runtimes and frameworks checked against each other,"
      " the kernel images inside binaries, the meaning of pasted CUDA errors, GPU memory,"
      " and experiments that verify the CUDA programming model on the GPU."
      " It needs only libc and, for GPU work, the NVIDIA driver, which it loads at run time.")
print(".PP\nOptions follow the GNU conventions: they may stand before or after the arguments,"
      " long options take their value as \\fB\\-\\-opt=value\\fR or \\fB\\-\\-opt value\\fR and may be"
      " abbreviated while unambiguous, short options bundle (\\fB\\-rg sm_90\\fR), and"
      " \\fB\\-\\-\\fR ends the options. Global options go anywhere on the line.")
print(".SH GLOBAL OPTIONS")
print(options(tables["global_options"]))
print(".SH COMMANDS")
for c in tables["commands"]:
    print(f".SS {c['name']}\n{code(c['summary'])}")
    if c["own_help"]:
        # a command that still writes its own help text: shown as its paragraphs
        text = run(c["name"], "--help")
        print(prose(re.sub(r"^usage: ", "", text)))
        continue
    print(synopsis(c["usage"]))
    print(prose(c["help"]))
    for s in c["subcommands"]:
        print(f".TP\n.B {c['name']} {s['name']}\n{code(s['summary'])}")
    if c["options"]:
        print(".PP\nOptions:\n.RS")
        print(options(c["options"]))
        print(".RE")
    for s in c["subcommands"]:
        print(f".PP\n\\fB{c['name']} {s['name']}\\fR:")
        print(synopsis(s["usage"], f"cudoctor {c['name']} "))
        if s["options"]:
            print(".RS")
            print(options(s["options"]))
            print(".RE")
    if c.get("notes"):
        print(prose(c["notes"]))
print(".SH EXIT STATUS")
print(exit_codes(top))
print(""".SH ENVIRONMENT
.TP
.B CUDOCTOR_LIBCUDA, CUDOCTOR_LIBNVML
load this file instead of searching for libcuda.so.1 / libnvidia\\-ml.so.1
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
.B COLUMNS
the width text is wrapped to (else the terminal's, else 80)
.TP
.B NO_COLOR
turns colour off when \\-\\-color=auto
.TP
.B CUDOCTOR_HOST_ROOT
the directory every host file is read under instead of / (/proc, /sys, /dev, /etc and the fixed
install places such as /usr/local): a copy of another machine's, or a host laid out for a test
.TP
.B CUDOCTOR_NODE
the node name in every report's header (else the host name), for fleets of reports
.TP
.B SOURCE_DATE_EPOCH
the date in the report's header, in seconds since 1970 (else now)
.TP
.B CUDOCTOR_PROGRESS_AFTER
seconds of work before a progress line appears on a terminal's stderr (else 1)
.TP
.B CUDOCTOR_PYTHON_PREFIX
the Python environment cudoctor was started from (the wheel's launcher sets it to sys.prefix):
doctor and arch \\-\\-python judge it before VIRTUAL_ENV, CONDA_PREFIX and python3 on PATH, unless
its site\\-packages hold cudoctor alone (the environment pipx or uvx made for it)
.TP
.B CUDOCTOR_HELPER_TIMEOUT
seconds each helper program (nvcc \\-\\-version, python3 for arch \\-\\-python) may take before it is
stopped with its process group and named in a helper\\-timeout finding (else 5)
.SH FILES
The knowledge tables (kb/*.tsv in the source tree) and the lab kernels are built into the
binary; cudoctor reads no configuration file.
.SH EXAMPLES
.TP
.B cudoctor
check the whole stack and print one verdict
.TP
.B cudoctor \\-\\-markdown doctor
the same report, ready to paste into an issue
.TP
.B cudoctor arch \\-r /opt/venv/lib \\-\\-gpu sm_90
which libraries can run on a Hopper GPU
.TP
.B python train.py 2>&1 | cudoctor explain
what the CUDA error in a log means, and its fix
.TP
.B nvcc $(cudoctor gencode \\-\\-gpu "RTX 4090" \\-\\-format nvcc) kernel.cu
build for a named GPU
.TP
.B cudoctor mem estimate model.gguf \\-\\-gpu H100 \\-\\-gpu H200
whether a model fits each GPU
.TP
.B source <(cudoctor completion bash)
load the completion into bash
.SH SEE ALSO
.BR nvidia\\-smi (1),
.BR cuobjdump (1),
.BR compute\\-sanitizer (1).
The project's docs/ folder: findings.md (every finding id), json.md (the JSON contract),
arch.md, kb.md, mem.md, lab.md.""")
