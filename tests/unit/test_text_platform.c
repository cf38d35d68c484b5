/* The platform a text comes from (src/explain/text_platform.c), read from real reports' lines
 * (the thread beside each), and what explain makes of it: a CUDA finding on another vendor's
 * GPU becomes that vendor's, and WSL 1's "no driver" is its missing GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explain/explain.h"
#include "explain/text_platform.h"
#include "probe/platform.h"
#include "util/err.h"

static struct text_platform read_text(const char *t)
{
	struct text_platform p;

	text_platform_read(t, strlen(t), false, &p);
	return p;
}

/* each platform from a report's own lines */
static void vendors_from_text(void **state)
{
	struct text_platform p;

	(void)state;
	/* https://github.com/ollama/ollama/issues/3765 */
	p = read_text("CUDA error: out of memory\n  current device: 0, in function alloc at ggml-cuda.cu:233\n"
		      "  hipMalloc((void **) &ptr, look_ahead_size)\nGPU: AMD Radeon RX 7900 XTX gfx1100\n");
	assert_int_equal(p.vendor, TP_AMD);
	/* https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/469 */
	p = read_text("Win10, Python 3.10.6, Radeon RX 580 2048SP.\nC:\\sd\\venv\\Scripts\\python.exe --use-directml\n");
	assert_int_equal(p.vendor, TP_AMD);
	assert_int_equal(p.os, TP_WINDOWS);
	/* https://github.com/intel/intel-extension-for-pytorch/issues/846 */
	p = read_text("torch.OutOfMemoryError: XPU out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total "
		      "capacity of 15.11 GiB.\n");
	assert_int_equal(p.vendor, TP_INTEL);
	/* https://github.com/intel/torch-xpu-ops/issues/3155 */
	p = read_text("RuntimeError: Native API failed. Native API returns: 20 (UR_RESULT_ERROR_DEVICE_LOST)\n");
	assert_int_equal(p.vendor, TP_INTEL);
	/* https://github.com/Comfy-Org/ComfyUI/issues/8984 */
	p = read_text("MPS backend out of memory (MPS allocated: 15.72 GiB, other allocations: 2.41 MiB, max allowed: "
		      "18.13 GiB). Tried to allocate 5.81 GiB on private pool.\n");
	assert_int_equal(p.vendor, TP_APPLE);
	/* an NVIDIA machine with an AMD iGPU's kernel module: NVIDIA named more often */
	p = read_text("NVIDIA GeForce RTX 4090, compute capability 8.9\nnvidia-smi: 550.54\n[drm] amdgpu: 512M of VRAM\n");
	assert_int_equal(p.vendor, TP_NVIDIA);
	/* a Mac names no NVIDIA GPU: https://github.com/deepbeepmeep/Wan2GP/issues/1680 */
	p = read_text("File \"/opt/homebrew/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 310\n"
		      "AssertionError: Torch not compiled with CUDA enabled\n");
	assert_int_equal(p.os, TP_MACOS);
	assert_int_equal(p.vendor, TP_APPLE);
	/* nothing said */
	p = read_text("CUDA error: an illegal memory access was encountered\n");
	assert_int_equal(p.vendor, TP_VENDOR_UNKNOWN);
	assert_int_equal(p.os, TP_OS_UNKNOWN);
	assert_false(p.container);
}

