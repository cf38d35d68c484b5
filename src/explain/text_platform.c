/* The text's platform (text_platform.h): the markers in one table, and how their counts decide
 * the vendor, the OS, a container and its runtime, Hyper-V and Jetson. */
#include "explain/text_platform.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "explain/context.h"

/* the hit is a word of its own on the left ("orin", not "chlorine") */
static bool word_start(const char *low, size_t len, size_t end, size_t n)
{
	(void)len;
	return end == n || !isalnum((unsigned char)low[end - n - 1]);
}

#define WORD_CHECK(name, n)                                                                                          \
	static bool name(const char *low, size_t len, size_t end)                                                    \
	{                                                                                                            \
		return word_start(low, len, end, n);                                                                 \
	}
WORD_CHECK(word3, 3)
WORD_CHECK(word4, 4)
WORD_CHECK(word5, 5)

/* a word of its own on both sides ("on mac", not "on machine") */
static bool whole_word(const char *low, size_t len, size_t end, size_t n)
{
	return word_start(low, len, end, n) && (end == len || !isalnum((unsigned char)low[end]));
}

static bool whole3(const char *low, size_t len, size_t end)
{
	return whole_word(low, len, end, 3);
}

/* WSL named, not a folder of its paths (/usr/lib/wsl/lib has its own marker) */
static bool wsl_named(const char *low, size_t len, size_t end)
{
	return whole3(low, len, end) && (end < 4 || low[end - 4] != '/');
}

/* "container" of a running one, not the NVIDIA Container Toolkit's name */
static bool a_container(const char *low, size_t len, size_t end)
{
	(void)len;
	return end < 9 + 7 || strncmp(low + end - 9 - 7, "nvidia-", 7) != 0;
}

/* "gfx" then a target's digits (gfx90a, gfx1100) */
static bool gfx_target(const char *low, size_t len, size_t end)
{
	return word_start(low, len, end, 3) && end + 3 <= len && isdigit((unsigned char)low[end]) &&
	       isalnum((unsigned char)low[end + 1]) && isalnum((unsigned char)low[end + 2]);
}

/* "rx " then a Radeon model number (RX 580, RX 7900 XTX) */
static bool radeon_rx(const char *low, size_t len, size_t end)
{
	return word_start(low, len, end, 3) && end + 3 <= len && isdigit((unsigned char)low[end]) &&
	       isdigit((unsigned char)low[end + 1]) && isdigit((unsigned char)low[end + 2]);
}

/* WSL 1's kernel is "4.4.0-<build>-Microsoft"; WSL 2's says "-microsoft-standard" */
static bool wsl1_kernel(const char *low, size_t len, size_t end)
{
	const char *rest = low + end;
	size_t n = len - end, k = 0;

	while (k < n && isdigit((unsigned char)rest[k]))
		k++;
	return k >= 4 && k + 10 <= n && strncmp(rest + k, "-microsoft", 10) == 0 &&
	       !(k + 19 <= n && strncmp(rest + k + 10, "-standard", 9) == 0);
}

/* an image tag or a wheel ("ollama/ollama:rocm", "rocm/pytorch", "-rocm6.2") */
static bool rocm_tag(const char *low, size_t len, size_t end)
{
	return end == len || !isalpha((unsigned char)low[end]) || strncmp(low + end, "/", 1) == 0;
}

