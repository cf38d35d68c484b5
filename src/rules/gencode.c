/* nvcc target selection over the kb tables: which SASS and PTX to build, and in which
 * spelling nvcc, CMake and PyTorch want them. */
#include <stdio.h>
#include <string.h>

#include "rules/gencode.h"
#include "rules/plan.h"
#include "util/err.h"

static void add_sass(struct gencode_plan *p, struct kb_arch a)
{
	size_t i = 0;

	while (i < p->n_sass && kb_arch_cmp(p->sass[i], a) < 0)
		i++;
	if (i < p->n_sass && kb_arch_eq(p->sass[i], a))
		return;
	memmove(&p->sass[i + 1], &p->sass[i], (p->n_sass - i) * sizeof(p->sass[0]));
	p->sass[i] = a;
	p->n_sass++;
}

/* appends to buf (size n) at *used; silently stops at the end (buffers are sized for
 * GENCODE_MAX targets) */
static void put(char *buf, size_t n, size_t *used, const char *fmt, int num, char suffix)
{
	int w;

	if (*used >= n)
		return;
	if (suffix)
		w = snprintf(buf + *used, n - *used, fmt, num, suffix, num, suffix);
	else
		w = snprintf(buf + *used, n - *used, fmt, num, num);
	if (w > 0)
		*used += (size_t)w;
}

static void sep(char *buf, size_t n, size_t *used, const char *s)
{
	if (*used && *used < n) {
		int w = snprintf(buf + *used, n - *used, "%s", s);

		if (w > 0)
			*used += (size_t)w;
	}
}

static void spell(struct gencode_plan *p)
{
	size_t un = 0, uc = 0, ut = 0;
	bool ptx_in_sass = false;

	p->nvcc[0] = p->cmake[0] = p->torch[0] = '\0';
	for (size_t i = 0; i < p->n_sass; i++) {
		struct kb_arch a = p->sass[i];
		bool with_ptx = p->has_ptx && !a.suffix && a.num == p->ptx.num;

		ptx_in_sass |= with_ptx;
		sep(p->nvcc, sizeof(p->nvcc), &un, " ");
		if (a.suffix)
			put(p->nvcc, sizeof(p->nvcc), &un, "-gencode arch=compute_%d%c,code=sm_%d%c",
			    a.num, a.suffix);
		else
			put(p->nvcc, sizeof(p->nvcc), &un, "-gencode arch=compute_%d,code=sm_%d", a.num, 0);
		sep(p->cmake, sizeof(p->cmake), &uc, ";");
		if (a.suffix)
			put(p->cmake, sizeof(p->cmake), &uc, "%d%c-real", a.num, a.suffix);
		else if (with_ptx)
			uc += (size_t)snprintf(p->cmake + uc, sizeof(p->cmake) - uc, "%d", a.num);
		else
			uc += (size_t)snprintf(p->cmake + uc, sizeof(p->cmake) - uc, "%d-real", a.num);
		sep(p->torch, sizeof(p->torch), &ut, ";");
		if (ut < sizeof(p->torch))
			ut += (size_t)snprintf(p->torch + ut, sizeof(p->torch) - ut, "%d.%d%s%s",
					       a.num / 10, a.num % 10, a.suffix == 'a' ? "a"
					       : a.suffix == 'f' ? "f" : "", with_ptx ? "+PTX" : "");
	}
	if (p->has_ptx) {
		sep(p->nvcc, sizeof(p->nvcc), &un, " ");
		put(p->nvcc, sizeof(p->nvcc), &un, "-gencode arch=compute_%d,code=compute_%d",
		    p->ptx.num, 0);
		if (!ptx_in_sass) {
			sep(p->cmake, sizeof(p->cmake), &uc, ";");
			if (uc < sizeof(p->cmake))
				uc += (size_t)snprintf(p->cmake + uc, sizeof(p->cmake) - uc, "%d-virtual",
						       p->ptx.num);
			sep(p->torch, sizeof(p->torch), &ut, ";");
			if (ut < sizeof(p->torch))
				ut += (size_t)snprintf(p->torch + ut, sizeof(p->torch) - ut, "%d.%d+PTX",
						       p->ptx.num / 10, p->ptx.num % 10);
		}
	}
	snprintf(p->makefile, sizeof(p->makefile), "NVCC_GENCODE := %s", p->nvcc);
}

static bool older(const struct kb_toolkit *a, const struct kb_toolkit *b)
{
	return version_cmp(&a->release, &b->release) < 0;
}

