/* What a recognised line says beyond its finding: GPU names and archs, Xid numbers, library
 * names and versions, block sizes. Every read is bounded by the line it is on. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "explain/oom_text.h"
#include "explain/scan_line.h"
#include "util/err.h"

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

long line_find(const struct line *l, const char *needle)
{
	char low[256];
	size_t n = strlen(needle);
	const char *at;

	if (n == 0 || n > l->len || n >= sizeof(low))
		return -1;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)needle[i]);
	at = strstr(l->low, low);
	return at ? (long)(at - l->low) : -1;
}

bool ex_arch_at(const char *p, const char *end, struct kb_arch *a)
{
	char tok[24];
	size_t n = 0;

	while (p < end && n + 1 < sizeof(tok) && (is_ident((unsigned char)*p) || *p == '.'))
		tok[n++] = *p++;
	while (n && tok[n - 1] == '.')
		n--;
	tok[n] = '\0';
	return n > 0 && kb_arch_parse(tok, a) == CD_OK;
}

static void copy_name(struct explain_match *m, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= sizeof(m->gpu_name))
		n = sizeof(m->gpu_name) - 1;
	memcpy(m->gpu_name, s, n);
	m->gpu_name[n] = '\0';
}

void ex_torch_cc(struct explain_match *m, const struct line *l)
{
	long at = line_find(l, " with cuda capability sm_");
	const char *start = l->s;

	if (at < 0 || m->has_arch)
		return;
	/* the name follows the last ": " before it (a warning's prefix) */
	for (long i = 0; i + 1 < at; i++)
		if (l->s[i] == ':' && l->s[i + 1] == ' ')
			start = l->s + i + 2;
	copy_name(m, start, (size_t)(l->s + at - start));
	m->has_arch = ex_arch_at(l->s + at + 22, l->s + l->len, &m->arch);
}

bool ex_supported(struct explain_match *m, const struct line *l)
{
	long at = line_find(l, "supports cuda capabilities ");
	const char *q, *end = l->s + l->len;

	if (at < 0 || m->n_supported)
		return false;
	q = l->s + at + 27;
	while (q < end && m->n_supported < sizeof(m->supported) / sizeof(m->supported[0])) {
		struct kb_arch a;

		while (q < end && *q == ' ')
			q++;
		if (!ex_arch_at(q, end, &a))
			break;
		m->supported_ptx[m->n_supported] = end - q > 8 && strncmp(q, "compute_", 8) == 0;
		m->supported[m->n_supported++] = a;
		while (q < end && is_ident((unsigned char)*q))
			q++;
	}
	return m->n_supported > 0;
}

bool ex_cc_old(struct explain_match *m, const struct line *l)
{
	long at = line_find(l, " which is of cuda capability ");
	size_t s = 0;

	if (at < 0 || m->has_arch)
		return false;
	while (s < (size_t)at && isspace((unsigned char)l->s[s]))
		s++;
	if ((size_t)at - s > 9 && strncmp(l->s + s, "Found GPU", 9) == 0) {
		s += 9;
		while (s < (size_t)at && isdigit((unsigned char)l->s[s]))
			s++;
	}
	copy_name(m, l->s + s, (size_t)at - s);
	m->has_arch = ex_arch_at(l->s + at + 29, l->s + l->len, &m->arch);
	return m->has_arch;
}

static void add_xid(struct explain_match *m, int v)
{
	for (size_t k = 0; k < m->n_xids; k++)
		if (m->xids[k] == v)
			return;
	if (m->n_xids < sizeof(m->xids) / sizeof(m->xids[0]))
		m->xids[m->n_xids++] = v;
}

