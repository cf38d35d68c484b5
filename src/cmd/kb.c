/* `cudoctor kb`: the knowledge tables' facts about a GPU, toolkit, driver or CUDA error,
 * each with its sources. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/kb_torch.h"
#include "kb/kb.h"
#include "util/err.h"
#include "util/str.h"

static const char kb_help[] =
	"usage: cudoctor kb gpu [NAME|CC]       GPUs: name, compute capability, memory, toolkits\n"
	"       cudoctor kb toolkit [VERSION]   CUDA toolkits: driver minimums, archs, PTX ISA\n"
	"       cudoctor kb driver VERSION      what a driver version runs (580.65.06, 572.61)\n"
	"       cudoctor kb error CODE|NAME     the CUDA error catalogue (209, cudaErrorNoKernelImageForDevice)\n"
	"       cudoctor kb torch [RELEASE|cuXYZ] PyTorch wheels: CUDA variants and the archs each carries\n"
	"       cudoctor kb framework [NAME]    JAX, vLLM and Ollama CUDA builds: GPUs and drivers they need\n"
	"\n"
	"Prints facts from the embedded tables (kb/*.tsv) with their sources; facts the sources\n"
	"disagree on or barely support are marked (uncertain). Without an argument, gpu and\n"
	"toolkit list every row.\n";

/* ---- shared helpers ---- */

static json_t *sources_json(const char *list)
{
	json_t *a = json_array();
	const char *p = list;

	while (a && *p) {
		size_t k = strcspn(p, ";");
		char key[200];
		const struct kb_source *s;
		json_t *o;

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), p);
		p += k + (p[k] == ';');
		s = kb_source_find(key);
		o = json_pack("{s:s, s:s}", "key", key, "what",
			      s ? s->what : (strncmp(key, "https://", 8) == 0 ? key : "?"));
		if (o)
			json_array_append_new(a, o);
	}
	return a;
}

static void report_sources(struct report *r, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ";");
		char key[200];
		const struct kb_source *s;

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), p);
		p += k + (p[k] == ';');
		s = kb_source_find(key);
		report_kv(r, "source", "%s%s%s", key, s ? ": " : "", s ? s->what : "");
	}
}

static const char *unc(bool uncertain)
{
	return uncertain ? " (uncertain)" : "";
}

static json_t *arch_list_json(const struct kb_arch *a, size_t n)
{
	json_t *arr = json_array();
	char buf[24];

	for (size_t i = 0; arr && i < n; i++) {
		kb_arch_format(a[i], "sm_", buf, sizeof(buf));
		json_array_append_new(arr, json_string(buf));
	}
	return arr;
}

static void arch_list_text(const struct kb_arch *a, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 12 < size; i++) {
		char one[24];

		kb_arch_format(a[i], "sm_", one, sizeof(one));
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", one);
	}
	if (n == 0)
		snprintf(buf, size, "none");
}

/* ---- kb gpu ---- */

static json_t *gpu_json(const struct kb_gpu *g)
{
	const struct kb_toolkit *first = NULL, *last = NULL;
	struct kb_arch a = { g->arch, 0 };
	json_t *o, *aliases = json_array(), *mem = json_array();
	char cc[16], sm[16];

	for (size_t i = 0; aliases && i < g->n_aliases; i++)
		json_array_append_new(aliases, json_string(g->aliases[i]));
	for (size_t i = 0; mem && i < g->n_memory_gb; i++)
		json_array_append_new(mem, json_real(g->memory_gb[i]));
	kb_arch_format(a, NULL, cc, sizeof(cc));
	kb_arch_format(a, "sm_", sm, sizeof(sm));
	kb_arch_toolkit_range(a, &first, &last);
	o = json_pack("{s:s, s:o, s:s, s:s, s:s, s:i, s:s, s:o, s:s, s:s, s:b, s:s, s:o}", "name",
		      g->name, "aliases", aliases, "compute_capability", cc, "sm", sm, "architecture",
		      g->architecture, "year", g->year, "memory", g->memory, "memory_gb", mem,
		      "segment", g->segment, "driver_support", g->driver_support, "uncertain",
		      g->uncertain, "notes", g->notes, "sources", sources_json(g->source));
	if (o) {
		json_object_set_new(o, "min_toolkit", first ? json_string(first->release_text) : json_null());
		json_object_set_new(o, "max_toolkit", last ? json_string(last->release_text) : json_null());
	}
	return o;
}