static const struct tp_marker markers[] = {
	/* NVIDIA's devices, driver and tools by name */
	{ "nvidia-smi", TPK_NVIDIA, NULL },
	{ "geforce", TPK_NVIDIA, NULL },
	{ "quadro", TPK_NVIDIA, NULL },
	{ "tesla ", TPK_NVIDIA, NULL },
	{ "nvidia rtx", TPK_NVIDIA, NULL },
	{ "nvidia a", TPK_NVIDIA, NULL },
	{ "nvidia h", TPK_NVIDIA, NULL },
	{ "nvidia l4", TPK_NVIDIA, NULL },
	{ "nvidia t4", TPK_NVIDIA, NULL },
	{ "nvml", TPK_NVIDIA, NULL },
	{ "libcuda.so", TPK_NVIDIA, NULL },
	{ "nvcuda.dll", TPK_NVIDIA, NULL },
	{ "compute capability", TPK_NVIDIA, NULL },
	{ "cudnn", TPK_NVIDIA, NULL },
	{ "rtx ", TPK_NVIDIA, word4 },
	{ "gtx ", TPK_NVIDIA, word4 },
	/* AMD: HIP's and HSA's words, ROCm's paths, images and wheels, gfx targets, Radeon and
	 * Instinct names, ZLUDA */
	{ "hipmalloc", TPK_AMD, NULL },
	{ "hip error", TPK_AMD, NULL },
	{ "hiperror", TPK_AMD, NULL },
	{ "hsa_status", TPK_AMD, NULL },
	{ "/opt/rocm", TPK_AMD, NULL },
	{ ":rocm", TPK_AMD, rocm_tag },
	{ "-rocm", TPK_AMD, rocm_tag },
	{ "+rocm", TPK_AMD, NULL },
	{ "library=rocm", TPK_AMD, NULL }, /* (not HIP_VISIBLE_DEVICES: Ollama prints its settings everywhere) */
	{ "gfx", TPK_AMD, gfx_target },
	{ "radeon", TPK_AMD, NULL },
	{ "instinct mi", TPK_AMD, NULL },
	{ "rx ", TPK_AMD, radeon_rx },
	{ "/dev/kfd", TPK_AMD, NULL },
	{ "rocblas", TPK_AMD, NULL },
	{ "miopen", TPK_AMD, NULL },
	{ "zluda", TPK_AMD, NULL },
	{ "hiprtc", TPK_AMD, NULL },
	{ "amd_serialize_kernel", TPK_AMD, NULL },
	{ "torch_use_hip_dsa", TPK_AMD, NULL },
	{ "rocminfo", TPK_AMD, NULL },
	{ "directml", TPK_AMD, NULL },
	/* Intel: XPU, Level Zero, SYCL/UR's and PI's error names, Arc */
	{ "xpu", TPK_INTEL, word3 },
	{ "level zero", TPK_INTEL, NULL },
	{ "level_zero", TPK_INTEL, NULL },
	{ "ur_result_error", TPK_INTEL, NULL },
	{ "pi_error_", TPK_INTEL, NULL },
	{ "intel(r) arc", TPK_INTEL, NULL },
	{ "intel arc", TPK_INTEL, NULL },
	{ "arc(tm)", TPK_INTEL, NULL },
	{ "intel_extension_for_pytorch", TPK_INTEL, NULL },
	{ "ipex", TPK_INTEL, word4 },
	{ "sycl", TPK_INTEL, word4 },
	{ "intel(r) graphics", TPK_INTEL, NULL },
	{ "intel(r) data center gpu", TPK_INTEL, NULL },
	/* Apple: MPS, Metal, Apple silicon */
	{ "mps backend", TPK_APPLE, NULL },
	{ "mps:0", TPK_APPLE, NULL },
	{ "backends.mps", TPK_APPLE, NULL },
	{ "mps allocated", TPK_APPLE, NULL },
	{ "apple m1", TPK_APPLE, NULL },
	{ "apple m2", TPK_APPLE, NULL },
	{ "apple m3", TPK_APPLE, NULL },
	{ "apple m4", TPK_APPLE, NULL },
	{ "apple silicon", TPK_APPLE, NULL },
	{ "ggml_metal", TPK_APPLE, NULL },
	{ "metal backend", TPK_APPLE, NULL },
	/* macOS itself */
	{ "macos", TPK_MACOS, NULL },
	{ "mac", TPK_MACOS, whole3 },
	{ "macbook", TPK_MACOS, NULL },
	{ "mac os", TPK_MACOS, NULL },
	{ "osx", TPK_MACOS, whole3 },
	{ "darwin", TPK_MACOS, word5 },
	{ "/opt/homebrew", TPK_MACOS, NULL },
	{ "python.framework", TPK_MACOS, NULL },
	{ "arm64-apple", TPK_MACOS, NULL },
	/* Windows by name, where no path or DLL says it */
	{ "windows 10", TPK_WINDOWS, NULL },
	{ "windows 11", TPK_WINDOWS, NULL },
	{ "win10", TPK_WINDOWS, NULL },
	{ "win11", TPK_WINDOWS, NULL },
	{ "microsoft windows [version", TPK_WINDOWS, NULL },
	/* WSL: 1 has no GPU at all, 2 has the Windows driver's libraries */
	{ "4.4.0-", TPK_WSL1, wsl1_kernel },
	{ "wsl1", TPK_WSL1, NULL },
	{ "wsl 1 ", TPK_WSL1, NULL },
	{ "wsl2", TPK_WSL2, NULL },
	{ "wsl 2", TPK_WSL2, NULL },
	{ "/usr/lib/wsl", TPK_WSL2, NULL },
	{ "/mnt/wsl", TPK_WSL2, NULL },
	/* WSL named without a version: CUDA runs only in WSL 2 */
	{ "wsl", TPK_WSL2, wsl_named },
	{ "microsoft-standard", TPK_WSL2_KERNEL, NULL },
	{ "/dev/dxg", TPK_WSL2, NULL },
	{ "libdxcore", TPK_WSL2, NULL },
	/* Hyper-V's GPU partitioning outside WSL */
	{ "hyper-v", TPK_HYPERV, NULL },
	{ "hyperv", TPK_HYPERV, NULL },
	{ "dxgkrnl", TPK_HYPERV, NULL },
	{ "gpu-pv", TPK_HYPERV, NULL },
	{ "gpu partition", TPK_HYPERV, NULL },
	/* containers and their runtimes */
	{ "docker desktop", TPK_DOCKER_DESKTOP, NULL },
	{ "desktop-linux", TPK_DOCKER_DESKTOP, NULL },
	{ "docker run", TPK_DOCKER, NULL },
	{ "docker exec", TPK_DOCKER, NULL },
	{ "docker-compose", TPK_DOCKER, NULL },
	{ "docker compose", TPK_DOCKER, NULL },
	{ "docker: error", TPK_DOCKER, NULL },
	{ "dockerfile", TPK_DOCKER, NULL },
	{ "/.dockerenv", TPK_DOCKER, NULL },
	{ "dockerd", TPK_DOCKER, NULL },
	{ "podman", TPK_PODMAN, NULL },
	{ "kubectl", TPK_KUBERNETES, NULL },
	{ "kubelet", TPK_KUBERNETES, NULL },
	{ "k8s", TPK_KUBERNETES, NULL },
	{ "kubernetes", TPK_KUBERNETES, NULL },
	{ "device-plugin", TPK_KUBERNETES, NULL },
	{ "gpu-operator", TPK_KUBERNETES, NULL },
	{ "lxc", TPK_LXC, whole3 },
	{ "lxd", TPK_LXC, whole3 },
	{ "incus", TPK_LXC, NULL },
	{ "proxmox", TPK_LXC, NULL },
	{ "apptainer", TPK_APPTAINER, NULL },
	{ "singularity", TPK_APPTAINER, NULL },
	{ "enroot", TPK_APPTAINER, NULL },
	{ "containerd", TPK_CONTAINER, NULL },
	{ "inside the container", TPK_CONTAINER, NULL },
	{ "in a container", TPK_CONTAINER, NULL },
	{ "in the container", TPK_CONTAINER, NULL },
	{ "container", TPK_CONTAINER, a_container },
	/* how the GPU got into it */
	{ "cdi spec", TPK_CDI, NULL },
	{ "cdi device", TPK_CDI, NULL },
	{ "nvidia.com/gpu=", TPK_CDI, NULL },
	{ "cdi list", TPK_CDI, NULL },
	{ "cdi generate", TPK_CDI, NULL },
	{ "/etc/cdi", TPK_CDI, NULL },
	{ "/var/run/cdi", TPK_CDI, NULL },
	{ "nvidia-container-cli", TPK_LEGACY_HOOK, NULL },
	{ "nvidia-container-runtime-hook", TPK_LEGACY_HOOK, NULL },
	{ "prestart hook", TPK_LEGACY_HOOK, NULL },
	/* Jetson and its L4T */
	{ "jetson", TPK_JETSON, NULL },
	{ "tegra", TPK_JETSON, NULL },
	{ "l4t", TPK_JETSON, word3 },
	{ "jetpack", TPK_JETSON, NULL },
	{ "orin", TPK_JETSON, word4 },
	{ "xavier", TPK_JETSON, NULL },
	{ "nvmap", TPK_JETSON, NULL },
};

