/* The ids of the platform's own causes (kb/findings.tsv, "Platform (explain)" in
 * docs/findings.md), each from a real report's lines with its thread beside it, and the
 * messages that must not give them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "explain/explain.h"
#include "rules/checks.h"
#include "rules/oom.h"
#include "rules/premise.h"
#include "util/err.h"

struct want {
	const char *url, *text, *finding;
};

static const struct want cases[] = {
	{ "https://github.com/kohya-ss/sd-scripts/issues/1597",
	  "ERROR    Could not load torch: [WinError 126] Das angegebene Modul wurde nicht gefunden. Error loading "
	  "\"P:\\AI\\kohya_ss\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
	  "win-runtime-dll-missing" },
	{ "https://github.com/TerraLabAI/QGIS_AI-Segmentation/issues/150",
	  "[WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "
	  "\"C:\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n",
	  "win-runtime-dll-missing" },
	{ "https://github.com/AlexeyAB/darknet/issues/8551",
	  "Could not locate zlibwapi.dll. Please make sure it is in your library path!\n", "win-runtime-dll-missing" },
	{ "https://github.com/Comfy-Org/ComfyUI/issues/6831",
	  "Exception Message: cudaMallocAsync does not yet support checkPoolLiveAllocations. If you need it, please "
	  "file an issue describing your use case.\n",
	  "cuda-malloc-async-unsupported" },
	/* https://github.com/Comfy-Org/ComfyUI/issues/1845: 801 where ComfyUI runs the async allocator */
	{ "https://github.com/Comfy-Org/ComfyUI/issues/1845",
	  "  File \"C:\\ComfyUI\\comfy\\model_management.py\", line 105, in get_total_memory\n"
	  "    _, mem_total_cuda = torch.cuda.mem_get_info(dev)\nRuntimeError: CUDA error: operation not supported\n",
	  "cuda-malloc-async-unsupported" },
	{ "https://github.com/NVIDIA/nccl-tests/issues/276",
	  "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error'\n", "fabric-manager-state" },
	{ "https://github.com/marin-community/marin/issues/7018",
	  "invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'\n",
	  "nccl-socket-ifname-invalid" },
	{ "https://github.com/NVIDIA/nccl-tests/issues/206",
	  "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n",
	  "nccl-memlock-limit" },
	{ "https://github.com/ikawrakow/ik_llama.cpp/issues/1545",
	  "ggml_cuda_host_malloc: failed to allocate 118875.70 MiB of pinned memory: out of memory\n", "pinned-host-oom" },
	{ "https://github.com/abetlen/llama-cpp-python/issues/229",
	  "wsl 2 * Ubuntu-22.04\nWARNING: failed to allocate 512.00 MB of pinned memory: out of memory\n",
	  "wsl-pinned-memory-limit" },
	/* made on an H100: a pinned allocation too large for the host */
	{ "https://pytorch.org/docs/stable/notes/cuda.html#use-pinned-memory-buffers",
	  "    x = torch.empty(int(4e12), dtype=torch.uint8, pin_memory=True)\nRuntimeError: CUDA error: out of memory\n",
	  "pinned-host-oom" },
	{ "https://github.com/lshqqytiger/ZLUDA/issues/3",
	  "The code execution cannot continue because hiprtc0507.dll was not found.\n", "hip-sdk-not-on-path" },
	{ "https://github.com/microsoft/WSL/issues/13027",
	  "WSL 2: take a system with two Nvidia GPUs, one in TCC mode and the other in WDDM mode\n"
	  "Unable to determine the device handle for GPU0: 0000:C1:00.0: Unknown Error\n",
	  "wsl-tcc-mode" },
	{ "https://github.com/microsoft/WSL/issues/12097",
	  "Windows 11 -> Hyper-v -> Windows 11 guest + Gpu Partitioning -> Docker Desktop + WSL\n"
	  "Ubuntu:$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\n",
	  "hyperv-no-gpu-libs" },
	{ "https://github.com/microsoft/WSL/issues/6122",
	  "Linux version 4.4.0-20236-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) )\n"
	  "CUDA driver version is insufficient for CUDA runtime version\n",
	  "wsl1-no-gpu" },
	{ "https://github.com/NVIDIA/nvidia-docker/issues/1671",
	  "root@098b49afe624:/# nvidia-smi\n(on host):\nsystemctl daemon-reload\n(inside same running container):\n"
	  "root@098b49afe624:/# nvidia-smi\nFailed to initialize NVML: Unknown Error\n",
	  "container-device-rules-lost" },
	{ "https://github.com/intel/intel-extension-for-pytorch/issues/846",
	  "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 15.11 "
	  "GiB.\n",
	  "xpu-out-of-memory" },
	{ "https://github.com/intel/torch-xpu-ops/issues/3155",
	  "RuntimeError: Native API failed. Native API returns: 20 (UR_RESULT_ERROR_DEVICE_LOST)\n", "xpu-device-lost" },
	{ "https://github.com/Comfy-Org/ComfyUI/issues/8984",
	  "MPS backend out of memory (MPS allocated: 15.72 GiB, other allocations: 2.41 MiB, max allowed: 18.13 GiB). "
	  "Tried to allocate 5.81 GiB on private pool.\n",
	  "mps-out-of-memory" },
	{ "https://github.com/vladmandic/sdnext/issues/4357",
	  "GPU : Intel Arc A750 8GB\nAssertionError: Torch not compiled with XPU enabled\n", "non-nvidia-platform" },
	{ "https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/469",
	  "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
	  "disable this check\nWin10, Python 3.10.6, Radeon RX 580 2048SP.\n",
	  "non-nvidia-platform" },
	{ "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1930",
	  "- Device: NVIDIA Jetson Orin Nano Super\n# RuntimeError: Error named symbol not found at line 233 in file "
	  "/src/csrc/ops.cu\n",
	  "jetson-sbsa-mismatch" },
	{ "https://github.com/ggml-org/llama.cpp/pull/23732",
	  "gemma-3n loads failing on Jetson L4T 36.4.7+ with:\nNvMapMemAllocInternalTagged: 1075072515 error 12\n"
	  "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1024.00 MiB on device 0: cudaMalloc failed: out of "
	  "memory\n",
	  "jetson-nvmap-alloc-limit" },
	{ "https://github.com/pytorch/pytorch/issues/175666",
	  "ValueError: Free memory on device cuda:0 (19.77/22.05 GiB) on startup is less than desired GPU memory "
	  "utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n",
	  "vllm-startup-free-memory" },
	{ "https://github.com/modular/modular/pull/5107",
	  "For reference, here's the output of nvidia-smi on my WSL2 setup:\n"
	  "| NVIDIA-SMI 550.163.01             Driver Version: 555.85         CUDA Version: 12.5     |\n",
	  "wsl-libcuda/linux-driver" },
	{ "https://github.com/tensorflow/tensorflow/issues/60172",
	  "tf 2.12.0\nWindows 11\nprint(\"Num GPUs Available: \", len(tf.config.list_physical_devices('GPU')))\n"
	  "Num GPUs Available:  0\n",
	  "torch-cpu-only/tf-windows" },
	{ "https://github.com/NVIDIA/gpu-operator/issues/730",
	  "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "
	  "\"nvidia\" is configured\n",
	  "container-toolkit-missing" },
	{ "https://github.com/NVIDIA/nvidia-docker/issues/542",
	  "docker: Error response from daemon: Unknown runtime specified nvidia.\nSee 'docker run --help'.\n",
	  "container-toolkit-missing" },
	{ "https://github.com/pytorch/ci-infra/pull/541",
	  "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152:\nCUDA error 401 'the operation cannot be "
	  "performed in the present state'.\n",
	  "fabric-manager-state" },
	{ "https://github.com/bmaltais/kohya_ss/issues/1608",
	  "INFO     nVidia toolkit detected\nINFO     Torch 2.0.1+cpu\nWARNING  Torch reports CUDA not available\n",
	  "torch-cpu-only" },
	{ "https://github.com/nlpyang/PreSumm/issues/159",
	  "(OSX) Torch not compiled with CUDA enabled\nAssertionError: Torch not compiled with CUDA enabled\n",
	  "non-nvidia-platform" },
	{ "https://github.com/dusty-nv/jetson-containers/issues/1460",
	  "docker: Error response from daemon: unknown or invalid runtime name: nvidia\n", "container-toolkit-missing" },
};