/* "NVRM: Xid (PCI:0000:06:00): 79, pid=..." and a report's "Xid 31 MMU Fault" */
void ex_xid(struct explain_match *m, const struct line *l)
{
	for (long at = line_find(l, "xid "); at >= 0;) {
		size_t i = (size_t)at + 4;
		int v = 0, digits = 0;

		if (i < l->len && l->s[i] == '(') {
			while (i < l->len && l->s[i] != ')')
				i++;
			if (i + 2 >= l->len || l->s[i + 1] != ':')
				return;
			i += 2;
		}
		while (i < l->len && l->s[i] == ' ')
			i++;
		while (i < l->len && isdigit((unsigned char)l->s[i]) && digits < 4) {
			v = v * 10 + (l->s[i++] - '0');
			digits++;
		}
		if (digits)
			add_xid(m, v);
		{
			const char *next = strstr(l->low + at + 4, "xid ");

			at = next ? (long)(next - l->low) : -1;
		}
	}
}

void ex_path(struct explain_match *m, const struct line *l)
{
	if (m->path[0])
		return;
	for (size_t i = 0; i < l->len; i++) {
		size_t j = i, n;
		const char *so;

		if (l->s[i] != '/' || (i > 0 && !isspace((unsigned char)l->s[i - 1]) && l->s[i - 1] != '"' &&
				       l->s[i - 1] != '\'' && l->s[i - 1] != '('))
			continue;
		while (j < l->len && !isspace((unsigned char)l->s[j]) && l->s[j] != ':' && l->s[j] != '"' &&
		       l->s[j] != '\'' && l->s[j] != ',' && l->s[j] != ')')
			j++;
		n = j - i;
		so = strstr(l->low + i, ".so");
		if (n < 5 || n >= sizeof(m->path) || !so || (size_t)(so - (l->low + i)) >= n)
			continue;
		memcpy(m->path, l->s + i, n);
		m->path[n] = '\0';
		return;
	}
}

void ex_driver_found(struct explain_match *m, const struct line *l)
{
	long at = line_find(l, "found version ");

	if (at >= 0 && !m->driver_cuda)
		m->driver_cuda = atoi(l->s + at + 14);
}

/* the version-like word at p (digits and dots), into out */
static size_t version_word(const char *p, const char *end, char *out, size_t n)
{
	size_t k = 0;

	while (p < end && (*p == ' ' || *p == ':'))
		p++;
	while (p + k < end && k + 1 < n && (isdigit((unsigned char)p[k]) || p[k] == '.'))
		k++;
	while (k && p[k - 1] == '.')
		k--;
	memcpy(out, p, k);
	out[k] = '\0';
	return k;
}

/* "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0", "Found cuDNN
 * version 8600, but JAX was built against version 8906", "Installed version: 8907" after
 * "Minimum supported: 9100" */
void ex_lib_versions(struct explain_match *m, const struct line *l)
{
	static const char *const loaded[] = { "library: ", "found cudnn version ", "installed version" };
	static const char *const built[] = { "compiled with", "built against version ", "minimum supported" };
	const char *end = l->s + l->len;

	for (size_t i = 0; i < 3; i++) {
		long a = line_find(l, loaded[i]), b = line_find(l, built[i]);

		if (a >= 0 && !m->versions[0][0])
			version_word(l->s + a + strlen(loaded[i]), end, m->versions[0], sizeof(m->versions[0]));
		if (b >= 0 && !m->versions[1][0])
			version_word(l->s + b + strlen(built[i]), end, m->versions[1], sizeof(m->versions[1]));
	}
}

/* "Your Tesla T4 GPU has compute capability 7.5", Ollama's "Compute Capability detected: 5.2" */
void ex_gpu_cc(struct explain_match *m, const struct line *l)
{
	long at = line_find(l, " gpu has compute capability "), your = line_find(l, "your ");

	if (m->has_arch)
		return;
	if (at >= 0) {
		if (your >= 0 && your < at)
			copy_name(m, l->s + your + 5, (size_t)(at - your - 5));
		m->has_arch = ex_arch_at(l->s + at + 28, l->s + l->len, &m->arch);
		return;
	}
	at = line_find(l, "compute capability detected: ");
	if (at >= 0)
		m->has_arch = ex_arch_at(l->s + at + 29, l->s + l->len, &m->arch);
}

/* Threads per block a line gives: "Block [512x1x1]", "blockDim=(1024,1,1)",
 * "kernel<<<1, 2048>>>"; 0 when it gives none. */