#define N_MARKERS (sizeof(markers) / sizeof(markers[0]))

const struct tp_marker *text_platform_markers(size_t *n)
{
	*n = N_MARKERS;
	return markers;
}

void text_platform_init(struct text_platform *p)
{
	memset(p, 0, sizeof(*p));
}

void text_platform_hit(struct text_platform *p, size_t i, const char *low, size_t len, size_t end)
{
	const struct tp_marker *mk;
	unsigned long long bit;

	if (i >= N_MARKERS || i / 64 >= sizeof(p->seen_markers) / sizeof(p->seen_markers[0]))
		return;
	mk = &markers[i];
	bit = 1ull << (i % 64);
	if (p->seen_markers[i / 64] & bit)
		return;
	if (mk->check && !mk->check(low, len, end))
		return;
	p->seen_markers[i / 64] |= bit;
	if (!p->first[mk->kind])
		p->first[mk->kind] = mk->text;
	p->count[mk->kind]++;
}

static enum tp_vendor decide_vendor(const struct text_platform *p)
{
	static const enum tp_kind others[] = { TPK_AMD, TPK_INTEL, TPK_APPLE };
	static const enum tp_vendor vendor_of[] = { TP_AMD, TP_INTEL, TP_APPLE };
	unsigned best = 0;
	enum tp_vendor v = TP_VENDOR_UNKNOWN;