static void each_id_from_its_report(void **state)
{
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct explain_result r;
		bool found = false;

		assert_int_equal(explain_text(cases[i].text, strlen(cases[i].text), &r, err), CD_OK);
		explain_result_classify_oom(&r, oom_finding_of);
		for (size_t k = 0; k < r.n; k++)
			found |= strcmp(r.m[k].finding, cases[i].finding) == 0;
		if (!found || r.n != 1)
			fail_msg("%s: want only %s, got %zu findings, first %s", cases[i].url, cases[i].finding, r.n,
				 r.n ? r.m[0].finding : "none");
		explain_result_free(&r);
	}
}

/* the same messages where the text does not support the platform's cause */
static void not_without_their_evidence(void **state)
{
	static const struct {
		const char *text, *finding;
	} cases2[] = {
		/* a fresh container that never had the GPU (nvidia-container-toolkit#115): NVML, not lost rules */
		{ "sudo docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi\nFailed to initialize NVML: Unknown "
		  "Error\n",
		  "nvml-unavailable" },
		/* TCC on native Windows is not WSL's problem */
		{ "C:\\> nvidia-smi\nGPU 0 in TCC mode\n", NULL },
		/* "no CUDA-capable device" while allocating pinned memory is no OOM (janhq/cortex.cpp#1470) */
		{ "ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: no CUDA-capable device is "
		  "detected\n",
		  "no-device" },
		/* named symbol not found off a Jetson is not the SBSA build */
		{ "RuntimeError: Error named symbol not found at line 233 in file /src/csrc/ops.cu\n", NULL },
		/* A1111's check on an NVIDIA GPU says nothing of the stack */
		{ "NVIDIA GeForce RTX 3060\nRuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test\n", NULL },
		/* 801 with no async allocator in sight stays CUDA's */
		{ "RuntimeError: CUDA error: operation not supported\n", "cuda-error" },
	};
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(cases2) / sizeof(cases2[0]); i++) {
		struct explain_result r;

		assert_int_equal(explain_text(cases2[i].text, strlen(cases2[i].text), &r, err), CD_OK);
		if (!cases2[i].finding) {
			if (r.n)
				fail_msg("case %zu: want nothing, got %s", i, r.m[0].finding);
		} else {
			assert_int_equal(r.n, 1);
			assert_string_equal(r.m[0].finding, cases2[i].finding);
		}
		explain_result_free(&r);
	}
}