static void gpu_text(struct report *r, const struct kb_gpu *g)
{
	const struct kb_toolkit *first = NULL, *last = NULL;
	struct kb_arch a = { g->arch, 0 };
	char aliases[256] = "", *p = aliases;

	for (size_t i = 0; i < g->n_aliases && (size_t)(p - aliases) < sizeof(aliases) - 64; i++)
		p += snprintf(p, sizeof(aliases) - (size_t)(p - aliases), "%s%s", i ? ", " : "",
			      g->aliases[i]);
	report_section(r, "%s%s", g->name, unc(g->uncertain));
	report_kv(r, "compute capability", "%d.%d (sm_%d), %s", g->cc_major, g->cc_minor, g->arch,
		  g->architecture);
	if (g->n_aliases)
		report_kv(r, "also called", "%s", aliases);
	report_kv(r, "memory", "%s", *g->memory ? g->memory : "unknown");
	if (g->year)
		report_kv(r, "released", "%d", g->year);
	report_kv(r, "segment", "%s", g->segment);
	report_kv(r, "driver support", "%s", g->driver_support);
	if (kb_arch_toolkit_range(a, &first, &last) == CD_OK)
		report_kv(r, "toolkits that build it", "CUDA %s%s%s", first->release_text,
			  last ? " to " : " and newer", last ? last->release_text : "");
	else
		report_kv(r, "toolkits", "no toolkit in the table targets sm_%d", g->arch);
	if (*g->notes)
		report_kv(r, "notes", "%s", g->notes);
	report_sources(r, g->source);
}

static int kb_gpu_cmd(struct report *r, const char *query, char *err)
{
	const struct kb_gpu *c[256];
	json_t *arr = json_array();
	size_t n = 0;
	struct kb_arch a;

	if (!arr)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (!query) {
		static const char *const hdr[] = { "name", "CC", "architecture", "memory", "notes" };

		report_table(r, 5, hdr);
		for (size_t i = 0; i < kb_gpu_count(); i++) {
			const struct kb_gpu *g = kb_gpu_at(i);
			char cc[16];
			const char *row[5];

			snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
			row[0] = g->name;
			row[1] = cc;
			row[2] = g->architecture;
			row[3] = g->memory;
			row[4] = g->uncertain ? "uncertain" : "";
			report_table_row(r, row);
			json_array_append_new(arr, gpu_json(g));
		}
		report_json_set(r, "gpus", arr);
		return CD_OK;
	}
	if (kb_arch_parse(query, &a) == CD_OK && !a.suffix) {
		for (size_t i = 0; i < kb_gpu_count() && n < 256; i++)
			if (kb_gpu_at(i)->arch == a.num)
				c[n++] = kb_gpu_at(i);
	}
	if (n == 0)
		n = kb_gpu_search(query, c, 256);
	if (n == 0) {
		json_decref(arr);
		return cd_fail(err, CD_EUSAGE,
			       "no GPU in the table matches '%.60s' (try a part of the name as nvidia-smi "
			       "prints it, or a compute capability like 8.9)", query);
	}
	if (n > 256)
		n = 256;
	if (n > 1)
		report_line(r, "%zu GPUs match '%s':", n, query);
	for (size_t i = 0; i < n; i++) {
		gpu_text(r, c[i]);
		json_array_append_new(arr, gpu_json(c[i]));
	}
	report_json_set(r, "gpus", arr);
	return CD_OK;
}

/* ---- kb toolkit ---- */