	for (size_t i = 0; i < 3; i++)
		if (p->count[others[i]] > best) {
			best = p->count[others[i]];
			v = vendor_of[i];
		}
	/* a text that names NVIDIA's hardware as often is NVIDIA's: an AMD iGPU beside a GeForce,
	 * an Intel oneAPI path on a CUDA machine */
	if (best && best > p->count[TPK_NVIDIA])
		return v;
	if (p->count[TPK_NVIDIA] || p->jetson)
		return TP_NVIDIA;
	/* no CUDA on a Mac for years: a macOS text names no NVIDIA GPU */
	if (p->os == TP_MACOS)
		return TP_APPLE;
	return TP_VENDOR_UNKNOWN;
}

void text_platform_settle(struct text_platform *p, bool windows_seen, bool linux_seen, bool host_windows)
{
	static const struct {
		enum tp_kind kind;
		enum tp_runtime rt;
	} runtimes[] = { { TPK_DOCKER_DESKTOP, TP_DOCKER_DESKTOP }, { TPK_KUBERNETES, TP_KUBERNETES },
			 { TPK_PODMAN, TP_PODMAN }, { TPK_LXC, TP_LXC }, { TPK_APPTAINER, TP_APPTAINER },
			 { TPK_DOCKER, TP_DOCKER } };
	bool wsl = p->count[TPK_WSL2] > 0 || p->count[TPK_WSL2_KERNEL] > 0;

	p->jetson = p->count[TPK_JETSON] > 0;
	p->hyperv = p->count[TPK_HYPERV] > 0;
	/* a kernel string says which WSL it is; a WSL 1 kernel beats words about WSL 2 */
	if (p->count[TPK_WSL1] && !p->count[TPK_WSL2_KERNEL])
		p->os = TP_WSL1;
	else if (wsl)
		p->os = TP_WSL2;
	else if (p->count[TPK_MACOS] && !windows_seen)
		p->os = TP_MACOS;
	else if (windows_seen || linux_seen)
		p->os = explain_text_is_windows(windows_seen, linux_seen, false) ? TP_WINDOWS : TP_LINUX;
	else if (p->count[TPK_WINDOWS])
		p->os = TP_WINDOWS;
	else
		p->os = host_windows ? TP_WINDOWS : TP_OS_UNKNOWN;
	if (p->os == TP_OS_UNKNOWN && (p->jetson || p->count[TPK_DOCKER] || p->count[TPK_KUBERNETES] ||
				       p->count[TPK_PODMAN] || p->count[TPK_LXC] || p->count[TPK_LEGACY_HOOK]))
		p->os = TP_LINUX;
	p->runtime = TP_RT_NONE;
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]) && p->runtime == TP_RT_NONE; i++)
		if (p->count[runtimes[i].kind])
			p->runtime = runtimes[i].rt;
	p->hook = p->count[TPK_CDI] ? TP_HOOK_CDI : p->count[TPK_LEGACY_HOOK] ? TP_HOOK_LEGACY : TP_HOOK_UNKNOWN;
	p->container = p->runtime != TP_RT_NONE || p->count[TPK_CONTAINER] || p->hook != TP_HOOK_UNKNOWN;
	p->vendor = decide_vendor(p);
}