/* an OOM whose own numbers show plenty free claims less; one that is short does not */
static void oom_numbers_decide_the_claim(void **state)
{
	struct oom_numbers n = { .have = OOM_HAVE_REQUESTED | OOM_HAVE_FREE | OOM_HAVE_TOTAL, .form = OOM_FORM_TORCH };
	char why[400];

	(void)state;
	n.requested = 20.0 * 1024 * 1024;
	n.total = 79.11 * 1024 * 1024 * 1024;
	n.free_bytes = 70.25 * 1024 * 1024 * 1024;
	assert_true(premise_oom_contradicted(&n, why, sizeof why));
	assert_non_null(strstr(why, "70.25 GiB free for a 20 MiB request"));
	n.free_bytes = 10.0 * 1024 * 1024;
	assert_false(premise_oom_contradicted(&n, why, sizeof why));
	n.have &= ~OOM_HAVE_FREE;
	assert_false(premise_oom_contradicted(&n, why, sizeof why));
}

/* NCCL_SOCKET_IFNAME in NCCL's syntax against a machine's interfaces: what NCCL 2.28 reports as
 * invalid usage is an interface list that selects nothing */
static void socket_ifname_against_this_machine(void **state)
{
	static const struct {
		const char *ifname, *ifaces;
		enum check_result want;
	} ifnames[] = {
		{ "eth", "eth0 docker0", CHECK_OK },           /* a prefix */
		{ "=eth0", "eth0 docker0", CHECK_OK },         /* exact */
		{ "=eth", "eth0 docker0", CHECK_PROBLEM },     /* exact names no interface */
		{ "ib0,enp90s0np0", "eth0 docker0", CHECK_PROBLEM },
		{ "^docker,lo", "eth0 docker0", CHECK_OK },    /* excludes leave eth0 */
		{ "^eth,docker", "eth0 docker0", CHECK_PROBLEM },
		{ "enp", "", CHECK_PROBLEM },                  /* no interface has a route */
		{ NULL, "eth0", CHECK_INFO },                  /* unset here */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ifnames) / sizeof(ifnames[0]); i++) {
		struct explain_checks out;

		memset(&out, 0, sizeof(out));
		check_nccl_ifname(ifnames[i].ifname, ifnames[i].ifaces, true, &out);
		assert_int_equal(out.n, 1);
		if (out.c[0].result != ifnames[i].want)
			fail_msg("NCCL_SOCKET_IFNAME=%s on \"%s\": %s", ifnames[i].ifname ? ifnames[i].ifname : "(unset)",
				 ifnames[i].ifaces, out.c[0].detail);
		explain_checks_free(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_id_from_its_report),
		cmocka_unit_test(not_without_their_evidence),
		cmocka_unit_test(oom_numbers_decide_the_claim),
		cmocka_unit_test(socket_ifname_against_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
