/* `cudoctor kb`: the knowledge tables' facts about a GPU, toolkit, driver or CUDA error,
 * each with its sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/kb/torch.h"
#include "kb/kb.h"
#include "rules/catalogue.h"
#include "util/err.h"
#include "util/str.h"

static const char kb_help[] =
	"  gpu [NAME|CC]            GPUs: name, compute capability, memory, toolkits\n"
	"  toolkit [VERSION]        CUDA toolkits: driver minimums, archs, PTX ISA\n"
	"  driver VERSION           what a driver version runs (580.65.06, 572.61)\n"
	"  error CODE|NAME          the CUDA error catalogue (209, cudaErrorNoKernelImageForDevice)\n"
	"  torch [RELEASE|cuXYZ]    PyTorch wheels: CUDA variants and the archs each carries\n"
	"  framework [NAME]         JAX, vLLM, Ollama, CuPy and TensorFlow CUDA builds: GPUs and\n"
	"                           drivers they need\n"
	"\n"
	"Prints facts from the embedded tables (kb/*.tsv) with their sources; facts the sources "
	"disagree on or barely support are marked (uncertain). Without an argument, gpu and "
	"toolkit list every row. -q prints a line per row: a GPU's compute capability, a "
	"toolkit's minimum driver, a driver's branch and CUDA version, an error's message, a "
	"build's CUDA and archs or GPUs and driver.";

static const struct cli_opt kb_opts[] = { { 0 } };

/* ---- shared helpers ---- */

/* The *_fields writers fill a record; a failure stays in it (and in its parents once
 * ended), so their callers check the record's end. */

/* "key;key;..." of kb/sources.tsv: a "source" line each, and "sources": [{key, what}]. */
static void sources_fields(struct report_rec *w, const char *list)
{
	struct report_rec arr, it;
	const char *p = list;

	report_rec_array(w, "sources", &arr);
	while (*p) {
		size_t k = strcspn(p, ";");
		char key[200];
		const struct kb_source *s;

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), p);
		p += k + (p[k] == ';');
		s = kb_source_find(key);
		report_rec_item(&arr, &it);
		report_fieldf(&it, "source", "key", rv_str(key), "%s%s%s", key, s ? ": " : "",
			      s ? s->what : "");
		report_field(&it, NULL, "what",
			     rv_str(s ? s->what : (strncmp(key, "https://", 8) == 0 ? key : "?")));
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return; /* the failure is w's now */
}

static const char *unc(bool uncertain)
{
	return uncertain ? " (uncertain)" : "";
}

/* "sm_80 sm_86 ...": the archs as a list (rv_list), "" for none */
static void arch_list_text(const struct kb_arch *a, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 12 < size; i++) {
		char one[24];

		kb_arch_format(a[i], "sm_", one, sizeof(one));
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", one);
	}
}

/* ---- kb gpu ---- */