static void oses_from_text(void **state)
{
	struct text_platform p;

	(void)state;
	/* https://github.com/microsoft/WSL/issues/6122 */
	p = read_text("Linux version 4.4.0-20236-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) )\n");
	assert_int_equal(p.os, TP_WSL1);
	/* https://github.com/microsoft/WSL/issues/5554 */
	p = read_text("Error! Your kernel headers for kernel 4.4.0-19041-Microsoft cannot be found.\n");
	assert_int_equal(p.os, TP_WSL1);
	/* WSL 2's kernel is not WSL 1's */
	p = read_text("Linux DESKTOP 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64\n");
	assert_int_equal(p.os, TP_WSL2);
	/* https://github.com/microsoft/WSL/issues/12097: WSL 2 inside a Hyper-V guest */
	p = read_text("Windows 11 -> Hyper-v -> Windows 11 guest + Gpu Partitioning -> Docker Desktop + WSL2 -> "
		      "nvidia-smi fails\n");
	assert_int_equal(p.os, TP_WSL2);
	assert_true(p.hyperv);
	assert_true(p.container);
	assert_int_equal(p.runtime, TP_DOCKER_DESKTOP);
	/* https://github.com/staralt/dxgkrnl-dkms/issues/7 */
	p = read_text("$ sudo dkms install dxgkrnl/5.6.0\n/usr/lib/wsl/lib is empty\n");
	assert_true(p.hyperv);
	p = read_text("Traceback (most recent call last):\n  File \"C:\\Users\\me\\app\\main.py\", line 3\n");
	assert_int_equal(p.os, TP_WINDOWS);
	p = read_text("  File \"/home/me/app/main.py\", line 3\n");
	assert_int_equal(p.os, TP_LINUX);
	/* a text that says nothing is read as from the host given */
	text_platform_read("CUDA error 2", 12, true, &p);
	assert_int_equal(p.os, TP_WINDOWS);
}

static void containers_and_jetson_from_text(void **state)
{
	struct text_platform p;

	(void)state;
	/* https://github.com/NVIDIA/nvidia-container-toolkit/issues/1227 */
	p = read_text("running `systemctl daemon-reload` cause all running gpu containers to lost gpu devices.\n"
		      "$ docker exec -it gpu nvidia-smi\nFailed to initialize NVML: Unknown Error\n");
	assert_true(p.container);
	assert_int_equal(p.runtime, TP_DOCKER);
	/* https://github.com/NVIDIA/nvidia-container-toolkit/issues/1940 */
	p = read_text("$ nvidia-ctk --debug cdi list\nINFO[0000] Found 3 CDI devices\n"
		      "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n$ podman run\n");
	assert_int_equal(p.hook, TP_HOOK_CDI);
	assert_int_equal(p.runtime, TP_PODMAN);
	p = read_text("nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1\n");
	assert_int_equal(p.hook, TP_HOOK_LEGACY);
	assert_true(p.container);
	assert_int_equal(p.os, TP_LINUX);
	/* https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1930 */
	p = read_text("- Device: NVIDIA Jetson Orin Nano Super\n- OS: NVIDIA JetPack 6.2 (Linux for Tegra, aarch64)\n");
	assert_true(p.jetson);
	assert_int_equal(p.vendor, TP_NVIDIA);
	/* words that hold a marker's letters are not it */
	p = read_text("the original chlorine lxcat\n");
	assert_false(p.jetson);
	assert_false(p.container);
}

/* explain reads the same platform through its automaton, and re-reads CUDA findings by it */
static void explain_follows_the_platform(void **state)
{
	static const struct {
		const char *text, *finding;
	} cases[] = {
		/* https://github.com/ollama/ollama/issues/3765: HIP's OOM in CUDA's words */
		{ "CUDA error: out of memory\n  hipMalloc((void **) &ptr, look_ahead_size)\nAMD Radeon RX 7900 XTX\n",
		  "rocm-out-of-memory" },
		/* https://github.com/microsoft/WSL/issues/6122 */
		{ "Linux version 4.4.0-20236-Microsoft (Microsoft@Microsoft.com)\n"
		  "CUDA driver version is insufficient for CUDA runtime version\n",
		  "wsl1-no-gpu" },
		/* https://github.com/QodiCat/IC-Light-SD-WebUI/issues/2 */
		{ "  File \"/opt/homebrew/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 293\n"
		  "AssertionError: Torch not compiled with CUDA enabled\n",
		  "non-nvidia-platform" },
	};
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct explain_result r;

		assert_int_equal(explain_text(cases[i].text, strlen(cases[i].text), &r, err), CD_OK);
		assert_true(r.n >= 1);
		assert_string_equal(r.m[0].finding, cases[i].finding);
		explain_result_free(&r);
	}
}