static json_t *toolkit_json(const struct kb_toolkit *t)
{
	static const char *const zstd[] = { "no", "optional", "default" };
	const struct kb_ptx_isa *p = kb_ptx_isa_find(t->ptx_major, t->ptx_minor);
	char md[32], mdu[32], floor[32], ptx[16], def[24];
	json_t *o;

	snprintf(md, sizeof(md), "%s", t->has_min_driver ? t->min_driver_text : "unknown");
	snprintf(mdu, sizeof(mdu), "%s", t->has_min_driver_update ? t->min_driver_update_text : "unknown");
	snprintf(floor, sizeof(floor), "%s", t->minor_compat_floor_text);
	snprintf(ptx, sizeof(ptx), "%d.%d", t->ptx_major, t->ptx_minor);
	kb_arch_format(t->default_arch, "sm_", def, sizeof(def));
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:s, s:b, s:s, s:o}",
		      "release", t->release_text, "ga_date", t->ga_date, "min_linux_driver", md,
		      "min_linux_driver_update", mdu, "min_windows_driver", t->min_windows_driver,
		      "archs", t->archs_known ? arch_list_json(t->archs, t->n_archs) : json_null(),
		      "archs_deprecated", arch_list_json(t->deprecated, t->n_deprecated),
		      "archs_removed", arch_list_json(t->removed, t->n_removed), "ptx_isa", ptx,
		      "default_arch", def, "zstd", zstd[t->zstd], "uncertain", t->uncertain, "notes",
		      t->notes, "sources", sources_json(t->source));
	if (o) {
		json_object_set_new(o, "minor_compat_floor",
				    t->has_minor_compat ? json_string(floor) : json_null());
		if (p && p->has_min_driver)
			json_object_set_new(o, "ptx_min_driver", json_string(p->min_driver_text));
	}
	return o;
}

static void toolkit_text(struct report *r, const struct kb_toolkit *t)
{
	static const char *const zstd[] = { "no (LZ4 or none)", "optional (nvcc can be asked for zstd)",
					    "default (PTX entries zstd-compressed)" };
	const struct kb_ptx_isa *p = kb_ptx_isa_find(t->ptx_major, t->ptx_minor);
	char buf[512];

	report_section(r, "CUDA %s%s", t->release_text, unc(t->uncertain));
	report_kv(r, "released", "%s", t->ga_date);
	report_kv(r, "minimum Linux driver", "%s (GA)", t->has_min_driver ? t->min_driver_text : "unknown");
	if (t->has_min_driver_update)
		report_kv(r, "  for its last update", "%s", t->min_driver_update_text);
	report_kv(r, "minimum Windows driver", "%s", t->min_windows_driver);
	if (t->has_minor_compat)
		report_kv(r, "apps run on drivers from", "%s (minor-version compatibility of CUDA %d.x; "
			  "PTX JIT and new APIs still need the minimum above)", t->minor_compat_floor_text,
			  t->release.major);
	if (t->archs_known) {
		arch_list_text(t->archs, t->n_archs, buf, sizeof(buf));
		report_kv(r, "archs it builds", "%s", buf);
	} else {
		report_kv(r, "archs it builds", "unknown");
	}
	if (t->n_deprecated) {
		arch_list_text(t->deprecated, t->n_deprecated, buf, sizeof(buf));
		report_kv(r, "deprecated (warns)", "%s", buf);
	}
	if (t->n_removed) {
		arch_list_text(t->removed, t->n_removed, buf, sizeof(buf));
		report_kv(r, "removed by this release", "%s", buf);
	}
	kb_arch_format(t->default_arch, "sm_", buf, sizeof(buf));
	report_kv(r, "default arch (no -arch)", "%s", buf);
	if (p && p->has_min_driver) {
		report_kv(r, "PTX ISA emitted", "%d.%d (a driver JITs it from %s%s)", t->ptx_major,
			  t->ptx_minor, p->min_driver_text, unc(p->uncertain));
	} else {
		report_kv(r, "PTX ISA emitted", "%d.%d", t->ptx_major, t->ptx_minor);
	}
	report_kv(r, "zstd compression", "%s", zstd[t->zstd]);
	if (*t->notes)
		report_kv(r, "notes", "%s", t->notes);
	report_sources(r, t->source);
}