/* One row of kb/gpus.tsv: a section of key/values, and the object of docs/json.md. */
static void gpu_fields(struct report_rec *w, const struct kb_gpu *g)
{
	const struct kb_toolkit *first = NULL, *last = NULL;
	struct kb_arch a = { g->arch, 0 };
	struct report_rec mem;
	char cc[16], sm[16], aliases[1024];
	size_t used = 0;

	aliases[0] = '\0'; /* a line each: a name may hold blanks and commas */
	for (size_t i = 0; i < g->n_aliases && used < sizeof aliases; i++) {
		int k = snprintf(aliases + used, sizeof aliases - used, "%s\n", g->aliases[i]);
		used += k > 0 ? (size_t)k : 0;
	}
	kb_arch_format(a, NULL, cc, sizeof(cc));
	kb_arch_format(a, "sm_", sm, sizeof(sm));
	report_rec_section(w, "%s%s", g->name, unc(g->uncertain));
	cmd_note(w->r, report_answer(w->r, "%s: %d.%d (sm_%d), %s", g->name, g->cc_major, g->cc_minor, g->arch,
				     g->architecture)); /* -q */
	report_field(w, NULL, "name", rv_str(g->name));
	report_field(w, NULL, "uncertain", rv_bool(g->uncertain));
	report_fieldf(w, "compute capability", "compute_capability", rv_str(cc), "%d.%d (sm_%d), %s",
		      g->cc_major, g->cc_minor, g->arch, g->architecture);
	report_field(w, NULL, "sm", rv_str(sm));
	report_field(w, NULL, "architecture", rv_str(g->architecture));
	report_field(w, g->n_aliases ? "also called" : NULL, "aliases", rv_list(aliases, "\n"));
	report_fieldf(w, "memory", "memory", rv_str(g->memory), "%s", *g->memory ? g->memory : "unknown");
	report_rec_array(w, "memory_gb", &mem);
	for (size_t i = 0; i < g->n_memory_gb; i++)
		report_rec_push(&mem, rv_real(g->memory_gb[i]));
	if (report_rec_end(&mem) != CD_OK)
		return; /* the failure is w's now */
	report_field(w, g->year ? "released" : NULL, "year", rv_int(g->year));
	report_field(w, "segment", "segment", rv_str(g->segment));
	report_field(w, "driver support", "driver_support", rv_str(g->driver_support));
	if (kb_arch_toolkit_range(a, &first, &last) == CD_OK)
		report_fieldf(w, "toolkits that build it", "min_toolkit", rv_str(first->release_text),
			      "CUDA %s%s%s", first->release_text, last ? " to " : " and newer",
			      last ? last->release_text : "");
	else
		report_fieldf(w, "toolkits", "min_toolkit", rv_null(),
			      "no toolkit in the table targets sm_%d", g->arch);
	report_field(w, NULL, "max_toolkit", rv_str(last ? last->release_text : NULL));
	report_field(w, *g->notes ? "notes" : NULL, "notes", rv_str(g->notes));
	sources_fields(w, g->source);
}

/* Every row: a table of five columns, each row's JSON the whole object. */
static int gpu_table(struct report_rec *top)
{
	static const char *const hdr[] = { "name", "CC", "architecture", "memory", "notes" };
	struct report_rec t, row;
	int rc = CD_OK;

	report_rec_table(top, "gpus", 5, hdr, &t);
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);

		report_rec_item(&t, &row);
		report_field(&row, "name", NULL, rv_str(g->name));
		report_fieldf(&row, "CC", NULL, rv_null(), "%d.%d", g->cc_major, g->cc_minor);
		report_field(&row, "architecture", NULL, rv_str(g->architecture));
		report_field(&row, "memory", NULL, rv_str(g->memory));
		report_field(&row, "notes", NULL, rv_str(g->uncertain ? "uncertain" : ""));
		report_rec_text(&row, REPORT_TEXT_NONE);
		gpu_fields(&row, g);
		if ((rc = report_rec_end(&row)) != CD_OK)
			break;
	}
	return rc == CD_OK ? report_rec_end(&t) : rc;
}

static int kb_gpu_cmd(struct report_rec *top, const char *query, char *err)
{
	const struct kb_gpu *c[256];
	struct report_rec arr, it;
	size_t n = 0;
	struct kb_arch a;
	int rc = CD_OK;

	if (!query)
		return gpu_table(top);
	if (kb_arch_parse(query, &a) == CD_OK && !a.suffix) {
		for (size_t i = 0; i < kb_gpu_count() && n < 256; i++)
			if (kb_gpu_at(i)->arch == a.num)
				c[n++] = kb_gpu_at(i);
	}
	if (n == 0)
		n = kb_gpu_search(query, c, 256);
	if (n == 0)
		return kb_gpu_no_match(query, err);
	if (n > 256)
		n = 256;
	if (n > 1)
		report_rec_line(top, "%zu GPUs match '%s':", n, query);
	report_rec_array(top, "gpus", &arr);
	for (size_t i = 0; i < n; i++) {
		report_rec_item(&arr, &it);
		gpu_fields(&it, c[i]);
		if ((rc = report_rec_end(&it)) != CD_OK)
			break;
	}
	return rc == CD_OK ? report_rec_end(&arr) : rc;
}