int ex_block_threads(const struct line *l)
{
	static const char *const keys[] = { "block [", "blockdim=(", "block size: ", "block: (" };
	long launch = line_find(l, "<<<");

	if (launch >= 0) {
		/* the second launch parameter, when it is a plain number */
		const char *p = memchr(l->s + launch, ',', l->len - (size_t)launch), *end = l->s + l->len;
		long v = 0;

		while (p && ++p < end && *p == ' ')
			;
		while (p && p < end && isdigit((unsigned char)*p) && v <= 1 << 20)
			v = v * 10 + (*p++ - '0');
		if (p && p < end && (*p == '>' || *p == ',' || *p == ' ') && v > 0 && v <= 1 << 20)
			return (int)v;
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		long at = line_find(l, keys[k]);
		int d[3] = { 1, 1, 1 };
		size_t i;

		if (at < 0)
			continue;
		i = (size_t)at + strlen(keys[k]);
		for (int j = 0; j < 3 && i < l->len && isdigit((unsigned char)l->s[i]); j++) {
			d[j] = 0;
			while (i < l->len && isdigit((unsigned char)l->s[i]) && d[j] < 100000)
				d[j] = d[j] * 10 + (l->s[i++] - '0');
			if (i < l->len && (l->s[i] == 'x' || l->s[i] == ','))
				i++;
			else
				break;
		}
		if (d[0] > 0 && (long)d[0] * d[1] * d[2] <= 1 << 20)
			return d[0] * d[1] * d[2];
	}
	return 0;
}

void ex_block(struct explain_match *m, const struct line *l)
{
	if (!m->block_threads)
		m->block_threads = ex_block_threads(l);
}

/* ---- loader errors ---- */

static bool is_dll_char(int c)
{
	return is_ident(c) || c == '-';
}

/* CUDA-family libraries a loader error can name (the base, without "lib" and ".so...") */
static const char *const cuda_libs[] = {
	"cudart", "cublasLt", "cublas", "cudnn", "cufftw", "cufft", "curand", "cusolverMg", "cusolver",
	"cusparseLt", "cusparse", "nvrtc", "nvJitLink", "nccl", "cupti", "nvToolsExt", "nvinfer", "nvonnxparser",
	"nvblas", "nppc", "nppi", "npps", "nvjpeg", "cutensor", "cudss", "nvshmem", "cufile", "nvidia-ml",
	"cuda", "nvidia-ptxjitcompiler", "nvcuvid", "nvidia-encode", "torch_cuda", "c10_cuda",
	"onnxruntime_providers_cuda", "onnxruntime_providers_tensorrt", "nvcuda", "nvml",
};

/* The soname at p ("libcublasLt.so.11", also "libcudart,so.11.0" as typed); its length or 0. */
static size_t soname_at(const char *p, const char *end)
{
	size_t k = 3;

	if (end - p < 7 || strncmp(p, "lib", 3) != 0)
		return 0;
	while (p + k < end && (is_ident((unsigned char)p[k]) || p[k] == '-' || p[k] == '+'))
		k++;
	if (p + k + 3 > end || (p[k] != '.' && p[k] != ',') || strncmp(p + k + 1, "so", 2) != 0)
		return 0;
	k += 3;
	while (p + k + 1 < end && p[k] == '.' && isdigit((unsigned char)p[k + 1])) {
		k++;
		while (p + k < end && isdigit((unsigned char)p[k]))
			k++;
	}
	return k;
}

/* A Windows DLL name at p ("cudnn_ops_infer64_8.dll", "nvcuda.dll"); its length or 0. */
static size_t dll_at(const char *p, const char *end)
{
	size_t k = 0;

	while (p + k < end && is_dll_char((unsigned char)p[k]))
		k++;
	if (k < 2 || p + k + 4 > end || p[k] != '.' || strncasecmp(p + k + 1, "dll", 3) != 0 ||
	    (p + k + 4 < end && is_ident((unsigned char)p[k + 4])))
		return 0;
	return k + 4;
}

