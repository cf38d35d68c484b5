/* Parsing of the FAKE_* environment that configures the fake driver libraries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

#include "fake_gpus.h"

void fake_call_log(const char *var, const char *name)
{
	const char *path = getenv(var);
	FILE *f = path && *path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "%s\n", name);
	fclose(f);
}

void fake_sleep_ms(long long ms)
{
	if (ms <= 0)
		return;
#ifdef _WIN32
	Sleep((DWORD)ms);
#else
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
#endif
}

static unsigned long long parse_size(const char *s, const char *end, bool *ok)
{
	char *unit;
	unsigned long long v = strtoull(s, &unit, 10);
	size_t ulen = (size_t)(end - unit);

	*ok = unit != s;
	if (ulen == 0)
		return v;
	if (ulen == 3 && strncmp(unit, "GiB", 3) == 0)
		return v << 30;
	if (ulen == 3 && strncmp(unit, "MiB", 3) == 0)
		return v << 20;
	if (ulen == 3 && strncmp(unit, "KiB", 3) == 0)
		return v << 10;
	if (ulen == 2 && strncmp(unit, "GB", 2) == 0)
		return v * 1000000000ULL;
	if (ulen == 2 && strncmp(unit, "MB", 2) == 0)
		return v * 1000000ULL;
	*ok = false;
	return 0;
}

/* A fixed, name-dependent UUID so CUDA and NVML fakes agree on it. */
static void make_uuid(int index, const char *name, unsigned char uuid[16])
{
	unsigned long long h = 1469598103934665603ULL;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (int i = 0; i < 16; i++) {
		h = (h ^ (unsigned long long)(index + i)) * 1099511628211ULL;
		uuid[i] = (unsigned char)(h >> 56);
	}
}

static bool parse_one(const char *s, const char *end, int index, struct fake_gpu *g)
{
	const char *f[5];
	int nf = 0;
	const char *p = s;
	bool ok;

	memset(g, 0, sizeof(*g));
	f[nf++] = s;
	for (; p < end && nf < 5; p++)
		if (*p == ':')
			f[nf++] = p + 1;
	if (nf < 3)
		return false;
	size_t nlen = (size_t)(f[1] - 1 - f[0]);
	if (nlen == 0 || nlen >= sizeof(g->name))
		return false;
	memcpy(g->name, f[0], nlen);
	if (sscanf(f[1], "%d.%d", &g->cc_major, &g->cc_minor) != 2)
		return false;
	const char *mem_end = nf > 3 ? f[3] - 1 : end;
	g->memory_bytes = parse_size(f[2], mem_end, &ok);
	if (!ok)
		return false;
	struct fake_cc_defaults d;
	fake_cc_defaults(g->cc_major, g->cc_minor, &d);
	g->sm_count = nf > 3 ? atoi(f[3]) : d.sm_count;
	if (g->sm_count <= 0)
		g->sm_count = d.sm_count;
	g->pci_domain = 0;
	g->pci_bus = 0x18 + 0x10 * index;
	g->pci_device = 0;
	make_uuid(index, g->name, g->uuid);
	g->index = index;
	return true;
}

int fake_gpus_parse(struct fake_gpu out[FAKE_MAX_GPUS])
{
	const char *spec = getenv("FAKE_GPUS");
	int n = 0;

	if (!spec)
		spec = "NVIDIA H200:9.0:141GiB";
	while (*spec && n < FAKE_MAX_GPUS) {
		const char *end = strchr(spec, ';');
		if (!end)
			end = spec + strlen(spec);
		if (end > spec && parse_one(spec, end, n, &out[n]))
			n++;
		spec = *end ? end + 1 : end;
	}
	return n;
}