/* ---- kb toolkit ---- */

/* One row of kb/toolkits.tsv: a section of key/values, and the object of docs/json.md. */
static void toolkit_fields(struct report_rec *w, const struct kb_toolkit *t)
{
	static const char *const zstd_key[] = { "no", "optional", "default" };
	static const char *const zstd_text[] = { "no (LZ4 or none)",
						 "optional (nvcc can be asked for zstd)",
						 "default (PTX entries zstd-compressed)" };
	const struct kb_ptx_isa *p = kb_ptx_isa_find(t->ptx_major, t->ptx_minor);
	const char *md = t->has_min_driver ? t->min_driver_text : "unknown";
	char buf[512], ptx[16];

	snprintf(ptx, sizeof(ptx), "%d.%d", t->ptx_major, t->ptx_minor);
	report_rec_section(w, "CUDA %s%s", t->release_text, unc(t->uncertain));
	cmd_note(w->r, report_answer(w->r, "CUDA %s: minimum Linux driver %s", t->release_text, md)); /* -q */
	report_field(w, NULL, "release", rv_str(t->release_text));
	report_field(w, NULL, "uncertain", rv_bool(t->uncertain));
	report_field(w, "released", "ga_date", rv_str(t->ga_date));
	report_fieldf(w, "minimum Linux driver", "min_linux_driver", rv_str(md), "%s (GA)", md);
	report_field(w, t->has_min_driver_update ? "  for its last update" : NULL,
		     "min_linux_driver_update",
		     rv_str(t->has_min_driver_update ? t->min_driver_update_text : "unknown"));
	report_field(w, "minimum Windows driver", "min_windows_driver", rv_str(t->min_windows_driver));
	report_fieldf(w, t->has_minor_compat ? "apps run on drivers from" : NULL, "minor_compat_floor",
		      rv_str(t->has_minor_compat ? t->minor_compat_floor_text : NULL),
		      "%s (minor-version compatibility of CUDA %d.x; PTX JIT and new APIs still need "
		      "the minimum above)", t->minor_compat_floor_text, t->release.major);
	if (t->archs_known) {
		arch_list_text(t->archs, t->n_archs, buf, sizeof(buf));
		report_fieldf(w, "archs it builds", "archs", rv_list(buf, " "), "%s", *buf ? buf : "none");
	} else {
		report_fieldf(w, "archs it builds", "archs", rv_null(), "unknown");
	}
	arch_list_text(t->deprecated, t->n_deprecated, buf, sizeof(buf));
	report_fieldf(w, t->n_deprecated ? "deprecated (warns)" : NULL, "archs_deprecated", rv_list(buf, " "), "%s",
		      *buf ? buf : "none");
	arch_list_text(t->removed, t->n_removed, buf, sizeof(buf));
	report_fieldf(w, t->n_removed ? "removed by this release" : NULL, "archs_removed", rv_list(buf, " "), "%s",
		      *buf ? buf : "none");
	kb_arch_format(t->default_arch, "sm_", buf, sizeof(buf));
	report_field(w, "default arch (no -arch)", "default_arch", rv_str(buf));
	if (p && p->has_min_driver) {
		report_fieldf(w, "PTX ISA emitted", "ptx_isa", rv_str(ptx), "%s (a driver JITs it from %s%s)",
			      ptx, p->min_driver_text, unc(p->uncertain));
		report_field(w, NULL, "ptx_min_driver", rv_str(p->min_driver_text));
	} else {
		report_field(w, "PTX ISA emitted", "ptx_isa", rv_str(ptx));
	}
	report_fieldf(w, "zstd compression", "zstd", rv_str(zstd_key[t->zstd]), "%s", zstd_text[t->zstd]);
	report_field(w, *t->notes ? "notes" : NULL, "notes", rv_str(t->notes));
	sources_fields(w, t->source);
}

