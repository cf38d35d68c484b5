/* A GPU and a build that cannot run on it, told in prose (prose_arch.h): each fact read off the
 * line its marker is on, then judged against CUDA 13's floor or the wheel's arch list. */
#include "explain/prose_arch.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kb/frameworks.h"
#include "kb/kb.h"
#include "util/err.h"

static const struct prose_marker markers[] = {
	{ "compute capability", PROSE_GPU },
	{ "sm_", PROSE_GPU },
	{ "sm3", PROSE_GPU },
	{ "sm5", PROSE_GPU },
	{ "sm6", PROSE_GPU },
	{ "sm7", PROSE_GPU },
	{ "kepler", PROSE_GPU },
	{ "maxwell", PROSE_GPU },
	{ "pascal", PROSE_GPU },
	{ "volta", PROSE_GPU },
	{ "gtx", PROSE_GPU },
	{ "v100", PROSE_GPU },
	{ "p100", PROSE_GPU },
	{ "p40", PROSE_GPU },
	{ "k80", PROSE_GPU },
	{ "m40", PROSE_GPU },
	{ "cuda13", PROSE_CUDA13 },
	{ "cuda 13", PROSE_CUDA13 },
	{ "cuda-13", PROSE_CUDA13 },
	{ "cuda_13", PROSE_CUDA13 },
	{ "cu130", PROSE_CUDA13 },
	{ "+cu", PROSE_WHEEL },
	{ "+ cu", PROSE_WHEEL },
	{ "not work", PROSE_FAILS },
	{ "dont work", PROSE_FAILS },
	{ "don't work", PROSE_FAILS },
	{ "doesn't work", PROSE_FAILS },
	{ "not support", PROSE_FAILS },
	{ "n't support", PROSE_FAILS },
	{ "no supported", PROSE_FAILS },
	{ "unsupported", PROSE_FAILS },
	{ "incompatib", PROSE_FAILS },
	{ "cannot be used", PROSE_FAILS },
};

const struct prose_marker *prose_arch_markers(size_t *n)
{
	*n = sizeof(markers) / sizeof(markers[0]);
	return markers;
}

static bool word_start(const char *low, const char *at)
{
	return at == low || !isalnum((unsigned char)at[-1]);
}

/* "7.0" at p (blanks, ':' and "of" before it skipped): 70, else 0 */
static int cc_at(const char *p)
{
	while (*p == ' ' || *p == ':' || *p == '=' || *p == '(')
		p++;
	if (strncmp(p, "of ", 3) == 0)
		p += 3;
	if (isdigit((unsigned char)p[0]) && p[1] == '.' && isdigit((unsigned char)p[2]) &&
	    !isdigit((unsigned char)p[3]))
		return (p[0] - '0') * 10 + (p[2] - '0');
	return 0;
}

/* "sm_70", "sm70", "SM 61": the sm number, else 0 */
static int sm_at(const char *low, const char *p)
{
	int v = 0, k = 0;

	if (!word_start(low, p))
		return 0;
	p += 2;
	if (*p == '_' || *p == ' ')
		p++;
	while (isdigit((unsigned char)p[k]) && k < 4)
		v = v * 10 + (p[k++] - '0');
	return (k == 2 || k == 3) && !isalnum((unsigned char)p[k]) && v >= 30 && v <= 121 ? v : 0;
}

/* A GPU the kb knows by the name at p ("gtx 1070", "v100"), its sm number, else 0 */
static int named_at(const char *low, const char *p, const char *marker)
{
	char name[32];
	struct gpu_spec spec;
	char err[CD_ERRMSG];
	size_t k = 0, m = strlen(marker);

	if (!word_start(low, p))
		return 0;
	if (strcmp(marker, "gtx") == 0) {
		const char *d = p + 3;

		if (*d == ' ')
			d++;
		while (isdigit((unsigned char)d[k]) && k < 4)
			k++;
		if (k < 3 || isalnum((unsigned char)d[k]))
			return 0;
		snprintf(name, sizeof(name), "GTX %.*s%s", (int)k, d, strncmp(d + k, " ti", 3) == 0 ? " Ti" : "");
	} else {
		if (isalnum((unsigned char)p[m]))
			return 0;
		for (k = 0; k < m && k + 1 < sizeof(name); k++)
			name[k] = (char)toupper((unsigned char)p[k]);
		name[k] = '\0';
	}
	return kb_parse_gpu_spec(name, &spec, err) == CD_OK ? spec.arch.num : 0;
}