void fake_uuid_text(const unsigned char u[16], char *buf, unsigned long len)
{
	snprintf(buf, len,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

long long fake_env_int(const char *name, long long dflt)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return dflt;
	long long v = strtoll(s, &end, 0);
	return end == s ? dflt : v;
}

int fake_env_gpu_values(const char *name, int gpu, unsigned long long *vals, int max)
{
	const char *s = getenv(name);

	while (s && *s) {
		char *end;
		long idx = strtol(s, &end, 10);
		int n = 0;

		while (end && *end == ':' && n < max) {
			const char *v = end + 1;
			if (strncmp(v, "na", 2) == 0) {
				vals[n++] = ~0ULL;
				end = (char *)v + 2;
				continue;
			}
			vals[n++] = strtoull(v, &end, 0);
			if (end == v)
				break;
			/* sizes may carry a unit */
			if (strncmp(end, "GiB", 3) == 0) { vals[n - 1] <<= 30; end += 3; }
			else if (strncmp(end, "MiB", 3) == 0) { vals[n - 1] <<= 20; end += 3; }
		}
		if (idx == gpu && n > 0)
			return n;
		s = strchr(s, ';');
		if (s)
			s++;
	}
	return 0;
}

bool fake_env_has_word(const char *name, const char *word)
{
	const char *s = getenv(name);
	size_t wl = strlen(word);

	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t l = end ? (size_t)(end - s) : strlen(s);
		if (l == wl && strncmp(s, word, wl) == 0)
			return true;
		s = end ? end + 1 : NULL;
	}
	return false;
}

bool fake_env_has_gpu_word(const char *name, int gpu, const char *word)
{
	const char *s = getenv(name);
	size_t wl = strlen(word);

	while (s && *s) {
		const char *end = strchr(s, ','), *w = s;
		size_t l = end ? (size_t)(end - s) : strlen(s);
		char *colon;
		long idx = strtol(s, &colon, 10);

		if (colon != s && *colon == ':' && colon < s + l) { /* "1:ecc": GPU 1 only */
			w = colon + 1;
			l -= (size_t)(w - s);
			if (idx != gpu)
				l = 0;
		}
		if (l == wl && strncmp(w, word, wl) == 0)
			return true;
		s = end ? end + 1 : NULL;
	}
	return false;
}

long long fake_env_gpu_int(const char *name, int gpu, long long dflt)
{
	const char *s = getenv(name);
	unsigned long long v;

	if (!s || !strchr(s, ':'))
		return fake_env_int(name, dflt);
	return fake_env_gpu_values(name, gpu, &v, 1) == 1 ? (long long)v : dflt;
}

void fake_cc_defaults(int major, int minor, struct fake_cc_defaults *d)
{
	/* Figures as deviceQuery prints them for a typical part of each CC. */
	int cc = major * 10 + minor;

	*d = (struct fake_cc_defaults){ 46, 102400, 101376, 4 << 20, 256, 1700000, 7000000, 1536, 16, 4 };
	switch (cc) {
	case 70: *d = (struct fake_cc_defaults){ 80, 98304, 98304, 6 << 20, 4096, 1530000, 877000, 2048, 32, 3 }; break;
	case 75: *d = (struct fake_cc_defaults){ 40, 65536, 65536, 4 << 20, 256, 1590000, 5001000, 1024, 16, 3 }; break;
	case 80: *d = (struct fake_cc_defaults){ 108, 167936, 166912, 40 << 20, 5120, 1410000, 1215000, 2048, 32, 4 }; break;
	case 86: *d = (struct fake_cc_defaults){ 82, 102400, 101376, 6 << 20, 384, 1695000, 9751000, 1536, 16, 4 }; break;
	case 89: *d = (struct fake_cc_defaults){ 34, 102400, 101376, 32 << 20, 128, 2535000, 9001000, 1536, 24, 4 }; break;
	case 90: *d = (struct fake_cc_defaults){ 132, 233472, 232448, 60 << 20, 6144, 1980000, 3201000, 2048, 32, 5 }; break;
	case 100: *d = (struct fake_cc_defaults){ 148, 233472, 232448, 126 << 20, 8192, 1965000, 3996000, 2048, 32, 6 }; break;
	case 120: *d = (struct fake_cc_defaults){ 36, 102400, 101376, 32 << 20, 128, 2572000, 14001000, 1536, 24, 5 }; break;
	default: break;
	}
}