static int toolkit_table(struct report_rec *top)
{
	static const char *const hdr[] = { "release", "min Linux driver", "archs", "PTX", "" };
	struct report_rec tab, row;
	int rc = CD_OK;

	report_rec_table(top, "toolkits", 5, hdr, &tab);
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);

		report_rec_item(&tab, &row);
		report_field(&row, "release", NULL, rv_str(t->release_text));
		report_field(&row, "min Linux driver", NULL,
			     rv_str(t->has_min_driver ? t->min_driver_text : "unknown"));
		if (t->archs_known && t->n_archs)
			report_fieldf(&row, "archs", NULL, rv_null(), "sm_%d .. sm_%d", t->archs[0].num,
				      t->archs[t->n_archs - 1].num);
		else
			report_field(&row, "archs", NULL, rv_str("unknown"));
		report_fieldf(&row, "PTX", NULL, rv_null(), "%d.%d", t->ptx_major, t->ptx_minor);
		report_field(&row, "", NULL, rv_str(t->uncertain ? "uncertain" : ""));
		report_rec_text(&row, REPORT_TEXT_NONE);
		toolkit_fields(&row, t);
		if ((rc = report_rec_end(&row)) != CD_OK)
			break;
	}
	return rc == CD_OK ? report_rec_end(&tab) : rc;
}

static int kb_toolkit_cmd(struct report_rec *top, const char *query, char *err)
{
	struct report_rec arr, it;
	struct version v;
	const struct kb_toolkit *t;
	int rc;

	if (!query)
		return toolkit_table(top);
	if (version_parse(query, &v) != CD_OK)
		return cd_fail(err, CD_EUSAGE, "'%.40s' is not a CUDA version (like 12.8)", query);
	t = kb_toolkit_find(&v);
	if (!t)
		return cd_fail(err, CD_EUSAGE, "CUDA %d.%d is not in the table (it holds %s to %s%s)",
			       v.major, v.minor, kb_toolkit_at(0)->release_text,
			       kb_toolkit_at(kb_toolkit_count() - 1)->release_text,
			       v.major == 12 && v.minor == 7 ? "; 12.7 was never released" : "");
	report_rec_array(top, "toolkits", &arr);
	report_rec_item(&arr, &it);
	toolkit_fields(&it, t);
	rc = report_rec_end(&it);
	return rc == CD_OK ? report_rec_end(&arr) : rc;
}

/* ---- kb driver ---- */