/* The family name of a DLL: Windows puts the major in the name ("cublas64_12", "cudart64_110",
 * "nvrtc64_70", "cudnn_ops_infer64_8"), so the bits and version after the base are dropped. */
static void dll_base(const char *lib, char *name, size_t n)
{
	size_t k = 0;
	const char *dot = strchr(lib, '.');
	size_t len = dot ? (size_t)(dot - lib) : strlen(lib);

	while (k < len && k + 1 < n)
		name[k] = lib[k], k++;
	name[k] = '\0';
	/* "..._8", "..._110": a trailing version */
	while (k > 0 && isdigit((unsigned char)name[k - 1]))
		k--;
	if (k > 0 && k < strlen(name) && name[k - 1] == '_')
		name[--k] = '\0';
	else
		k = strlen(name);
	if (k >= 2 && name[k - 2] == '6' && name[k - 1] == '4')
		name[k - 2] = '\0';
}

const char *ex_loader(const struct line *l, const char *base, char *lib, size_t n)
{
	const char *end = l->s + l->len, *pick = NULL;
	long anchor = line_find(l, "cannot open shared object file");
	bool after = false, dll = false;
	size_t pick_len = 0, k;
	char name[96];

	if (anchor < 0 && (anchor = line_find(l, "not defined in file ")) >= 0)
		after = true;
	if (anchor < 0)
		anchor = line_find(l, "not found");
	/* "X: cannot open shared object file": the last soname before the anchor; "not defined
	 * in file X": the first after it; else the first on the line */
	for (const char *p = l->s; p < end; p++) {
		bool start = p == l->s || !is_dll_char((unsigned char)p[-1]);
		size_t len = start ? soname_at(p, end) : 0;
		bool before = anchor >= 0 && p - l->s < anchor, is_dll = false;

		if (!len && start && (len = dll_at(p, end)) != 0)
			is_dll = true;
		if (!len)
			continue;
		if (!pick || (before && !after) || (after && !before && pick - l->s < anchor))
			pick = p, pick_len = len, dll = is_dll;
		p += len - 1;
	}
	if (strcmp(base, "libcuda-link-missing") == 0) {
		snprintf(lib, n, "libcuda.so");
		return base;
	}
	/* a missing or mismatched DLL that is not CUDA's is no CUDA finding */
	bool own = strcmp(base, "library-missing") == 0 || strcmp(base, "library-version-mismatch") == 0;

	if (!pick)
		return own ? NULL : base;
	snprintf(lib, n, "%.*s", (int)pick_len, pick);
	for (char *c = lib; *c; c++)
		if (*c == ',')
			*c = '.';
	/* the base name, compared against the families */
	k = 0;
	if (dll)
		dll_base(lib, name, sizeof(name));
	for (const char *p = lib + 3; !dll && *p && *p != '.' && k + 1 < sizeof(name); p++)
		name[k++] = *p;
	if (!dll)
		name[k] = '\0';
	if (strncmp(name, "nccl-net", 8) == 0 || strncmp(name, "nccl_net", 8) == 0)
		return NULL; /* an optional network plugin: NCCL falls back to its own transports */
	for (size_t i = 0; i < sizeof(cuda_libs) / sizeof(cuda_libs[0]); i++) {
		size_t cl = strlen(cuda_libs[i]);

		if (strncmp(name, cuda_libs[i], cl) != 0 || (name[cl] && strcmp(cuda_libs[i], "cudnn") != 0 &&
							     strcmp(cuda_libs[i], "nvinfer") != 0))
			continue;
		/* WinError 127 in the driver's DLL: an entry point the runtime needs is not in it */
		if (strcmp(base, "library-version-mismatch") == 0 && strcmp(name, "nvcuda") == 0)
			return "runtime-newer-than-driver";
		if (strcmp(base, "library-missing") != 0 && strcmp(base, "wsl-libcuda") != 0)
			return base;
		if (strcmp(name, "cuda") == 0)
			/* the unversioned libcuda.so is the development link; WSL2 keeps it off the
			 * loader's path. libcuda.so.1 missing is the driver missing. */
			return strcmp(lib, "libcuda.so") == 0 ? "wsl-libcuda" : "no-driver";
		/* the driver's own libraries: nvcuda.dll is Windows' libcuda.so.1 */
		if (strcmp(name, "nvidia-ml") == 0 || strcmp(name, "nvidia-ptxjitcompiler") == 0 ||
		    strcmp(name, "nvcuda") == 0 || strcmp(name, "nvml") == 0)
			return "no-driver";
		return "library-missing";
	}
	return own || strcmp(base, "wsl-libcuda") == 0 ? NULL : base;
}