int gencode_plan(const struct gpu_spec *specs, size_t n, const struct kb_toolkit *tk, bool ptx,
		 struct gencode_plan *p, char *err)
{
	const struct kb_ptx_isa *isa;

	memset(p, 0, sizeof(*p));
	if (n == 0 || n > GENCODE_MAX)
		return cd_fail(err, CD_EUSAGE, "give 1 to %d GPUs", GENCODE_MAX);
	if (!tk || !tk->archs_known)
		return cd_fail(err, CD_EUSAGE, "the tables do not know which archs CUDA %s builds",
			       tk ? tk->release_text : "?");
	p->toolkit = tk;
	for (size_t i = 0; i < n; i++) {
		struct gencode_target *t = &p->t[p->n++];

		t->spec = specs[i];
		if (kb_arch_toolkit_range(t->spec.arch, &t->min_toolkit, &t->max_toolkit) != CD_OK) {
			t->refusal = "toolkit-cannot-target-gpu";
			p->refused = true;
			p->no_common_toolkit = true;
			continue;
		}
		if (!p->min_toolkit || older(p->min_toolkit, t->min_toolkit))
			p->min_toolkit = t->min_toolkit;
		if (t->max_toolkit && (!p->max_toolkit || older(t->max_toolkit, p->max_toolkit)))
			p->max_toolkit = t->max_toolkit;
		if (!kb_toolkit_accepts(tk, t->spec.arch)) {
			t->refusal = older(tk, t->min_toolkit) ? "toolkit-cannot-target-gpu"
							       : "arch-dropped-by-toolkit";
			p->refused = true;
			continue;
		}
		add_sass(p, t->spec.arch);
	}
	if (p->min_toolkit && p->max_toolkit && older(p->max_toolkit, p->min_toolkit))
		p->no_common_toolkit = true;
	/* PTX of the newest plain arch: 'a' and 'f' PTX does not carry to later GPUs */
	for (size_t i = 0; ptx && i < p->n_sass; i++) {
		struct kb_arch plain = { p->sass[i].num, 0 };

		if (kb_toolkit_accepts(tk, plain) && (!p->has_ptx || plain.num >= p->ptx.num)) {
			p->ptx = plain;
			p->has_ptx = true;
		}
	}
	if (p->n_sass)
		spell(p);
	p->min_driver = tk->has_minor_compat ? tk->minor_compat_floor_text
			: tk->has_min_driver ? tk->min_driver_text : "?";
	p->min_driver_gpu = -1;
	p->max_branch_gpu = -1;
	{
		/* the binary runs only where the driver also knows each GPU: from the branch of the
		 * first toolkit that targets it (RTX 5090: 12.8's R570), up to the GPU's last branch */
		struct version floor = tk->has_minor_compat ? tk->minor_compat_floor : tk->min_driver;
		bool known = tk->has_minor_compat || tk->has_min_driver;

		for (size_t i = 0; i < p->n; i++) {
			const struct gencode_target *t = &p->t[i];
			struct plan_gpu g;

			if (t->refusal)
				continue;
			if (t->min_toolkit && t->min_toolkit->has_min_driver &&
			    (!known || version_cmp(&t->min_toolkit->min_driver, &floor) > 0)) {
				floor = t->min_toolkit->min_driver;
				known = true;
				p->min_driver = t->min_toolkit->min_driver_text;
				p->min_driver_gpu = (long)i;
			}
			plan_gpu_support(&t->spec, &g);
			if (g.last_branch && !g.jetson && (!p->max_branch || g.last_branch < p->max_branch)) {
				p->max_branch = g.last_branch;
				p->max_branch_gpu = (long)i;
			}
		}
	}
	isa = kb_ptx_isa_find(tk->ptx_major, tk->ptx_minor);
	p->ptx_min_driver = isa && isa->has_min_driver ? isa->min_driver_text : "?";
	return CD_OK;
}

size_t gencode_all_archs(const struct kb_toolkit *tk, bool major_only, struct gpu_spec *out,
			 size_t max)
{
	size_t n = 0;

	for (size_t i = 0; tk && tk->archs_known && i < tk->n_archs && n < max; i++) {
		struct kb_arch a = tk->archs[i];
		bool seen_major = false;

		if (a.suffix)
			continue;
		for (size_t k = 0; k < n; k++)
			seen_major |= kb_arch_major(out[k].arch) == kb_arch_major(a);
		if (major_only && seen_major)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].arch = a;
		out[n].cc_major = kb_arch_major(a);
		out[n].cc_minor = kb_arch_minor(a);
		kb_arch_format(a, "sm_", out[n].label, sizeof(out[n].label));
		n++;
	}
	return n;
}
