/* A binary's runtime against a driver, and a GPU against a driver branch, through the kb's
 * toolkit table (each release's minimum driver and the minor-version floor of its family). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "rules/driver_need.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/elf.h"
#include "binfmt/elf_needed.h"
#include "binfmt/pe.h"
#include "kb/kb.h"
#include "rules/catalogue.h"
#include "rules/plan.h"
#include "rules/rules.h"
#include "util/err.h"

/* bounded search for needle in data */
static const unsigned char *find(const unsigned char *data, size_t size, const char *needle)
{
	return memmem(data, size, needle, strlen(needle));
}

/* The minimum driver of CUDA major's family: the minor-version floor, else the X.0 release's own
 * (for a Windows program the X.0 release's Windows minimum, none when the kb does not know it);
 * and the family's first driver branch (0 unknown). False when the kb has no X.0. */
static bool family_floor(int major, bool windows, struct version *min, char *text, size_t n, int *branch)
{
	struct version first = { major, 0, 0, 2 };
	const struct kb_toolkit *t = kb_toolkit_find(&first);
	const struct kb_driver_branch *b;

	*branch = 0;
	if (!t)
		return false;
	if (windows) {
		if (version_parse(t->min_windows_driver, min) == CD_OK)
			snprintf(text, n, "%s", t->min_windows_driver);
	} else if (t->has_minor_compat) {
		*min = t->minor_compat_floor;
		snprintf(text, n, "%s", t->minor_compat_floor_text);
	} else if (t->has_min_driver) {
		*min = t->min_driver;
		snprintf(text, n, "%s", t->min_driver_text);
	}
	b = kb_driver_branch_for_cuda(&first);
	*branch = b ? b->branch : 0;
	return true;
}

void runtime_need_vars(int major, struct finding_vars *v)
{
	struct version min = { 0 };
	char text[32] = "";
	int branch;

	finding_var(v, "runtime_major", "%d", major);
	if (kb_load(NULL) != CD_OK || !family_floor(major, false, &min, text, sizeof text, &branch))
		return;
	if (text[0])
		finding_var(v, "need_driver", "%s", text);
	if (branch)
		finding_var(v, "need_branch", "%d", branch);
}

void runtime_need_of_cuda(const struct version *cuda, const char *how, struct runtime_need *out)
{
	memset(out, 0, sizeof(*out));
	if (!cuda->parts || cuda->major < 7 || kb_load(NULL) != CD_OK)
		return;
	out->known = true;
	out->cuda = *cuda;
	snprintf(out->how, sizeof(out->how), "%s", how);
	family_floor(cuda->major, false, &out->min_driver, out->min_driver_text, sizeof out->min_driver_text, &out->branch);
}

void runtime_need_vars_for(int major, const struct gpu_spec *gpus, size_t n, struct finding_vars *v)
{
	const char *nb;
	struct plan_branch_advice a;

	runtime_need_vars(major, v);
	if (!n || !(nb = finding_var_get(v, "need_branch")) || plan_branch_advice(gpus, n, atoi(nb), &a) != CD_OK)
		return;
	plan_advice_vars(&a, atoi(nb), v);
}

void runtime_need_of_library(const char *path, struct runtime_need *out)
{
	/* the toolkit libraries whose soname's major (a Windows DLL's number) is the CUDA major they
	 * belong to (cuFFT's, cuSPARSE's and cuRAND's are not) */
	static const char *const libs[] = { "libcudart.so.", "libcublas.so.", "libcublasLt.so.", "libnvrtc.so.",
					    "libnvJitLink.so." };
	static const char *const dlls[] = { "cudart", "cublas", "cublasLt", "nvrtc", "nvJitLink" };
	const char *base = strrchr(path, '/');
	struct version cuda = { 0 };
	char how[160];

	memset(out, 0, sizeof(*out));
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (strncmp(base, libs[i], strlen(libs[i])) != 0)
			continue;
		cuda.major = atoi(base + strlen(libs[i]));
		cuda.parts = 1;
		if (cuda.major < 11 || cuda.major > 99)
			return;
		snprintf(how, sizeof(how), "%.100s belongs to CUDA %d.x (its soname's major)", base, cuda.major);
		runtime_need_of_cuda(&cuda, how, out);
		return;
	}
	for (size_t i = 0; i < sizeof(dlls) / sizeof(dlls[0]); i++) {
		if (!version_of_dll_name(base, dlls[i], &cuda) || cuda.major < 11 || cuda.major > 99)
			continue;
		snprintf(how, sizeof(how), "%.100s belongs to CUDA %d.x (its name's number)", base, cuda.major);
		runtime_need_of_cuda(&cuda, how, out);
		out->windows = true;
		memset(&out->min_driver, 0, sizeof(out->min_driver));
		out->min_driver_text[0] = '\0';
		family_floor(cuda.major, true, &out->min_driver, out->min_driver_text, sizeof out->min_driver_text,
			     &out->branch);
		return;
	}
}

/* needle inside the named section, NULL when either is missing: a 500 MB library is searched
 * in the few sections that can hold it, not read whole */
