#!/usr/bin/env python3
"""test_explain_live.py CUDOCTOR: real CUDA failures made on this GPU (small programs in
tests/gpu/explain_live/, built here with nvcc), each fed to `cudoctor explain --json --binary`
with the program's own environment; checks the finding and the live evidence explain found on
this machine. One line per case, "explain live: N passed, N failed"; exit 0 when all pass.
NVCC=path overrides the nvcc found on PATH or in /usr/local/cuda; EXPLAIN_LIVE_SAVE=DIR keeps
every text given to explain in DIR (CASE_N.txt), for the CPU corpus in tests/explain."""
import json
import re, os, shutil, subprocess, sys, tempfile, time

BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/cudoctor")
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "explain_live")
NVCC = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
TMP = tempfile.mkdtemp(prefix="cudoctor_explain_live_")
results = []


def gpu_cc():
    out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", "-i", "0"],
                         capture_output=True, text=True, timeout=30).stdout.strip()
    major, minor = out.split(".")
    return int(major) * 10 + int(minor)


def build(name, src, *flags):
    out = os.path.join(TMP, name)
    r = subprocess.run([NVCC, "-I", SRC, *flags, "-o", out, os.path.join(SRC, src)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("nvcc failed for %s: %s" % (name, r.stderr.strip()[-300:]))
    return out


def run(prog, env=None, args=()):
    e = dict(os.environ, **(env or {}))
    r = subprocess.run([prog, *args], capture_output=True, text=True, env=e, timeout=60)
    return r.returncode, r.stdout + r.stderr


SAVE = os.environ.get("EXPLAIN_LIVE_SAVE")  # a directory: every text given to explain is kept there
SAVED = {}
CASE = ""


def explain(text, env=None, *opts):
    e = dict(os.environ, **(env or {}))
    if SAVE:
        os.makedirs(SAVE, exist_ok=True)
        key = re.sub(r"[^a-z0-9]+", "_", CASE.lower()).strip("_")
        SAVED[key] = SAVED.get(key, 0) + 1
        with open(os.path.join(SAVE, "%s_%d.txt" % (key, SAVED[key])), "w") as f:
            f.write(text)
    r = subprocess.run([BIN, "explain", "--json", *opts], input=text, capture_output=True, text=True, env=e,
                       timeout=60)
    if r.returncode not in (0, 1):
        raise RuntimeError("explain exited %d: %s" % (r.returncode, r.stderr.strip()))
    return json.loads(r.stdout)


def match_of(doc, ids):
    for m in doc.get("matches", []):
        if m["id"] in ids:
            return m
    return None


def checks_text(m):
    return " | ".join("%s: %s: %s" % (c["name"], c["result"], c["detail"]) for c in (m.get("checks") or []))


def case(name, fn):
    t0 = time.time()
    try:
        fn()
        results.append((name, True, ""))
        print("  %-34s ok (%.1fs)" % (name, time.time() - t0))
    except Skip as e:  # a prerequisite this machine lacks: said, not counted
        print("  %-34s skipped: %s" % (name, e))
    except Exception as e:  # a failed expectation or a tool error: report and go on
        results.append((name, False, str(e)))
        print("  %-34s FAILED: %s" % (name, e))


def expect(doc, ids, check=None, what=""):
    m = match_of(doc, ids)
    if not m:
        raise AssertionError("wanted %s, got %s (matched: %s)" % (
            "/".join(ids), [x["id"] for x in doc.get("matches", [])],
            "; ".join(x.get("matched_text") or "" for x in doc.get("matches", []))[:300]))
    if check and not check(m):
        raise AssertionError("%s: live evidence lacks %s: %s" % (m["id"], what, checks_text(m)))
    return m


def has_check(m, name, result=None, text=None):
    for c in m.get("checks") or []:
        if c["name"] == name and (result is None or c["result"] == result) and (text is None or text in c["detail"]):
            return True
    return False


if not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
    print("explain live: skipped, no GPU here (nvidia-smi -L fails)")
    sys.exit(0)
if not os.path.exists(BIN):
    print("explain live: %s does not exist; give the cudoctor binary" % BIN)
    sys.exit(2)
CC = gpu_cc()
OTHER = 80 if CC // 10 != 8 else 90  # an arch whose SASS cannot run here (another major)


def wrong_arch():
    prog = build("wrong_arch", "kernel.cu", "-gencode", "arch=compute_%d,code=sm_%d" % (OTHER, OTHER))
    rc, out = run(prog)
    if rc == 0:
        raise AssertionError("sm_%d-only program ran on CC %d" % (OTHER, CC))
    doc = explain(out, None, "--binary", prog)
    expect(doc, ["no-kernel-image"], lambda m: has_check(m, "binary", "problem"), "the binary check's problem")


def out_of_bounds():
    prog = build("oob", "oob.cu", "-arch=native")
    rc, out = run(prog)
    doc = explain(out, None, "--binary", prog)
    expect(doc, ["illegal-address"])


def too_many_registers():
    prog = build("regs", "regs.cu", "-arch=native")
    rc, out = run(prog)
    doc = explain(out, None, "--binary", prog, "--block", "1024")
    expect(doc, ["launch-out-of-resources"],
           lambda m: has_check(m, "gpus", text="registers per block") and
           any(k["name"].find("heavy") >= 0 and k["limit"] == "exceeds-registers" and 0 < k["largest_block"] < 1024
               for k in (m.get("launch") or {}).get("kernels", [])),
           "the GPU's registers per block, and the launch check naming heavy with a block that fits")


def block_2048():
    prog = build("block2048", "block2048.cu", "-arch=native")
    rc, out = run(prog)
    doc = explain(out, None, "--binary", prog, "--block", "2048")
    expect(doc, ["launch-out-of-resources"],
           lambda m: has_check(m, "gpus", text="1024 threads") and
           any(k["limit"] == "exceeds-block-limit" for k in (m.get("launch") or {}).get("kernels", [])),
           "the 1024-thread limit, and the launch check's block limit")


def block_2048_any_text():
    # CUDA 13 says invalid argument (1) for <<<1, 2048>>>, earlier releases invalid configuration (9):
    # with --block, both are the launch's
    prog = build("block2048", "block2048.cu", "-arch=native")
    rc, out = run(prog)
    doc = explain(out, None, "--block", "2048")
    m = expect(doc, ["launch-out-of-resources"], lambda m: has_check(m, "gpus", text="block dimensions up to"),
               "the GPU's block dimensions")
    if "InvalidValue" in out and not any("CUDA 13 reports" in e for e in m.get("evidence", [])):
        raise AssertionError("invalid argument at a launch, but no word of CUDA 13's reporting: %s" % m.get("evidence"))


def simple(name, src, ids, check=None, what="", env=None, opts=()):
    """build src, run it, feed its output to explain; the finding must be one of ids"""
    def fn():
        prog = build(name, src, "-arch=native")
        rc, out = run(prog, env)
        if rc == 0:
            raise AssertionError("%s exited 0; it should have failed: %s" % (name, out.strip()[-200:]))
        doc = explain(out, env, "--binary", prog, *opts)
        try:
            expect(doc, ids, check, what)
        except AssertionError as e:
            raise AssertionError("%s; the program printed: %s" % (e, out.strip()[-300:] or "nothing"))
    return fn


def freed_under_sanitizer():
    sanitizer = shutil.which("compute-sanitizer") or os.path.join(os.path.dirname(NVCC), "compute-sanitizer")
    if not os.path.exists(sanitizer):
        raise AssertionError("no compute-sanitizer next to %s" % NVCC)
    prog = build("freed", "freed.cu", "-arch=native", "-lineinfo")
    r = subprocess.run([sanitizer, "--tool", "memcheck", prog], capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    if "Invalid __global__" not in out:
        raise AssertionError("compute-sanitizer reported no invalid global access: %s" % out.strip()[-300:])
    expect(explain(out, None, "--binary", prog), ["illegal-address"])


def torch_snippet(code):
    """run a PyTorch snippet; None when this Python has no CUDA PyTorch"""
    probe = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        return None
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if r.returncode == 0:
        raise AssertionError("the PyTorch snippet did not fail")
    return r.stdout + r.stderr


def torch_case(code, ids, check=None, what=""):
    def fn():
        out = torch_snippet(code)
        if out is None:
            raise Skip("no CUDA PyTorch in %s" % sys.executable)
        expect(explain(out), ids, check, what)
    return fn


class Skip(Exception):
    pass


TORCH_INDEX = "import torch; x = torch.zeros(4, device='cuda'); i = torch.tensor([9], device='cuda'); print(x[i].sum().item())"
TORCH_OOM = "import torch; t = torch.empty(int(torch.cuda.get_device_properties(0).total_memory * 2), dtype=torch.uint8, device='cuda')"
TORCH_CUBLAS_OOM = ("import torch\n"
                    "a = torch.ones(64, 64, device='cuda')\n"
                    "hold = []\n"
                    "while True:\n"
                    "    try:\n"
                    "        hold.append(torch.empty(16 << 20, dtype=torch.uint8, device='cuda'))\n"
                    "    except RuntimeError:\n"
                    "        break\n"
                    "print(torch.matmul(a, a).sum().item())\n")


def oom():
    prog = build("oom", "oom.cu", "-arch=native")
    rc, out = run(prog, None, ["2.0"])
    doc = explain(out)
    expect(doc, ["out-of-memory", "oom-capacity"], lambda m: has_check(m, "memory", "info", "GiB used of"),
           "the GPU's memory now")


def oom_other_process():
    holder = build("hold", "hold.cu", "-arch=native")
    prog = build("oom2", "oom.cu", "-arch=native")
    h = subprocess.Popen([holder, "0.8"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if h.stdout.readline().strip() != "holding":
            raise AssertionError("the holder could not allocate 80% of the GPU")
        rc, out = run(prog, None, ["0.5"])
        if rc == 0:
            raise AssertionError("a 50% allocation succeeded while another process held 80%")
        doc = explain(out)
        expect(doc, ["out-of-memory", "oom-other-process"], lambda m: has_check(m, "memory", text="process"),
               "the other process's memory")
    finally:
        h.stdin.close()
        h.wait(timeout=30)


def bad_ordinal():
    prog = build("ordinal", "ordinal.cu", "-arch=native")
    rc, out = run(prog)
    doc = explain(out)
    expect(doc, ["invalid-device-ordinal"], lambda m: has_check(m, "gpus", text="visible"), "the visible GPUs")


def hidden_gpu():
    prog = build("count", "count.cu", "-arch=native")
    env = {"CUDA_VISIBLE_DEVICES": "99"}
    rc, out = run(prog, env)
    doc = explain(out, env)
    expect(doc, ["no-device", "visible-devices-invalid"],
           lambda m: has_check(m, "gpus", "problem", "CUDA_VISIBLE_DEVICES=99"), "CUDA_VISIBLE_DEVICES=99")


def ptx_only_jit_disabled():
    prog = build("ptx_only", "kernel.cu", "-gencode", "arch=compute_%d,code=compute_%d" % (min(CC, 90), min(CC, 90)))
    env = {"CUDA_DISABLE_PTX_JIT": "1"}
    rc, out = run(prog, env)
    if rc == 0:
        raise AssertionError("a PTX-only program ran with CUDA_DISABLE_PTX_JIT=1")
    doc = explain(out, env, "--binary", prog)
    expect(doc, ["jit-disabled", "no-kernel-image"],
           lambda m: has_check(m, "binary", "problem") or has_check(m, "env", "problem"),
           "the binary or env check's problem")


def runtime_newer_than_driver():
    # this machine's driver runs the program; --driver stands for an R535 machine
    prog = build("static_rt", "kernel.cu", "-arch=native")
    r = subprocess.run([BIN, "arch", "--gpu", "sm_%d" % CC, "--driver", "535.104", prog], capture_output=True,
                       text=True, timeout=60)
    major = int(subprocess.run([NVCC, "--version"], capture_output=True, text=True).stdout.split("release ")[1]
                .split(".")[0])
    if major >= 13:
        if r.returncode != 1 or "runtime-newer-than-driver" not in r.stdout:
            raise AssertionError("arch --driver 535.104 on a CUDA %d program: exit %d, no runtime-newer-than-driver"
                                 % (major, r.returncode))
        doc = explain("CUDA driver version is insufficient for CUDA runtime version", None, "--driver", "535.104",
                      "--gpu", "sm_%d" % CC, "--binary", prog)
        expect(doc, ["runtime-newer-than-driver"], lambda m: has_check(m, "runtime", "problem", "error 35"),
               "the runtime check's error 35")
    elif r.returncode != 0:
        raise AssertionError("arch said exit %d for a CUDA %d program on R535" % (r.returncode, major))


def smem_over_default():
    # 96 KiB of dynamic shared memory without the opt-in: the launch's own limit, named by --block
    prog = build("smem", "smem.cu", "-arch=native")
    rc, out = run(prog)
    if rc == 0:
        raise AssertionError("a launch with 96 KiB of dynamic shared memory and no opt-in ran")
    doc = explain(out, None, "--binary", prog, "--block", "256")
    expect(doc, ["launch-out-of-resources"])


# the virtual archs nvcc 13 builds PTX for, ascending
VIRTUAL = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]


def ptx_for_newer_arch():
    newer = [a for a in VIRTUAL if a > CC]
    if not newer:
        raise Skip("no virtual arch newer than CC %d" % CC)
    v = newer[0]
    prog = build("ptx_newer", "kernel.cu", "-gencode", "arch=compute_%d,code=compute_%d" % (v, v))
    rc, out = run(prog)
    if rc == 0:
        raise AssertionError("a program with PTX for compute_%d only ran on CC %d" % (v, CC))
    doc = explain(out, None, "--binary", prog)
    expect(doc, ["no-kernel-image"], lambda m: has_check(m, "binary", "problem"), "the binary check's problem")


EXT_CUDA = ("#include <c10/cuda/CUDAException.h>\n"
            "__global__ void inc(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }\n"
            "void inc_launch(torch::Tensor x) {\n"
            "  inc<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), (int)x.numel());\n"
            "  C10_CUDA_KERNEL_LAUNCH_CHECK();\n"
            "}\n")


def torch_extension(name, cuda_src, arch_list):
    """build a PyTorch extension with load_inline and call it: (exit status, output, the .so or None)"""
    build_dir = os.path.join(TMP, name)
    os.makedirs(build_dir, exist_ok=True)
    code = ("import os, torch\n"
            "from torch.utils.cpp_extension import load_inline\n"
            "m = load_inline(name=%r, cpp_sources='void inc_launch(torch::Tensor x);', cuda_sources=%r,\n"
            "                functions=['inc_launch'], build_directory=%r, verbose=True)\n"
            "x = torch.zeros(1024, device='cuda'); m.inc_launch(x); torch.cuda.synchronize(); print(x.sum().item())\n"
            % (name, cuda_src, build_dir))
    probe = subprocess.run([sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        raise Skip("no CUDA PyTorch in %s" % sys.executable)
    if not shutil.which("ninja"):
        raise Skip("no ninja on PATH: PyTorch builds extensions with it")
    env = dict(os.environ, TORCH_CUDA_ARCH_LIST=arch_list, CUDA_HOME=os.path.dirname(os.path.dirname(NVCC)))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900, env=env)
    so = os.path.join(build_dir, name + ".so")
    return r.returncode, r.stdout + r.stderr, so if os.path.exists(so) else None


def torch_extension_other_arch():
    # SASS for another major only, no PTX: the extension's kernel has no image for this GPU
    other = "%d.%d" % (OTHER // 10, OTHER % 10)
    rc, out, so = torch_extension("cudoctor_other_arch", EXT_CUDA, other)
    if rc == 0:
        raise AssertionError("an extension built for sm_%d only ran on CC %d" % (OTHER, CC))
    if so is None:
        raise AssertionError("the extension did not build: %s" % out.strip()[-300:])
    doc = explain(out, None, "--binary", so)
    expect(doc, ["no-kernel-image"], lambda m: has_check(m, "binary", "problem"), "the binary check's problem")
    if not any("TORCH_CUDA_ARCH_LIST" in f for f in match_of(doc, ["no-kernel-image"]).get("fix", [])):
        raise AssertionError("no TORCH_CUDA_ARCH_LIST fix line for a PyTorch extension")


def torch_extension_compile_error():
    # an error in the extension's own code: a build log, no CUDA failure at run time
    broken = EXT_CUDA.replace("x[i] += 1", "x[i] += undeclared_in_this_extension")
    rc, out, so = torch_extension("cudoctor_broken", broken, "%d.%d" % (CC // 10, CC % 10))
    if rc == 0 or "undeclared_in_this_extension" not in out:
        raise AssertionError("the broken extension did not fail to compile: %s" % out.strip()[-300:])
    doc = explain(out)
    errors = [m["id"] for m in doc.get("matches", []) if m.get("severity") == "error"]
    if errors:
        raise AssertionError("a compile error in the extension's code gave error findings %s" % errors)


TORCH_FRAGMENTED = ("import torch\n"
                    "T = torch.cuda.get_device_properties(0).total_memory\n"
                    "MiB = 1 << 20\n"
                    "a = torch.empty(T // 2, dtype=torch.uint8, device='cuda')\n"
                    "del a  # one cached segment of half the GPU\n"
                    "small = [torch.empty(64 * MiB, dtype=torch.uint8, device='cuda') for _ in range(T // 2 // (64 * MiB) - 1)]\n"
                    "del small[::2]  # 64 MiB holes between live blocks: the segment cannot be released\n"
                    "hold = []\n"
                    "for size in (1 << 30, 256 * MiB):\n"
                    "    while True:\n"
                    "        try:\n"
                    "            hold.append(torch.empty(size, dtype=torch.uint8, device='cuda'))\n"
                    "        except torch.OutOfMemoryError:\n"
                    "            break\n"
                    "while True:  # 128 MiB fits no hole, and the driver has less than that left\n"
                    "    hold.append(torch.empty(128 * MiB, dtype=torch.uint8, device='cuda'))\n")


t0 = time.time()
for name, fn in [("no SASS/PTX for this GPU", wrong_arch), ("out-of-bounds write", out_of_bounds),
                 ("too many registers per block", too_many_registers), ("2048 threads per block", block_2048),
                 ("out of memory", oom), ("OOM, another process holds 80%", oom_other_process),
                 ("invalid device ordinal", bad_ordinal), ("CUDA_VISIBLE_DEVICES=99", hidden_gpu),
                 ("PTX only, CUDA_DISABLE_PTX_JIT=1", ptx_only_jit_disabled),
                 ("runtime newer than the driver", runtime_newer_than_driver),
                 ("<<<1, 2048>>> under any CUDA", block_2048_any_text),
                 ("misaligned address", simple("misaligned", "misaligned.cu", ["illegal-address"])),
                 ("assert() in a kernel", simple("assert", "assert.cu", ["kernel-exception"])),
                 ("__trap() in a kernel", simple("trap", "trap.cu", ["kernel-exception"])),
                 ("elapsed time of an untimed event", simple("stream", "stream.cu", ["cuda-error"],
                  lambda m: "cudaErrorInvalidResourceHandle" in " ".join(m.get("evidence", [])), "error 400")),
                 ("peer access to itself", simple("peer", "peer.cu", ["p2p-unsupported"],
                  lambda m: has_check(m, "gpus"), "the GPUs here")),
                 ("cudaMemcpy with a wrong kind", simple("memcpy_kind", "memcpy_kind.cu", ["cuda-error"],
                  lambda m: "cudaErrorInvalidMemcpyDirection" in " ".join(m.get("evidence", [])), "error 21")),
                 ("freed memory under compute-sanitizer", freed_under_sanitizer),
                 ("sync inside a stream capture", simple("capture", "capture.cu", ["stream-capture-violation"])),
                 ("PyTorch index out of bounds", torch_case(TORCH_INDEX, ["kernel-exception"])),
                 ("PyTorch OOM", torch_case(TORCH_OOM, ["oom-capacity", "out-of-memory"],
                  lambda m: has_check(m, "memory", "info", "GiB used of"), "the GPU's memory now")),
                 ("cuBLAS with the GPU full", torch_case(TORCH_CUBLAS_OOM, ["out-of-memory", "oom-capacity",
                  "oom-fragmentation"])),
                 ("96 KiB dynamic shared memory", smem_over_default),
                 ("PTX only, for a newer arch", ptx_for_newer_arch),
                 ("PyTorch extension for another arch", torch_extension_other_arch),
                 ("PyTorch extension compile error", torch_extension_compile_error),
                 ("PyTorch allocator fragmented", torch_case(TORCH_FRAGMENTED, ["oom-fragmentation"]))]:
    CASE = name
    case(name, fn)
shutil.rmtree(TMP, ignore_errors=True)
failed = sum(1 for r in results if not r[1])
print("explain live: %d passed, %d failed (%.0fs)" % (len(results) - failed, failed, time.time() - t0))
sys.exit(1 if failed else 0)