static bool marker_in(const char *const *list, size_t n, const char *low)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(low, list[i]))
			return true;
	return false;
}

void text_platform_read(const char *text, size_t len, bool host_windows, struct text_platform *out)
{
	const char *const *win, *const *lin;
	size_t n_win, n_lin, at = 0;
	bool windows_seen = false, linux_seen = false;
	char low[1024];

	text_platform_init(out);
	win = explain_windows_markers(&n_win);
	lin = explain_linux_markers(&n_lin);
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - text - at) : len - at, k;

		/* a longer line is read in pieces: a marker split between two is missed */
		for (size_t from = 0; from < n || (n == 0 && from == 0); from += sizeof(low) - 1) {
			size_t piece = n - from < sizeof(low) - 1 ? n - from : sizeof(low) - 1;

			for (k = 0; k < piece; k++)
				low[k] = (char)tolower((unsigned char)text[at + from + k]);
			low[k] = '\0';
			for (size_t i = 0; i < N_MARKERS; i++)
				for (const char *h = strstr(low, markers[i].text); h; h = strstr(h + 1, markers[i].text))
					text_platform_hit(out, i, low, k, (size_t)(h - low) + strlen(markers[i].text));
			windows_seen |= marker_in(win, n_win, low);
			linux_seen |= marker_in(lin, n_lin, low);
			if (n == 0)
				break;
		}
		at += n + 1;
	}
	text_platform_settle(out, windows_seen, linux_seen, host_windows);
}

void text_platform_add_host(struct text_platform *p, const struct platform_info *host)
{
	static const struct {
		const char *name;
		enum tp_runtime rt;
	} runtimes[] = { { "docker", TP_DOCKER }, { "podman", TP_PODMAN }, { "kubernetes", TP_KUBERNETES },
			 { "lxc", TP_LXC } };

	if (!host)
		return;
	if (p->os == TP_OS_UNKNOWN) {
		p->os = host->windows ? TP_WINDOWS : host->wsl ? TP_WSL2 : TP_LINUX;
		p->from_host = true;
	}
	if (!p->container && host->container) {
		p->container = true;
		p->from_host = true;
		for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
			if (strcmp(host->container, runtimes[i].name) == 0)
				p->runtime = runtimes[i].rt;
	}
}

bool text_platform_cuda(const struct text_platform *p)
{
	return (p->vendor == TP_NVIDIA || p->vendor == TP_VENDOR_UNKNOWN) && p->os != TP_WSL1 && p->os != TP_MACOS;
}

static bool is_one_of(const char *id, const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(id, ids[i]) == 0)
			return true;
	return false;
}

/* ids that say nothing of CUDA: right on any vendor's machine */
static const char *const neutral[] = { "non-nvidia-platform", "win-runtime-dll-missing", "hip-sdk-not-on-path",
				       "install-path-unloadable", "host-memory-insufficient", "pinned-host-oom" };
/* ids that, under WSL 1, are its missing GPU */
static const char *const no_gpu[] = { "no-driver", "runtime-newer-than-driver", "nvml-unavailable", "no-device",
				      "libcuda-missing", "wsl-libcuda", "cuda-error", "unknown-error",
				      "no-nvidia-gpu" };

static bool is_oom(const char *id)
{
	return strcmp(id, "out-of-memory") == 0 || strncmp(id, "oom-", 4) == 0;
}