static int gpu_arch(const char *low, const char *at, const char *marker)
{
	static const struct {
		const char *family;
		int arch;
	} families[] = { { "kepler", 30 }, { "maxwell", 50 }, { "pascal", 60 }, { "volta", 70 } };

	if (strcmp(marker, "compute capability") == 0)
		return cc_at(at + strlen(marker));
	if (strncmp(marker, "sm", 2) == 0)
		return sm_at(low, at);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strcmp(marker, families[i].family) == 0)
			return word_start(low, at) ? families[i].arch : 0;
	return named_at(low, at, marker);
}

/* "PyTorch 2.8.0 + cu129", "torch==2.8.0+cu129": the release and variant, when the kb has them */
static bool wheel_at(struct prose_arch *pa, const char *low, const char *cu)
{
	const char *t = strstr(low, "torch"), *v;
	size_t k = 0;

	if (!t || t > cu)
		return false;
	cu = strstr(cu, "cu");
	if (!cu || !isdigit((unsigned char)cu[2]) || !isdigit((unsigned char)cu[3]) || !isdigit((unsigned char)cu[4]))
		return false;
	for (v = t + 5; v < cu && !isdigit((unsigned char)*v); v++)
		;
	while (v + k < cu && (isdigit((unsigned char)v[k]) || v[k] == '.') && k + 1 < sizeof(pa->release))
		k++;
	if (k < 3)
		return false;
	snprintf(pa->release, sizeof(pa->release), "%.*s", (int)k, v);
	if (pa->release[k - 1] == '.')
		pa->release[k - 1] = '\0';
	snprintf(pa->variant, sizeof(pa->variant), "%.5s", cu);
	return true;
}

bool prose_arch_hit(struct prose_arch *pa, enum prose_kind kind, const char *s, const char *low, size_t len)
{
	(void)s;
	(void)len;
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		const char *at;

		if (markers[i].kind != kind)
			continue;
		for (at = strstr(low, markers[i].text); at; at = strstr(at + 1, markers[i].text)) {
			int a;

			switch (kind) {
			case PROSE_GPU:
				if ((a = gpu_arch(low, at, markers[i].text)) > 0 && (!pa->arch || a < pa->arch)) {
					pa->arch = a;
					return true;
				}
				break;
			case PROSE_CUDA13:
				if (!isdigit((unsigned char)at[strlen(markers[i].text)]))
					pa->cuda13 = true;
				break;
			case PROSE_WHEEL:
				if (!pa->release[0] && wheel_at(pa, low, at))
					return false;
				break;
			case PROSE_FAILS:
				pa->fails = true;
				break;
			}
		}
	}
	return false;
}

/* Whether a wheel's SASS or PTX runs on sm arch: SASS of its own major at or below its minor,
 * PTX at or below it */
static bool wheel_runs(const struct kb_torch_build *b, int arch)
{
	for (size_t k = 0; k < b->n_archs; k++)
		if (b->archs[k].num / 10 == arch / 10 && b->archs[k].num <= arch)
			return true;
	return b->has_ptx && b->ptx.num <= arch;
}

bool prose_arch_no_kernel(const struct prose_arch *pa)
{
	char err[CD_ERRMSG];

	if (!pa->fails || pa->arch <= 0)
		return false;
	/* CUDA 13 builds nothing below Turing (sm_75) */
	if (pa->cuda13 && pa->arch < 75)
		return true;
	if (!pa->release[0] || kb_fw_load(err) != CD_OK)
		return false;
	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);

		if (strcmp(b->release, pa->release) == 0 && strcmp(b->variant, pa->variant) == 0)
			return !wheel_runs(b, pa->arch);
	}
	return false;
}