static int kb_driver_cmd(struct report_rec *top, const char *query, char *err)
{
	const struct kb_driver_branch *b;
	const struct kb_toolkit *native = NULL;
	const struct kb_ptx_isa *ptx;
	const struct kb_toolkit *z = kb_toolkit_first_zstd();
	struct version v;
	struct report_rec w;
	bool exact, zstd;
	char cuda[16], buf[32];
	char compat[1024] = "";
	size_t n_compat = 0, used = 0;

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
		if (t->has_minor_compat && version_cmp(&t->minor_compat_floor, &v) <= 0 &&
		    !(t->has_min_driver && version_cmp(&t->min_driver, &v) <= 0) && used < sizeof compat) {
			int k = snprintf(compat + used, sizeof compat - used, "%s%s", used ? " " : "", t->release_text);

			used += k > 0 ? (size_t)k : 0;
			n_compat++;
		}
	}
	ptx = kb_ptx_isa_max_for_cuda(&b->cuda);
	zstd = z && version_cmp(&v, &z->min_driver) >= 0;
	report_rec_object(top, "driver", &w);
	report_rec_section(&w, "driver %s", query);
	cmd_note(top->r, report_answer(top->r, "driver %s: R%d%s, CUDA %s%s%s", query, b->branch,
				       exact ? "" : " (the nearest older branch listed)", exact ? "" : "at least ", cuda,
				       unc(b->uncertain))); /* -q */
	report_field(&w, NULL, "version", rv_str(query));
	report_fieldf(&w, "branch", "branch", rv_int(b->branch), "R%d%s", b->branch,
		      exact ? "" : " (the nearest older branch in the table; yours is not listed)");
	report_field(&w, NULL, "branch_listed", rv_bool(exact));
	report_fieldf(&w, "CUDA version", "cuda", rv_str(cuda),
		      "%s%s%s (what nvidia-smi prints; the newest CUDA it runs)", exact ? "" : "at least ",
		      cuda, unc(b->uncertain));
	report_field(&w, NULL, "uncertain", rv_bool(b->uncertain));
	report_field(&w, "runs", "can_run", rv_str(b->can_run));
	report_fieldf(&w, native ? "newest toolkit it meets the minimum of" : NULL, "newest_native_toolkit",
		      rv_str(native ? native->release_text : NULL), "CUDA %s",
		      native ? native->release_text : "");
	report_fieldf(&w, n_compat ? "minor-version compatibility" : NULL, "minor_compat_toolkits",
		      rv_list(compat, " "), "also runs apps of %zu newer %d.x toolkits (without PTX JIT of "
		      "their code or their new APIs)", n_compat, b->cuda.major);
	if (ptx) {
		snprintf(buf, sizeof(buf), "%d.%d", ptx->major, ptx->minor);
		report_fieldf(&w, "newest PTX it can JIT", "ptx_isa_max", rv_str(buf), "ISA %s%s", buf,
			      unc(ptx->uncertain));
	}
	if (zstd)
		report_field(&w, "zstd-compressed fatbins", "zstd", rv_bool(true));
	else
		report_fieldf(&w, "zstd-compressed fatbins", "zstd", rv_bool(false), "no (needs %s or newer)",
			      z ? z->min_driver_text : "?");
	report_field(&w, *b->notes ? "notes" : NULL, "notes", rv_str(b->notes));
	sources_fields(&w, b->source);
	return report_rec_end(&w);
}

/* ---- kb error ---- */

static void error_fields(struct report_rec *w, const struct kb_error *e)
{
	const struct kb_finding *x = kb_finding_find(e->finding ? e->finding : "cuda-error");
	char title[512] = "", why[1024] = "";

	/* the catalogue's text as it reads with nothing of a machine known */
	if (x) {
		catalogue_fill(x->title, NULL, title, sizeof title);
		catalogue_fill(x->why, NULL, why, sizeof why);
	}

	report_rec_section(w, "%s = %d (%s API)", e->name, e->code, kb_api_name(e->api));
	cmd_note(w->r, report_answer(w->r, "%s = %d: %s", e->name, e->code, e->string)); /* -q */
	report_field(w, NULL, "api", rv_str(kb_api_name(e->api)));
	report_field(w, NULL, "code", rv_int(e->code));
	report_field(w, NULL, "name", rv_str(e->name));
	report_fieldf(w, "message", "string", rv_str(e->string), "\"%s\"%s", e->string,
		      strcmp(e->string_source, "header-doc") == 0 ? " (from the header's comment; the "
		      "driver's string was not read)" : strcmp(e->string_source, "cudart-same-number") == 0
		      ? " (the runtime's string for this number)" : "");
	report_field(w, NULL, "string_source", rv_str(e->string_source));
	report_fieldf(w, e->finding && x ? "finding" : NULL, "finding", rv_str(e->finding), "%s: %s",
		      e->finding ? e->finding : "", title);
	if (e->finding && x)
		report_field(w, "why", NULL, rv_str(why));
	sources_fields(w, e->source);
}