static void ids_by_vendor(void **state)
{
	struct text_platform p;

	(void)state;
	text_platform_init(&p);
	p.vendor = TP_INTEL;
	assert_string_equal(text_platform_finding(&p, "out-of-memory"), "xpu-out-of-memory");
	assert_string_equal(text_platform_finding(&p, "no-driver"), "non-nvidia-platform");
	assert_string_equal(text_platform_finding(&p, "win-runtime-dll-missing"), "win-runtime-dll-missing");
	p.vendor = TP_APPLE;
	assert_string_equal(text_platform_finding(&p, "oom-capacity"), "mps-out-of-memory");
	p.vendor = TP_AMD;
	assert_string_equal(text_platform_finding(&p, "no-kernel-image"), "rocm-gfx-target-missing");
	p.vendor = TP_NVIDIA;
	assert_string_equal(text_platform_finding(&p, "no-driver"), "no-driver");
	assert_true(text_platform_cuda(&p));
	p.os = TP_WSL1;
	assert_false(text_platform_cuda(&p));
	assert_string_equal(text_platform_finding(&p, "no-driver"), "wsl1-no-gpu");
}

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A text explained where it was made: what it leaves unsaid comes from this machine, probed
 * under a faked host root (a WSL 2 kernel, podman's marker file); what it says stays. */
static void host_fills_what_the_text_leaves_unsaid(void **state)
{
	char root[] = "/tmp/cudoctor-tp-XXXXXX", dir[600], err[CD_ERRMSG];
	struct platform_info host;
	struct text_platform p;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/proc", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/run", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(root, "/proc/version", "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@x) #1 SMP\n");
	write_file(root, "/run/.containerenv", "");
	snprintf(dir, sizeof(dir), "%s/proc/net", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(root, "/proc/net/route", "Iface\tDestination\tGateway\n eth0\t00000000\t0101A8C0\ndocker0\t000011AC\t00000000\n");
	write_file(root, "/proc/net/if_inet6",
		   "00000000000000000000000000000001 01 80 10 80       lo\nfe80000000000000021e67fffe000001 03 40 20 80     ens5\n");
	assert_int_equal(platform_probe(&host, root, err), CD_OK);
	assert_true(host.wsl);
	/* the interfaces NCCL_SOCKET_IFNAME is judged against: with a route, lo left out */
	assert_true(host.net_known);
	assert_string_equal(host.net_ifaces, "eth0 docker0 ens5");

	p = read_text("CUDA error: an illegal memory access was encountered\n");
	text_platform_add_host(&p, &host);
	assert_int_equal(p.os, TP_WSL2);
	assert_true(p.container);
	assert_int_equal(p.runtime, TP_PODMAN);
	assert_true(p.from_host);

	/* a text that says it is from Windows and from docker keeps its own word */
	p = read_text("C:\\Users\\me> docker run --gpus all img\n");
	text_platform_add_host(&p, &host);
	assert_int_equal(p.os, TP_WINDOWS);
	assert_int_equal(p.runtime, TP_DOCKER);
	assert_false(p.from_host);

	snprintf(dir, sizeof(dir), "%s/run/.containerenv", root);
	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/run", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/proc/version", root);
	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/proc/net/route", root);
	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/proc/net/if_inet6", root);
	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/proc/net", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/proc", root);
	rmdir(dir);
	rmdir(root);
}

/* every marker lower-case (the automaton matches lower-cased lines); at most 256 of them */
static void markers_are_lower_case(void **state)
{
	size_t n;
	const struct tp_marker *m = text_platform_markers(&n);

	(void)state;
	assert_true(n > 50 && n <= 256);
	for (size_t i = 0; i < n; i++) {
		for (const char *c = m[i].text; *c; c++)
			assert_false(*c >= 'A' && *c <= 'Z');
		assert_true(m[i].kind < TPK_COUNT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vendors_from_text),
		cmocka_unit_test(oses_from_text),
		cmocka_unit_test(containers_and_jetson_from_text),
		cmocka_unit_test(explain_follows_the_platform),
		cmocka_unit_test(ids_by_vendor),
		cmocka_unit_test(host_fills_what_the_text_leaves_unsaid),
		cmocka_unit_test(markers_are_lower_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