bool ex_torch_dll(const struct line *l, const char *lib)
{
	static const char *const own[] = { "torch_cuda", "c10_cuda", "caffe2_nvrtc" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strncasecmp(lib, own[i], strlen(own[i])) == 0)
			return true;
	return line_find(l, "\\torch\\lib\\") >= 0;
}

/* a size in GiB after key on the line ("5.20GiB", "-1.05GiB"); false when absent */
static bool gib_after(const struct line *l, const char *key, double *out)
{
	long at = line_find(l, key);
	char *end;

	if (at < 0)
		return false;
	*out = strtod(l->s + at + strlen(key), &end);
	return end != l->s + at + (long)strlen(key) && end + 3 <= l->s + l->len && strncmp(end, "GiB", 3) == 0;
}

void ex_vllm_budget(struct explain_match *m, const struct line *l)
{
	static const char *const keys[4] = { "model weights take ", "non_torch_memory takes ",
					     "activation peak memory takes ", "reserved for KV Cache is " };
	double v[4];

	for (size_t i = 0; i < 4; i++)
		if (!gib_after(l, keys[i], &v[i]) || (i < 3 && v[i] < 0))
			return;
	memcpy(m->vllm_gib, v, sizeof(v));
	m->has_vllm = true;
}

/* the size in the parentheses after key ("system memory (164.8 GiB)"); false when absent */
static bool size_in_parens(const struct line *l, const char *key, double *bytes)
{
	long at = line_find(l, key);
	size_t used, off;

	if (at < 0)
		return false;
	off = (size_t)at + strlen(key);
	while (off < l->len && l->s[off] == ' ')
		off++;
	if (off >= l->len || l->s[off] != '(')
		return false;
	off++;
	return oom_parse_size(l->s + off, l->len - off, bytes, &used) == CD_OK && off + used < l->len &&
	       l->s[off + used] == ')';
}

void ex_host_mem(struct explain_match *m, const struct line *l)
{
	double need, avail;

	if (!size_in_parens(l, "system memory", &need) || !size_in_parens(l, "than is available", &avail))
		return;
	m->host_need = need;
	m->host_avail = avail;
	m->has_host_mem = true;
}

/* the size after key, quoted or not ("runner.vram=\"3.3 GiB\""); false when absent */
static bool size_after(const struct line *l, const char *key, double *bytes)
{
	long at = line_find(l, key);
	size_t off, used;

	if (at < 0)
		return false;
	off = (size_t)at + strlen(key);
	if (off < l->len && l->s[off] == '"')
		off++;
	return off < l->len && oom_parse_size(l->s + off, l->len - off, bytes, &used) == CD_OK;
}

void ex_ollama_vram(struct explain_match *m, const struct line *l)
{
	long at = line_find(l, "seconds=");
	double s, bytes = 0;
	char *end;

	if (at < 0 || m->has_vram_wait)
		return;
	/* the folded copy ends in a NUL where the line does not */
	s = strtod(l->low + at + 8, &end);
	if (end == l->low + at + 8 || !(s > 0 && s < 1e6))
		return;
	m->vram_wait_s = s;
	if (size_after(l, "runner.vram=", &bytes) || size_after(l, "runner.size=", &bytes))
		m->vram_gib = bytes / (1024.0 * 1024.0 * 1024.0);
	m->has_vram_wait = true;
}