static const unsigned char *find_in(const struct elf_file *e, const char *section, const char *needle)
{
	struct elf_section sec;
	char err[CD_ERRMSG];
	const unsigned char *b;
	size_t len = 0;

	if (elf_find_section(e, section, &sec, err) != CD_OK || !(b = elf_section_bytes(e, &sec, &len)))
		return NULL;
	return find(b, len, needle);
}

/* The release nvcc wrote after "Cuda compilation tools, release " at rel: a static runtime's */
static void static_release(const unsigned char *data, size_t size, const unsigned char *rel, struct runtime_need *out)
{
	char txt[16];
	size_t k = 0, off = (size_t)(rel - data) + 32;

	while (off + k < size && k + 1 < sizeof(txt) && ((data[off + k] >= '0' && data[off + k] <= '9') ||
							 data[off + k] == '.'))
		k++;
	memcpy(txt, data + off, k);
	txt[k] = '\0';
	if (version_parse(txt, &out->cuda) != CD_OK || out->cuda.major < 7)
		return;
	out->known = out->is_static = true;
	snprintf(out->how, sizeof(out->how), "a static CUDA runtime (Cuda compilation tools, release %s)", txt);
	family_floor(out->cuda.major, out->windows, &out->min_driver, out->min_driver_text, sizeof out->min_driver_text,
		     &out->branch);
}

static bool cudart_dll_release(const char *name, struct version *v)
{
	return version_of_dll_name(name, "cudart", v);
}

/* A PE image: cudart64_*.dll among its imports (direct or delay-loaded), else a static runtime's
 * release in .nv_fatb (an image registers the containers there through one runtime or the other) */
static void runtime_need_of_pe(const unsigned char *data, size_t size, struct runtime_need *out)
{
	struct pe_file pe;
	struct pe_section s;
	const char *imports[64];
	char err[CD_ERRMSG];
	size_t n;

	if (pe_open(&pe, data, size, err) != CD_OK)
		return;
	out->windows = true;
	n = pe_imports(&pe, imports, 64);
	for (size_t i = 0; i < n; i++) {
		if (!pe_dll_name_ok(imports[i]) || !cudart_dll_release(imports[i], &out->cuda))
			continue;
		out->known = true;
		snprintf(out->how, sizeof(out->how), "imports %.100s", imports[i]);
		family_floor(out->cuda.major, true, &out->min_driver, out->min_driver_text, sizeof out->min_driver_text,
			     &out->branch);
		return;
	}
	for (size_t i = 0; i < pe.n_sections; i++) {
		const unsigned char *rel;
		if (pe_section_at(&pe, i, &s, err) != CD_OK || !pe_section_is(&s, PE_SEC_NV_FATBIN) ||
		    !in_bounds(s.offset, s.size, size))
			continue;
		if ((rel = find(data + s.offset, (size_t)s.size, RUNTIME_RELEASE_MARK)))
			static_release(data, size, rel, out);
		return;
	}
}

void runtime_need_of(const unsigned char *data, size_t size, struct runtime_need *out)
{
	struct elf_file e;
	const char *needed[64];
	char err[CD_ERRMSG];
	const unsigned char *rel;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (kb_load(err) != CD_OK)
		return;
	if (pe_has_magic(data, size)) {
		runtime_need_of_pe(data, size, out);
		return;
	}
	if (!elf_has_magic(data, size) || elf_open(&e, data, size, err) != CD_OK)
		return;
	n = elf_needed(&e, needed, 64);
	for (size_t i = 0; i < n && i < 64; i++) {
		if (strncmp(needed[i], "libcudart.so.", 13) != 0 || version_parse(needed[i] + 13, &out->cuda) != CD_OK)
			continue;
		out->known = true;
		snprintf(out->how, sizeof(out->how), "NEEDED %s", needed[i]);
		family_floor(out->cuda.major, out->windows, &out->min_driver, out->min_driver_text,
			     sizeof out->min_driver_text, &out->branch);
		return;
	}
	/* a static runtime (nvcc's default) leaves its objects' names in the symbol table and
	 * nvcc's release in the device code it embedded (the PTX and cubins of .nv_fatbin) */
	if (!find_in(&e, ".strtab", RUNTIME_STATIC_MARK) || !(rel = find_in(&e, ".nv_fatbin", RUNTIME_RELEASE_MARK)))
		return;
	static_release(data, size, rel, out);
}

/* the driver's CUDA version as a version */
static struct version driver_cuda(const struct arch_driver *d)
{
	return version_from_cuda_int(d->cuda);
}

struct driver_need_verdict driver_need_verdict(const struct runtime_need *n, const struct arch_driver *d)
{
	struct driver_need_verdict v = { 0 };
	struct version dv, dc = driver_cuda(d);

	if (!n->known || !d->known || !d->cuda)
		return v;
	v.judged = true;
	if (d->version[0] && version_parse(d->version, &dv) == CD_OK && dv.major >= 100 && n->min_driver.major)
		v.fails = version_cmp(&dv, &n->min_driver) < 0;
	else
		v.fails = dc.major < n->cuda.major;
	return v;
}