static int kb_error_cmd(struct report_rec *top, const char *query, char *err)
{
	struct report_rec arr, it;
	size_t n = 0;
	char *end;
	long code;
	bool by_code;
	int rc = CD_OK;

	/* an empty query is in every string: the whole catalogue would be the answer to nothing */
	if (!query || !*query)
		return cd_fail(err, CD_EUSAGE, "give an error code or name (209, CUDA_ERROR_NO_BINARY_FOR_GPU)");
	code = strtol(query, &end, 10);
	by_code = *end == '\0' && end != query;
	for (size_t i = 0; i < kb_error_count(); i++) {
		const struct kb_error *e = kb_error_at(i);

		n += by_code ? e->code == code
			     : strcmp(e->name, query) == 0 || str_contains_ci(e->string, query);
	}
	if (n == 0)
		return cd_fail(err, CD_EUSAGE, "no CUDA error in the catalogue matches '%.60s'", query);
	report_rec_array(top, "errors", &arr);
	for (size_t i = 0; i < kb_error_count() && rc == CD_OK; i++) {
		const struct kb_error *e = kb_error_at(i);

		if (by_code ? e->code != code
			    : strcmp(e->name, query) != 0 && !str_contains_ci(e->string, query))
			continue;
		report_rec_item(&arr, &it);
		error_fields(&it, e);
		rc = report_rec_end(&it);
	}
	return rc == CD_OK ? report_rec_end(&arr) : rc;
}

static int kb_topic(struct report_rec *top, const char *topic, const char *query, char *err)
{
	if (strcmp(topic, "gpu") == 0)
		return kb_gpu_cmd(top, query, err);
	if (strcmp(topic, "toolkit") == 0)
		return kb_toolkit_cmd(top, query, err);
	if (strcmp(topic, "driver") == 0)
		return kb_driver_cmd(top, query, err);
	if (strcmp(topic, "error") == 0)
		return kb_error_cmd(top, query, err);
	if (strcmp(topic, "torch") == 0 || strcmp(topic, "framework") == 0)
		return topic[0] == 't' ? kb_torch_cmd(top->r, query, err) : kb_framework_cmd(top->r, query, err);
	return cd_fail(err, CD_EUSAGE, "unknown topic '%.30s': gpu, toolkit, driver, error, torch or framework", topic);
}

static int kb_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct report_rec top;
	const char *topic, *query;
	int rc;

	(void)g;
	if (argc < 2)
		return cd_fail(err, CD_EUSAGE, "name a topic: gpu, toolkit, driver, error, torch or framework");
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	topic = argv[1];
	query = argc >= 3 ? argv[2] : NULL;
	if (argc > 3)
		return cd_fail(err, CD_EUSAGE, "one query at a time (quote names with spaces)");
	report_rec_top(&top, r);
	report_field(&top, NULL, "topic", rv_str(topic));
	report_field(&top, NULL, "query", rv_str(query));
	rc = kb_topic(&top, topic, query, err);
	if (rc == CD_OK)
		rc = report_rec_end(&top);
	if (rc == CD_ENOMEM && !*err)
		rc = cd_fail(err, rc, "out of memory");
	return rc;
}

const struct cd_command cmd_kb = {
	.name = "kb",
	.summary = "facts about GPUs, toolkits, drivers and CUDA errors, with sources",
	.usage = "cudoctor kb gpu [NAME|CC]\n"
		 "       cudoctor kb toolkit [VERSION]\n"
		 "       cudoctor kb driver VERSION\n"
		 "       cudoctor kb error CODE|NAME\n"
		 "       cudoctor kb torch [RELEASE|cuXYZ]\n"
		 "       cudoctor kb framework [NAME]",
	.help = kb_help,
	.opts = kb_opts,
	.operands = CLI_C_WORDS,
	.operand_words = "gpu toolkit driver error torch framework",
	.run = kb_run,
};