const char *text_platform_finding(const struct text_platform *p, const char *id)
{
	size_t n_neutral = sizeof(neutral) / sizeof(neutral[0]);

	if (is_one_of(id, neutral, n_neutral))
		return id;
	switch (p->vendor) {
	case TP_AMD:
		if (strncmp(id, "rocm-", 5) == 0)
			return id;
		if (strcmp(id, "no-kernel-image") == 0 || strcmp(id, "partial-kernel-image") == 0)
			return "rocm-gfx-target-missing";
		if (is_oom(id))
			return "rocm-out-of-memory";
		if (strcmp(id, "torch-cpu-only") == 0)
			return "non-nvidia-platform";
		return "rocm-error";
	case TP_INTEL:
		if (strncmp(id, "xpu-", 4) == 0)
			return id;
		return is_oom(id) ? "xpu-out-of-memory" : "non-nvidia-platform";
	case TP_APPLE:
		if (strncmp(id, "mps-", 4) == 0)
			return id;
		return is_oom(id) ? "mps-out-of-memory" : "non-nvidia-platform";
	default:
		break;
	}
	if (p->os == TP_WSL1 && is_one_of(id, no_gpu, sizeof(no_gpu) / sizeof(no_gpu[0])))
		return "wsl1-no-gpu";
	return id;
}

static const char *const vendor_names[] = { NULL, "nvidia", "amd", "intel", "apple" };
static const char *const os_names[] = { NULL, "linux", "windows", "wsl1", "wsl2", "macos" };
static const char *const runtime_names[] = { NULL, "docker", "docker-desktop", "podman", "kubernetes", "lxc",
					     "apptainer" };
static const char *const hook_names[] = { NULL, "legacy", "cdi" };

#define NAME_OF(arr, v) ((v) >= 0 && (size_t)(v) < sizeof(arr) / sizeof(arr[0]) ? arr[v] : NULL)

const char *tp_vendor_name(int v)
{
	return NAME_OF(vendor_names, v);
}

const char *tp_os_name(int v)
{
	return NAME_OF(os_names, v);
}

const char *tp_runtime_name(int v)
{
	return NAME_OF(runtime_names, v);
}

const char *tp_hook_name(int v)
{
	return NAME_OF(hook_names, v);
}

/* the markers that decided, "radeon, wsl2" */
static const char *evidence(const void *obj, char *buf, size_t cap)
{
	const struct text_platform *p = obj;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < TPK_COUNT && used < cap; k++)
		if (p->first[k])
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", p->first[k]);
	return buf;
}

#define TP(m) offsetof(struct text_platform, m)

static const struct field tp_fields[] = {
	{ .key = "vendor", .label = "vendor", .kind = FK_NAMED, .off = TP(vendor), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .name = tp_vendor_name, .unknown = "not said" },
	{ .key = "os", .label = "OS", .kind = FK_NAMED, .off = TP(os), .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .name = tp_os_name, .unknown = "not said" },
	{ .key = "hyperv", .label = "Hyper-V guest", .kind = FK_BOOL, .off = TP(hyperv), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .flags = FIELD_QUIET },
	{ .key = "container", .label = "container", .kind = FK_BOOL, .off = TP(container), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .flags = FIELD_QUIET },
	{ .key = "container_runtime", .label = "container runtime", .kind = FK_NAMED, .off = TP(runtime),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .name = tp_runtime_name },
	{ .key = "container_hook", .label = "GPU given by", .kind = FK_NAMED, .off = TP(hook), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .name = tp_hook_name },
	{ .key = "jetson", .label = "Jetson", .kind = FK_BOOL, .off = TP(jetson), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .flags = FIELD_QUIET },
	{ .key = "from_this_machine", .label = "unsaid, from this machine", .kind = FK_BOOL, .off = TP(from_host),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_QUIET },
	{ .key = "markers", .label = "read from", .kind = FK_TEXT, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .string = evidence, .flags = FIELD_QUIET },
};

const struct field_table text_platform_field_table = {
	"platform", tp_fields, sizeof tp_fields / sizeof tp_fields[0], -1, NULL, NULL,
};