void driver_need_vars(const struct runtime_need *n, const struct arch_driver *d, const struct arch_target *t,
		      struct finding_vars *v)
{
	struct version dc = driver_cuda(d);
	struct gpu_spec specs[ARCH_MAX_GPUS];
	size_t ns = 0;

	for (size_t i = 0; t && i < t->n_gpus; i++)
		plan_spec_of(t->gpus[i].cc, t->gpus[i].name, &specs[ns++]);
	runtime_need_vars_for(n->cuda.major, specs, ns, v);
	if (n->windows && n->min_driver_text[0])
		finding_var(v, "need_driver", "%s", n->min_driver_text); /* Windows numbering */
	if (d->known && d->cuda) {
		rules_cuda_vars(d->version, &dc, v);
		if (d->version[0]) {
			finding_var(v, "driver_version", "%s", d->version);
			finding_var(v, "driver_branch", "%.*s", (int)strcspn(d->version, "."), d->version);
		}
	}
}

int driver_need_finding_to(struct report *r, const char *subject, const struct runtime_need *n,
			   const struct arch_target *t, const char *plan_fix, const char *plan_why, struct finding **out)
{
	const struct arch_driver *d = &t->driver;
	struct version dc = driver_cuda(d);
	struct finding_vars fv;
	struct finding *f;

	*out = NULL;
	finding_vars_init(&fv);
	driver_need_vars(n, d, t, &fv);
	if (plan_fix && plan_fix[0])
		finding_var(&fv, "plan_fix", "%s", plan_fix);
	if (plan_fix && plan_fix[0] && plan_why && plan_why[0])
		finding_var(&fv, "plan_why", "%s", plan_why);
	f = finding_make(r, SEV_CATALOGUE, "runtime-newer-than-driver", subject, &fv);
	if (!f || finding_evidence(f, "%s", n->how) ||
	    (n->min_driver_text[0] && !n->windows &&
	     finding_evidence(f, "CUDA %d.x runs on driver %s or newer (minor-version compatibility within the major "
				 "release)", n->cuda.major, n->min_driver_text)) ||
	    (n->min_driver_text[0] && n->windows &&
	     finding_evidence(f, "CUDA %d.0 for Windows needs driver %s or newer", n->cuda.major,
			      n->min_driver_text)) ||
	    finding_evidence(f, "judged against %s%s (CUDA %d.%d, %s)", d->version[0] ? "driver " : "a driver",
			     d->version, dc.major, dc.minor, d->source))
		return CD_ENOMEM;
	*out = f;
	return CD_OK;
}

int driver_need_finding(struct report *r, const char *subject, const struct runtime_need *n,
			const struct arch_target *t, const struct driver_need_verdict *v)
{
	struct finding *f;

	return v->fails ? driver_need_finding_to(r, subject, n, t, NULL, NULL, &f) : CD_OK;
}

struct driver_gpu_verdict driver_gpu_verdict(const struct arch_gpu *g, const struct arch_driver *d)
{
	struct driver_gpu_verdict v = { 0 };
	struct kb_arch a = { (int)g->cc, 0 };
	const struct kb_toolkit *last;
	struct version dv, dc = driver_cuda(d);

	if (!d->known || !d->cuda || kb_arch_toolkit_range(a, &v.first, &last) != CD_OK || !v.first) {
		v.first = NULL;
		return v;
	}
	v.judged = true;
	/* the oldest driver that supports a GPU is the first toolkit's minimum driver */
	if (d->version[0] && v.first->has_min_driver && version_parse(d->version, &dv) == CD_OK && dv.major >= 100)
		v.fails = version_cmp(&dv, &v.first->min_driver) < 0;
	else
		v.fails = version_cmp(&dc, &v.first->release) < 0;
	return v;
}

int driver_gpu_finding(struct report *r, const struct arch_gpu *g, const struct arch_driver *d,
		       const struct driver_gpu_verdict *v)
{
	const struct kb_toolkit *first = v->first;
	struct version dc = driver_cuda(d);
	const struct kb_driver_branch *b;
	struct finding_vars vars;
	struct finding *f;

	if (!v->fails)
		return CD_OK;
	b = kb_driver_branch_for_cuda(&first->release);
	finding_vars_init(&vars);
	if (d->version[0])
		finding_var(&vars, "driver", "%s", d->version);
	finding_var(&vars, "driver_cuda", "%d.%d", dc.major, dc.minor);
	finding_var(&vars, "cc", "%u.%u", g->cc / 10, g->cc % 10);
	finding_var(&vars, "first_cuda", "%s", first->release_text);
	if (b)
		finding_var(&vars, "branch", "%d", b->branch);
	f = finding_make(r, SEV_ERROR, "gpu-newer-than-driver", g->name, &vars);
	if (!f ||
	    (first->has_min_driver &&
	     finding_evidence(f, "CUDA %s, the first release for sm_%u, needs driver %s or newer", first->release_text,
			      g->cc, first->min_driver_text)))
		return CD_ENOMEM;
	return CD_OK;
}
