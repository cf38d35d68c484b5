/* Causes read from what else a report shows: the CDI spec against its engine and its driver,
 * PCIe ACS behind a P2P hang, an install path a loader cannot take, the Linux driver inside
 * WSL 2. Each from a real report's lines with its thread beside it, and the texts that must not
 * give them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "explain/explain.h"
#include "rules/oom.h"
#include "util/err.h"

struct want {
	const char *url, *text, *finding; /* finding NULL: no finding at all */
};

static const struct want cases[] = {
	/* ComfyUI starts PyTorch on cudaMallocAsync; a node's 801 there is the allocator's */
	{ "https://github.com/Comfy-Org/ComfyUI/issues/1150",
	  "Error occurred when executing CLIPTextEncode:\n\nCUDA error: operation not supported\n"
	  "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
	  "cuda-malloc-async-unsupported" },
	/* rocBLAS ships no Tensile library for the GPU's gfx target (HIP SDK 6.2 on Windows, an RX 9070 XT) */
	{ "https://github.com/githubcto/FramePack-ZLUDA/issues/4",
	  "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\/rocblas/library/TensileLibrary.dat: "
	  "No such file or directory for GPU arch : gfx1201\n"
	  "rocBLAS error: Could not initialize Tensile host:\n"
	  "regex_error(error_backref): The expression contained an invalid back reference.\n",
	  "rocm-gfx-target-missing" },
	/* the same library's file where it could not be read at all, for no arch: not a target missing */
	{ "https://github.com/ROCm/rocBLAS/issues/1339",
	  "rocBLAS error: Cannot read /opt/rocm-5.4.0/lib/rocblas/library/TensileLibrary.dat: Illegal seek\n"
	  "Aborted (core dumped)\n",
	  NULL },
	/* a spec of toolkit 1.19.1 read by Podman 4.9.3's older CDI library */
	{ "https://github.com/NVIDIA/nvidia-container-toolkit/issues/1860",
	  "Run `podman --debug run --rm -ti --device=nvidia.com/gpu=gpu0 ubuntu nvidia-smi -L`\n"
	  "The following error was triggered when refreshing the CDI registry: failed to load CDI Spec failed to parse "
	  "CDI Spec \"/etc/cdi/nvidia.yaml\": failed to unmarshal CDI Spec: error unmarshaling JSON: while decoding "
	  "JSON: json: unknown field \"additionalGids\"\n",
	  "cdi-spec-version-mismatch" },
	{ "https://github.com/NVIDIA/nvidia-container-toolkit/issues/38",
	  "DEBU[0000] The following errors were triggered when creating the CDI registry: map[/etc/cdi/nvidia.yaml:"
	  "[failed to load CDI Spec: failed to parse CDI Spec \"/etc/cdi/nvidia.yaml\": failed to unmarshal CDI Spec: "
	  "error unmarshaling JSON: while decoding JSON: json: unknown field \"hostPath\"]]\n",
	  "cdi-spec-version-mismatch" },
	/* a driver update left the spec naming the old version's files */
	{ "https://github.com/Igalia/webkit-container-sdk/issues/23",
	  "Error: unable to start container \"ecdb2132becbc09015d0bb7d14299693a75a462be160a2a4fc7610d60e0d3f2a\": "
	  "crun: error stat'ing file /lib/x86_64-linux-gnu/libEGL_nvidia.so.535.161.07: No such file or directory: "
	  "OCI runtime attempted to invoke a command that was not found\n",
	  "cdi-spec-stale" },
	/* the same report in words only: Podman, and the host's driver upgraded */
	{ "https://github.com/Igalia/webkit-container-sdk/issues/23",
	  "After upgrading the nvidia driver on the host system, the container failed to restart, leading to "
	  "`wkdev-enter` getting stuck. When starting manually with `podman start wkdev`, `podman` failed\n",
	  "cdi-spec-stale" },
	/* an NCCL hang between two GPUs under bridges with ACS on */
	{ "https://github.com/NVIDIA/nccl/issues/606",
	  "NCCL test hangs between GPU2 and GPU3 all the time\n$ sudo lspci -vvv | grep ACSCtl\n"
	  "                ACSCtl: SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n",
	  "pcie-acs-p2p-blocked" },
	/* simpleP2P's peer copies return garbage */
	{ "https://github.com/aikitoria/open-gpu-kernel-modules/issues/8",
	  "Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...\n"
	  "Copy data back to host from GPU0 and verify results...\n"
	  "Verification error @ element 0: val = nan, ref = 0.000000\n"
	  "Verification error @ element 1: val = nan, ref = 4.000000\n",
	  "pcie-acs-p2p-blocked/verify-failed" },
	/* cuDNN's sub-library is there, under a folder named [Ai] */
	{ "https://github.com/vladmandic/sdnext/issues/1756",
	  "Using VENV: C:\\[Ai]\\VD\\venv\n21:15:23-203219 INFO     Python 3.10.9 on Windows\n"
	  "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n",
	  "install-path-unloadable" },
	/* the same message from a plain path stays a missing library */
	{ "https://github.com/Gourieff/comfyui-reactor-node/issues/396",
	  "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n\n"
	  "F:\\COMFY>pause\nPress any key to continue . . .\n",
	  "library-missing" },
	/* WSL 2 named, "blocked", no Linux driver in sight (Windows Server, a data-centre GPU):
	 * neither the Hyper-V guest's cause nor WSL's libraries */
	{ "https://github.com/microsoft/WSL/issues/12859",
	  "### Kernel Version\n\n5.15.167.4-microsoft-standard-WSL2\n\n"
	  "Failed to initialize NVML: GPU access blocked by the operating system\n",
	  NULL },
	/* "unresolvable" with no sign that the spec is there: the toolkit's CDI set-up */
	{ "https://github.com/NixOS/nixpkgs/issues/417312",
	  "podman run --rm --device nvidia.com/gpu=all --security-opt=label=disable ubuntu nvidia-smi -L\n"
	  "# Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n",
	  "container-toolkit-missing" },
	/* MSVC stops at host_config.h's check in its own words ("#error:"), and nvcc finds no
	 * Visual Studio it supports; a build log may break the line inside the message */
	{ "https://github.com/gprMax/gprMax/issues/312",
	  "[stderr: b\"tmpjn5i8cgy.cu\\r\\nC:\\\\Program Files\\\\NVIDIA GPU Computing "
	  "Toolkit\\\\CUDA\\\\v11.2\\\\include\\\\crt/host_config.h(160): fatal error C1189: #error:  -- unsupported "
	  "Microsoft Visual Studio version! Only the versions between 2017 and 2019 (inclusive) are supported! The "
	  "nvcc flag '-allow-unsupported-compiler' can be used to override this version check\n",
	  "host-compiler-unsupported" },
	{ "https://github.com/fireice-uk/xmr-stak/issues/784",
	  "  c:\\program files\\nvidia gpu computing toolkit\\cuda\\v9.1\\include\\crt/host_config.h(135): fatal "
	  "error C1189: #error:  -\n- unsupported Microsoft Visual Studio version! Only the versions 2012, 2013, 2015 "
	  "and 2017 are supported! [C:\\Users\\Agu\n",
	  "host-compiler-unsupported" },
	{ "https://github.com/vlfeat/matconvnet/issues/417",
	  "nvcc fatal   : nvcc cannot find a supported version of Microsoft Visual Studio. Only the versions 2010, "
	  "2012, and 2013 are supported\n",
	  "host-compiler-unsupported" },
	/* WSL 2's GPU device with no adapter behind it: a machine without an NVIDIA GPU */
	{ "https://github.com/NVIDIA/nvidia-docker/issues/1786",
	  "Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime "
	  "create failed: runc create failed: unable to start container process: error during container init: error "
	  "running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as "
	  "'legacy'\nnvidia-container-cli: initialization error: WSL environment detected but no adapters were found: "
	  "unknown\n",
	  "no-nvidia-gpu" },
	/* crun's own words for a spec naming the driver's files of before the update */
	{ "https://github.com/NVIDIA/nvidia-container-toolkit/issues/450",
	  "Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime "
	  "attempted to invoke a command that was not found\n",
	  "cdi-spec-stale" },
	{ "https://github.com/containers/ramalama/issues/1900",
	  "ramalama run llama3.1\nError: crun: cannot stat `/usr/lib64/libEGL_nvidia.so.575.64.03`: No such file or "
	  "directory: OCI runtime attempted to invoke a command that was not found\n",
	  "cdi-spec-stale" },
	/* Docker Desktop on Linux: the CLI's context is its VM, which has no driver */
	{ "https://github.com/NVIDIA/nvidia-docker/issues/1647",
	  "I was seeing the same behavior (could run `nvidia-smi` in containers with `sudo` but not without, with the "
	  "same `load library failed: libnvidia-ml.so.1` error)\nImportantly, I had installed Docker Desktop (on "
	  "Ubuntu 22.04), which set the docker CLI's current context to use "
	  "`unix:///home/$USER/.docker/desktop/docker.sock` as the docker endpoint:\n        \"Name\": "
	  "\"desktop-linux\",\n",
	  "container-engine-sandboxed" },
	/* the same hook error with no sign of a second engine: the host's driver libraries */
	{ "https://github.com/AbdBarho/stable-diffusion-webui-docker/issues/640",
	  "Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: "
	  "unable to start container process: error during container init: error running hook #0: error running hook: "
	  "exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization "
	  "error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: "
	  "unknown\n",
	  "no-driver" },
	/* Ollama's check short of memory that is page cache: the host has it, the check miscounts */
	{ "https://github.com/ollama/ollama/pull/15961",
	  "Because memory.current counts the cgroup's reclaimable page cache against \"used\", this clobbers the "
	  "MemAvailable value already read from /proc/meminfo and produces a small, MemFree-equivalent figure once "
	  "mmap'd model blobs have aged into pagecache. Subsequent model loads then fail with \"model requires more "
	  "system memory than is available\" even though tens of GiB are freely reclaimable.\n",
	  NULL },
	/* the same check with nothing said of the cache: the host's memory is short */
	{ "https://github.com/ollama/ollama/issues/12692",
	  "level=WARN source=server.go:540 msg=\"model request too large for system\" requested=\"5.5 GiB\" "
	  "available=\"3.4 GiB\" total=\"6.0 GiB\" free=\"3.4 GiB\" swap=\"0 B\"\nlevel=INFO source=sched.go:450 "
	  "msg=\"Load failed\" model=/usr/share/ollama/.ollama/models/blobs/sha256-2e81 error=\"model requires more "
	  "system memory (5.5 GiB) than is available (3.4 GiB)\"\n",
	  "host-memory-insufficient" },
	/* NVRTC cannot compile the program's kernel: an include of its own is misspelled */
	{ "https://github.com/CEED/libCEED/pull/1972",
	  "MFEM abort: "
	  "/tmp/ubuntu/spack-stage/spack-stage-libceed-develop/spack-src/backends/cuda/ceed-cuda-compile.cpp:216 in "
	  "CeedCompileCore_Cuda(): NVRTC_ERROR_COMPILATION\ndefault_program(6): catastrophic error: cannot open "
	  "source file \"ceed/jit-source/magma/magma-basis-weight-nontensor.h.h\"\n  #include "
	  "<ceed/jit-source/magma/magma-basis-weight-nontensor.h.h>\n",
	  NULL },
	/* the same failure for a header of CUDA itself: the toolkit's headers are not found */
	{ "https://github.com/mlc-ai/xgrammar/issues/99",
	  "sourceCode.cu(1): catastrophic error: cannot open source file \"cuda_fp16.h\"\n  #include "
	  "<cuda_fp16.h>\n\n1 catastrophic error detected in the compilation of \"sourceCode.cu\".\nCompilation "
	  "terminated.\n\nCUDA error code=6(b'NVRTC_ERROR_COMPILATION')\n",
	  "cuda-error" },
	/* a CUDA build's own module that Windows cannot load: a CUDA DLL it imports is not found */
	{ "https://github.com/davisking/dlib/issues/1094",
	  "Compiler: msvc 14\nOS: Windows 10     64bit\n\n     After stating \"using cuda\" and compiled by using "
	  "\"python setup.py --yes DLIB_USE_CUDA\" successfully and then executing \"import dlib\" in the python "
	  "environment, the error message stated,\"Import Error: DLL failed. The specified module could not be "
	  "found.\"\n",
	  "library-missing" },
	{ "https://github.com/unlimblue/KNN_CUDA/issues/24",
	  "I encountered an error when installing KNN_CUDA on Windows, with the message:\nImportError: DLL load "
	  "failed while importing knn: The specified module could not be found.\n",
	  "library-missing" },
	/* a Volta GPU and CUDA 13 told in prose, and that the GPU cannot be used: no SASS for it */
	{ "https://github.com/JuliaGPU/CUDA.jl/pull/3132",
	  "For now NVIDIA has placed Volta in CUDA 13.0's \"Deprecated Architectures\" section (and not its "
	  "\"Removed\" section) but CUDA.jl currently caps `v\"7.0\"` and `v\"7.2\"` at CUDA 12.9. So NVIDIA "
	  "V100 GPUs cannot be used anymore.\n",
	  "no-kernel-image" },
	/* the same facts with nothing that failed: a build change, no cause */
	{ "https://github.com/NVIDIA/cuDecomp/pull/97",
	  "CUDA 13.0 dropped support for Volta (SM70), but not Turing (SM75). When dropping SM70 support for CUDA "
	  "13.0 builds, this had the side-effect of also dropping implicit support for SM75. This PR adds SM75 "
	  "explicitly to the default CUDA 13.0 builds.\n",
	  NULL },
	/* cuInit finds no GPU under WSL 2: a libcuda other than /usr/lib/wsl/lib's was loaded */
	{ "https://github.com/NVIDIA/cuml/issues/5624",
	  "[BUG] Windows 11 WSL2 CUDA 12.2 - Call to cuInit results in CUDA_ERROR_NO_DEVICE:\n"
	  "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in "
	  "CUDA_ERROR_NO_DEVICE (100)\n",
	  "wsl-libcuda" },
	/* WSL 2 blocked, the host's nvidia-smi showing its GPU in WDDM: not the TCC cause */
	{ "https://github.com/microsoft/WSL/issues/10289",
	  "### Kernel Version\n\n6.1.38-microsoft-standard\n\nOn Windows 11 host os it works :\n# nvidia-smi\n| "
	  "NVIDIA-SMI 536.40                 Driver Version: 536.40       CUDA Version: 12.2     |\n| GPU  Name       "
	  "              TCC/WDDM  | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n|   0  NVIDIA GeForce GTX 1060 "
	  "3GB  WDDM  | 00000000:01:00.0  On |                  N/A |\nFailed to initialize NVML: GPU access blocked "
	  "by the operating system\n",
	  NULL },
};

static void each_from_its_report(void **state)
{
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct explain_result r;

		assert_int_equal(explain_text(cases[i].text, strlen(cases[i].text), &r, err), CD_OK);
		explain_result_classify_oom(&r, oom_finding_of);
		if (!cases[i].finding) {
			if (r.n)
				fail_msg("%s: want nothing, got %s", cases[i].url, r.m[0].finding);
		} else if (r.n != 1 || strcmp(r.m[0].finding, cases[i].finding) != 0) {
			fail_msg("%s: want only %s, got %zu findings, first %s", cases[i].url, cases[i].finding, r.n,
				 r.n ? r.m[0].finding : "none");
		}
		explain_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_from_its_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