static int kb_toolkit_cmd(struct report *r, const char *query, char *err)
{
	json_t *arr = json_array();
	struct version v;
	const struct kb_toolkit *t;

	if (!arr)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (!query) {
		static const char *const hdr[] = { "release", "min Linux driver", "archs", "PTX", "" };

		report_table(r, 5, hdr);
		for (size_t i = 0; i < kb_toolkit_count(); i++) {
			char md[32], archs[48], ptx[16];
			const char *row[5];

			t = kb_toolkit_at(i);
			snprintf(md, sizeof(md), "%s", t->has_min_driver ? t->min_driver_text : "unknown");
			if (t->archs_known && t->n_archs)
				snprintf(archs, sizeof(archs), "sm_%d .. sm_%d", t->archs[0].num,
					 t->archs[t->n_archs - 1].num);
			else
				snprintf(archs, sizeof(archs), "unknown");
			snprintf(ptx, sizeof(ptx), "%d.%d", t->ptx_major, t->ptx_minor);
			row[0] = t->release_text;
			row[1] = md;
			row[2] = archs;
			row[3] = ptx;
			row[4] = t->uncertain ? "uncertain" : "";
			report_table_row(r, row);
			json_array_append_new(arr, toolkit_json(t));
		}
		report_json_set(r, "toolkits", arr);
		return CD_OK;
	}
	if (version_parse(query, &v) != CD_OK) {
		json_decref(arr);
		return cd_fail(err, CD_EUSAGE, "'%.40s' is not a CUDA version (like 12.8)", query);
	}
	t = kb_toolkit_find(&v);
	if (!t) {
		json_decref(arr);
		return cd_fail(err, CD_EUSAGE, "CUDA %d.%d is not in the table (it holds %s to %s%s)",
			       v.major, v.minor, kb_toolkit_at(0)->release_text,
			       kb_toolkit_at(kb_toolkit_count() - 1)->release_text,
			       v.major == 12 && v.minor == 7 ? "; 12.7 was never released" : "");
	}
	toolkit_text(r, t);
	json_array_append_new(arr, toolkit_json(t));
	report_json_set(r, "toolkits", arr);
	return CD_OK;
}

/* ---- kb driver ---- */

static int kb_driver_cmd(struct report *r, const char *query, char *err)
{
	const struct kb_driver_branch *b;
	const struct kb_toolkit *native = NULL;
	const struct kb_ptx_isa *ptx;
	struct version v, zstd_min = { 550, 54, 14, 3 };
	bool exact;
	char cuda[16], buf[32];
	json_t *o, *compat = json_array();

	if (!query)
		return cd_fail(err, CD_EUSAGE, "give a driver version, like 580.65.06");
	if (version_parse(query, &v) != CD_OK || v.major < 100)
		return cd_fail(err, CD_EUSAGE, "'%.40s' is not a driver version (like 580.65.06)", query);
	if (kb_driver_branch_of(&v, &b, &exact) != CD_OK)
		return cd_fail(err, CD_EUSAGE, "driver %d is older than every branch in the table (R%d)",
			       v.major, kb_driver_at(0)->branch);
	snprintf(cuda, sizeof(cuda), "%d.%d", b->cuda.major, b->cuda.minor);
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);

		if (t->has_min_driver && version_cmp(&t->min_driver, &v) <= 0)
			native = t;
		if (compat && t->has_minor_compat && version_cmp(&t->minor_compat_floor, &v) <= 0 &&
		    !(t->has_min_driver && version_cmp(&t->min_driver, &v) <= 0))
			json_array_append_new(compat, json_string(t->release_text));
	}
	ptx = kb_ptx_isa_max_for_cuda(&b->cuda);
	report_section(r, "driver %s", query);
	report_kv(r, "branch", "R%d%s", b->branch,
		  exact ? "" : " (the nearest older branch in the table; yours is not listed)");
	report_kv(r, "CUDA version", "%s%s%s (what nvidia-smi prints; the newest CUDA it runs)",
		  exact ? "" : "at least ", cuda, unc(b->uncertain));
	report_kv(r, "runs", "%s", b->can_run);
	if (native)
		report_kv(r, "newest toolkit it meets the minimum of", "CUDA %s", native->release_text);
	if (compat && json_array_size(compat))
		report_kv(r, "minor-version compatibility", "also runs apps of %zu newer %d.x toolkits "
			  "(without PTX JIT of their code or their new APIs)", json_array_size(compat),
			  b->cuda.major);
	if (ptx)
		report_kv(r, "newest PTX it can JIT", "ISA %d.%d%s", ptx->major, ptx->minor,
			  unc(ptx->uncertain));
	report_kv(r, "zstd-compressed fatbins", "%s", version_cmp(&v, &zstd_min) >= 0 ? "yes" : "no "
		  "(needs 550.54.14 or newer)");
	if (*b->notes)
		report_kv(r, "notes", "%s", b->notes);
	report_sources(r, b->source);
	o = json_pack("{s:s, s:i, s:s, s:b, s:s, s:b, s:s, s:o}", "version", query, "branch",
		      b->branch, "cuda", cuda, "branch_listed", exact, "can_run", b->can_run,
		      "uncertain", b->uncertain, "notes", b->notes, "sources", sources_json(b->source));
	if (!o) {
		json_decref(compat);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	json_object_set_new(o, "newest_native_toolkit", native ? json_string(native->release_text)
							       : json_null());
	json_object_set_new(o, "minor_compat_toolkits", compat ? compat : json_array());
	if (ptx) {
		snprintf(buf, sizeof(buf), "%d.%d", ptx->major, ptx->minor);
		json_object_set_new(o, "ptx_isa_max", json_string(buf));
	}
	json_object_set_new(o, "zstd", json_boolean(version_cmp(&v, &zstd_min) >= 0));
	report_json_set(r, "driver", o);
	return CD_OK;
}

/* ---- kb error ---- */

static json_t *error_json(const struct kb_error *e)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:o}", "api", kb_api_name(e->api), "code",
			 e->code, "name", e->name, "string", e->string, "string_source",
			 e->string_source, "finding", e->finding ? json_string(e->finding) : json_null(),
			 "sources", sources_json(e->source));
}

static void error_text(struct report *r, const struct kb_error *e)
{
	const struct kb_explanation *x = kb_explanation_find(e->finding ? e->finding : "cuda-error");

	report_section(r, "%s = %d (%s API)", e->name, e->code, kb_api_name(e->api));
	report_kv(r, "message", "\"%s\"%s", e->string,
		  strcmp(e->string_source, "header-doc") == 0 ? " (from the header's comment; the "
		  "driver's string was not read)" : strcmp(e->string_source, "cudart-same-number") == 0
		  ? " (the runtime's string for this number)" : "");
	if (e->finding && x) {
		report_kv(r, "finding", "%s: %s", e->finding, x->title);
		report_kv(r, "why", "%s", x->why);
	}
	report_sources(r, e->source);
}

static int kb_error_cmd(struct report *r, const char *query, char *err)
{
	json_t *arr = json_array();
	size_t n = 0;
	char *end;
	long code;

	if (!arr)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (!query) {
		json_decref(arr);
		return cd_fail(err, CD_EUSAGE, "give an error code or name (209, CUDA_ERROR_NO_BINARY_FOR_GPU)");
	}
	code = strtol(query, &end, 10);
	for (size_t i = 0; i < kb_error_count(); i++) {
		const struct kb_error *e = kb_error_at(i);
		bool hit = (*end == '\0' && end != query) ? e->code == code
			   : strcmp(e->name, query) == 0 || str_contains_ci(e->string, query);

		if (!hit)
			continue;
		error_text(r, e);
		json_array_append_new(arr, error_json(e));
		n++;
	}
	if (n == 0) {
		json_decref(arr);
		return cd_fail(err, CD_EUSAGE, "no CUDA error in the catalogue matches '%.60s'", query);
	}
	report_json_set(r, "errors", arr);
	return CD_OK;
}

static int kb_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	const char *topic, *query;
	int rc;

	(void)g;
	if (argc < 2)
		return cd_fail(err, CD_EUSAGE, "name a topic: gpu, toolkit, driver or error");
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	topic = argv[1];
	query = argc >= 3 ? argv[2] : NULL;
	if (argc > 3)
		return cd_fail(err, CD_EUSAGE, "one query at a time (quote names with spaces)");
	report_json_set(r, "topic", json_string(topic));
	report_json_set(r, "query", query ? json_string(query) : json_null());
	if (strcmp(topic, "gpu") == 0)
		return kb_gpu_cmd(r, query, err);
	if (strcmp(topic, "toolkit") == 0)
		return kb_toolkit_cmd(r, query, err);
	if (strcmp(topic, "driver") == 0)
		return kb_driver_cmd(r, query, err);
	if (strcmp(topic, "error") == 0)
		return kb_error_cmd(r, query, err);
	if (strcmp(topic, "torch") == 0 || strcmp(topic, "framework") == 0)
		return topic[0] == 't' ? kb_torch_cmd(r, query, err) : kb_framework_cmd(r, query, err);
	return cd_fail(err, CD_EUSAGE, "unknown topic '%.30s': gpu, toolkit, driver, error, torch or framework", topic);
}

const struct cd_command cmd_kb = {
	.name = "kb",
	.summary = "facts about GPUs, toolkits, drivers and CUDA errors, with sources",
	.help = kb_help,
	.run = kb_run,
};
