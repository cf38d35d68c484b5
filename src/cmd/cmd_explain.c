/* `cudoctor explain`: recognise the CUDA errors in pasted text, say what they mean in the
 * programming model, check this machine, and give the fix as commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/devcode.h"
#include "cmd/cmd.h"
#include "cmd/explain/checks.h"
#include "cmd/explain/nccl.h"
#include "explain/evidence.h"
#include "explain/explain.h"
#include "kb/vendor_libs.h"
#include "os/fs.h"
#include "os/term.h"
#include "rules/arch.h"
#include "rules/oom.h"
#include "rules/premise.h"
#include "rules/rules.h"
#include "show/arch_verdicts.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "util/utf16.h"

static const char explain_help[] =
	"Recognises every CUDA error cudoctor's catalogue knows in TEXT (or a log file named as the one "
	"TEXT, or stdin: a log of any size, "
	"read to its end in one pass): by message, in the wording of every CUDA release, by name "
	"(cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU, CUBLAS_STATUS_*, CUDNN_STATUS_* "
	"and the other CUDA libraries' status codes), by number in a CUDA context (CUDA error 209), "
	"loader errors of CUDA libraries, and the messages of PyTorch, TensorFlow/XLA, JAX, vLLM, TGI, "
	"Ollama, llama.cpp, ComfyUI, onnxruntime, Triton, nvcc, NVML, NCCL and the kernel log (Xid). "
	"For each: the cause in terms of the stack and the programming model, the last line it was "
	"seen on and how often, checks on this machine, and the fix.\n"
	"\n"
	"Options may stand before or after the text. A word with a space in it is text even when it "
	"starts with '-' (\"-> CUDA driver version is insufficient\"); after `--` every word is text "
	"(cudoctor explain -- -1 --gpu). Under -q the answer is a line per finding.";

enum { OPT_OFFLINE = 1, OPT_BINARY, OPT_GPU, OPT_DRIVER, OPT_BLOCK, OPT_PATTERNS };

static const struct cli_opt explain_opts[] = {
	{ .id = OPT_OFFLINE, .long_name = "offline", .help = "skip the checks on this machine" },
	{ .id = OPT_BINARY, .long_name = "binary", .arg = CLI_REQUIRED, .metavar = "PATH",
	  .help = "the program or library that failed: check which images it carries and judge them "
		  "as `cudoctor arch` does",
	  .complete = CLI_C_FILE },
	{ .id = OPT_GPU, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC",
	  .help = "judge --binary against this GPU (sm_89, 8.9, 89, sm_90a, H200) instead of the GPUs "
		  "here; repeatable; also with --offline, for a log from another machine",
	  .complete = CLI_C_GPU, .flags = CLI_REPEAT },
	{ .id = OPT_DRIVER, .long_name = "driver", .arg = CLI_REQUIRED, .metavar = "VER",
	  .help = "judge against this driver (550.54.14) or CUDA version (12.4) instead of the "
		  "installed one" },
	{ .id = OPT_BLOCK, .long_name = "block", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "threads per block of the failed launch, for `too many resources requested for "
		  "launch`: names the kernels of --binary that cannot launch with N threads on the GPU "
		  "and the largest block each can (default: the block the text names, else 1024)" },
	{ .id = OPT_PATTERNS, .long_name = "patterns", .flags = CLI_HIDDEN,
	  .help = "print the strings the scanner looks for, one a line, and stop (bench/explain.sh "
		  "gives them to grep -F -f)" },
	{ 0 },
};

/* the scanner's readers (they may run on a thread of their own): read_stdin's ctx, when not
 * NULL, keeps the errno of a failed read, since errno is the reading thread's */
static long long read_stdin(void *ctx, char *buf, size_t cap)
{
	size_t n;

	errno = 0;
	n = fread(buf, 1, cap, stdin);
	if (!n && ferror(stdin) && ctx)
		*(int *)ctx = errno;
	return n ? (long long)n : ferror(stdin) ? -1 : 0;
}

static long long read_fd(void *ctx, char *buf, size_t cap)
{
	return os_read(*(const int *)ctx, buf, cap);
}

/* A reader over another that makes a UTF-16 log UTF-8 (what Windows PowerShell 5.1's `>`
 * writes, in which no message would be found otherwise); any other log passes as it is. */
#define UTF16_PIECE (1u << 20)

struct utf8_reader {
	long long (*read)(void *ctx, char *buf, size_t cap);
	void *ctx;
	struct utf16_stream u;
	unsigned char *raw; /* a UTF-16 piece as read */
	char *out;          /* ... converted, handed out as the scanner asks, from pos to len */
	size_t pos, len;
};

static long long read_utf8(void *ctx, char *buf, size_t cap)
{
	struct utf8_reader *r = ctx;
	long long n;

	if (r->u.order == 0) { /* the first two bytes say which */
		unsigned char head[2];
		char mark[UTF16_UTF8_MAX(2)];

		if ((n = r->read(r->ctx, (char *)head, cap < 2 ? cap : 2)) <= 0)
			return n;
		if (!utf16_detect(&r->u, head, (size_t)n)) {
			memcpy(buf, head, (size_t)n);
			return n;
		}
		utf16_to_utf8(&r->u, head, (size_t)n, mark); /* the mark: nothing */
	}
	if (r->u.order < 0) {
		size_t at;

		if ((n = r->read(r->ctx, buf, cap)) <= 0)
			return n;
		/* UTF-16 appended to a UTF-8 log (PowerShell 5.1's >>): read as such from there on */
		if ((at = utf16_appended_at((const unsigned char *)buf, (size_t)n)) == (size_t)n)
			return n;
		if (!(r->raw = malloc(UTF16_PIECE)) ||
		    !(r->out = malloc(UTF16_UTF8_MAX((size_t)n - at > UTF16_PIECE ? (size_t)n - at : UTF16_PIECE))))
			return -1;
		r->u.order = 1;
		r->pos = 0;
		r->len = utf16_to_utf8(&r->u, (const unsigned char *)buf + at, (size_t)n - at, r->out);
		if (at > 0)
			return (long long)at;
	}
	if (!r->raw && (!(r->raw = malloc(UTF16_PIECE)) || !(r->out = malloc(UTF16_UTF8_MAX(UTF16_PIECE)))))
		return -1;
	while (r->pos == r->len) {
		if ((n = r->read(r->ctx, (char *)r->raw, UTF16_PIECE)) <= 0)
			return n;
		r->pos = 0;
		r->len = utf16_to_utf8(&r->u, r->raw, (size_t)n, r->out);
	}
	n = (long long)(r->len - r->pos < cap ? r->len - r->pos : cap);
	memcpy(buf, r->out + r->pos, (size_t)n);
	r->pos += (size_t)n;
	return n;
}

static int scan_utf8(struct explain_scan *sc, long long (*read)(void *, char *, size_t), void *ctx, char *err)
{
	struct utf8_reader r = { .read = read, .ctx = ctx };
	int rc;

	utf16_init(&r.u);
	rc = explain_scan_stream(sc, read_utf8, &r, err);
	free(r.raw);
	free(r.out);
	return rc;
}

/* stdin is read to its end and judged as it arrives: a log of any size, and the program
 * writing into the pipe never gets SIGPIPE */
static int scan_stdin(struct explain_scan *sc, char *err)
{
	int e = 0, rc = scan_utf8(sc, read_stdin, &e, err);

	/* stdin closed (`<&-`) or a directory: why, and what to give instead */
	if (rc == CD_EIO)
		rc = cd_fail(err, CD_EIO, "cannot read stdin (%s): give the text as arguments, a log file, or pipe it "
			     "in (some-command 2>&1 | cudoctor explain)", e ? strerror(e) : "read error");
	return rc;
}

/* A log named as the one operand: read to its end, as stdin is */
static int scan_file(struct explain_scan *sc, const char *path, char *err)
{
	char ferr[CD_ERRMSG];
	size_t size;
	int fd, rc;

	if ((rc = file_open_input(path, &fd, &size, ferr)) != CD_OK)
		return cd_fail(err, rc == CD_ENOMEM ? rc : CD_EIO, "%s", ferr);
	rc = scan_utf8(sc, read_fd, &fd, err);
	if (rc == CD_EIO)
		rc = cd_fail(err, CD_EIO, "%.400s: cannot be read", path);
	os_close(fd);
	return rc;
}

/* One operand without a blank that names a regular file is a log to read, not the text
 * itself: `cudoctor explain build.log`. */
static bool operand_is_log(int argc, char **argv, int a)
{
	return a == argc - 1 && argv[a][0] && !strpbrk(argv[a], " \t\n") && path_is_file(argv[a]);
}

/* One operand without a blank that can only be a path (a folder separator, a log's
 * extension, or an existing folder) but names no regular file is a mistyped log name: reading it says so, where
 * explaining the name as text would answer "no CUDA error" to a question never asked. */
static bool operand_looks_like_path(int argc, char **argv, int a)
{
	static const char *const exts[] = { ".log", ".txt", ".out", ".err" };
	const char *v = argv[a], *dot;

	if (a != argc - 1 || !v[0] || strpbrk(v, " \t\n"))
		return false;
	if (strpbrk(v, "/\\") || path_is_dir(v)) /* `explain logs`: a folder is no text either */
		return true;
	dot = strrchr(v, '.');
	for (size_t i = 0; dot && i < sizeof(exts) / sizeof(exts[0]); i++)
		if (strcasecmp(dot, exts[i]) == 0)
			return true;
	return false;
}

/* --patterns: the scanner's strings, for a plain multi-string search to be measured against */
static int print_patterns(struct report *r, char *err)
{
	const char *const *texts;
	size_t n;
	int rc = explain_patterns(&texts, &n, err);

	r->self_rendered = true;
	for (size_t i = 0; rc == CD_OK && i < n; i++)
		if (printf("%s\n", texts[i]) < 0)
			rc = cd_fail(err, CD_EIO, "writing stdout failed");
	return rc;
}

/* The binary check's verdicts as arch prints them for a file: {path, format, verdicts}. */
static json_t *binary_json(const struct explain_binary *b)
{
	json_t *jb = json_object(), *jv = json_array();

	if (!jb || !jv || json_object_set_new(jb, "path", report_json_text(b->path)) ||
	    json_object_set_new(jb, "format", report_json_text(b->format)))
		goto oom;
	for (size_t i = 0; i < b->n; i++)
		if (json_array_append_new(jv, arch_verdict_json(b->gpus[i], &b->v[i])))
			goto oom;
	if (json_object_set_new(jb, "verdicts", jv) == 0)
		return jb;
	jv = NULL;
oom:
	json_decref(jv);
	json_decref(jb);
	return NULL;
}

/* The launch check as {block, block_from, kernels: [{gpu, image, name, registers, limit,
 * largest_block}]}: the kernels that cannot launch. */
static json_t *launch_json(const struct explain_launch *l)
{
	json_t *jk = json_array();

	for (size_t i = 0; jk && i < l->n; i++) {
		const struct explain_launch_kernel *k = &l->k[i];

		if (json_array_append_new(jk, json_pack("{s:s, s:s, s:s, s:i, s:s, s:i}", "gpu", k->gpu, "image",
							k->image, "name", k->name, "registers", (int)k->registers,
							"limit", launch_limit_name(k->limit), "largest_block",
							(int)k->largest))) {
			json_decref(jk);
			return NULL;
		}
	}
	return jk ? json_pack("{s:i, s:s, s:o}", "block", (int)l->block, "block_from", l->block_from, "kernels", jk)
		  : NULL;
}

/* Appends s to arr; false when out of memory. */
static bool push(json_t *arr, json_t *s)
{
	return json_array_append_new(arr, s) == 0;
}

/* A --binary that is a PyTorch extension is rebuilt for the GPUs judged with TORCH_CUDA_ARCH_LIST,
 * not fixed by another torch wheel. */
static void extension_vars(struct explain_given *given, const char *binary, const struct arch_target *t,
			   struct finding_vars *v)
{
	const struct arch_file *f = explain_given_mapped(given, binary);

	if (f)
		arch_torch_extension_vars(f, t->gpus[0].cc, t, v);
}

/* The catalogue values the text and the options give: the GPUs judged against, the binary,
 * the driver, the error's code, the library and versions the text names; whether the text is
 * PyTorch's and whether its OOM is one expandable_segments helps. */
static void text_vars(const struct explain_match *m, struct explain_given *given, bool torch,
		      const struct text_platform *tp, struct finding_vars *v)
{
	const struct arch_target *t = &given->target;
	const char *binary = given->binary && !given->binary_bad ? given->binary : m->path[0] ? m->path : NULL;
	char gpus[160] = "";
	size_t used = 0;

	finding_vars_init(v);
	for (size_t i = 0; i < t->n_gpus; i++) {
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= t->gpus[k].cc == t->gpus[i].cc;
		if (!seen && used < sizeof(gpus))
			used += (size_t)snprintf(gpus + used, sizeof(gpus) - used, "%ssm_%u", used ? " --gpu " : "",
						 t->gpus[i].cc);
	}
	if (gpus[0])
		finding_var(v, "gpus", "%s", gpus);
	if (binary)
		finding_var(v, "binary", "%s", binary);
	if (t->driver.known && t->driver.cuda) {
		struct version dc = version_from_cuda_int(t->driver.cuda);

		rules_cuda_vars(t->driver.version, &dc, v);
	} else if (m->driver_cuda > 0) { /* "found version 11040": the CUDA the driver runs */
		struct version dc = version_from_cuda_int(m->driver_cuda);

		rules_cuda_vars(NULL, &dc, v);
	}
	if (t->driver.version[0]) {
		finding_var(v, "driver_version", "%s", t->driver.version);
		finding_var(v, "driver_branch", "%.*s", (int)strcspn(t->driver.version, "."), t->driver.version);
	}
	if (m->error)
		finding_var(v, "code", "%d", m->error->code);
	if (m->library[0])
		finding_var(v, "library", "%s", m->library);
	if (m->versions[1][0])
		finding_var(v, "built_with", "%s", m->versions[1]);
	if (m->has_arch) {
		char arch[24];

		kb_arch_format(m->arch, "sm_", arch, sizeof(arch));
		finding_var(v, "sm", "%s", arch + 3);
	}
	finding_flag(v, "torch", torch);
	if (binary && t->n_gpus)
		extension_vars(given, binary, t, v);
	finding_flag(v, "windows", m->windows);
	/* the platform the text shows picks a finding's fix lines */
	finding_flag(v, "wsl", tp->os == TP_WSL2);
	finding_flag(v, "container", tp->container);
	finding_flag(v, "cdi", tp->hook == TP_HOOK_CDI);
	finding_flag(v, "kubernetes", tp->runtime == TP_KUBERNETES);
	finding_flag(v, "docker_desktop", tp->runtime == TP_DOCKER_DESKTOP);
	finding_flag(v, "jetson", tp->jetson);
	finding_flag(v, "hyperv", tp->hyperv);
	finding_flag(v, "macos", tp->os == TP_MACOS);
	finding_flag(v, "amd", tp->vendor == TP_AMD);
	finding_flag(v, "intel", tp->vendor == TP_INTEL);
	finding_flag(v, "apple", tp->vendor == TP_APPLE);
	if (tp_vendor_name(tp->vendor))
		finding_var(v, "vendor", "%s", tp->vendor == TP_AMD ? "AMD" : tp->vendor == TP_INTEL ? "Intel"
						 : tp->vendor == TP_APPLE ? "Apple" : "NVIDIA");
	finding_var(v, "pip", "%s", explain_pip_command(m->windows, m->embedded_python));
	finding_var(v, "python", "%s", explain_python_command(m->embedded_python));
	finding_flag(v, "torch_dll", m->torch_dll);
	if (m->library[0] && !m->torch_dll && kb_vendor_wheel(m->library))
		finding_var(v, "package", "%s-cuXY", kb_vendor_wheel(m->library));
	finding_flag(v, "force_jit", t->force_jit);
	finding_flag(v, "expandable", m->has_oom && oom_expandable_helps(&m->oom.n));
	/* a runtime's own knobs for its memory: llama.cpp's/Ollama's, vLLM's */
	finding_flag(v, "ggml", m->message && (strncmp(m->message->key, "ggml-", 5) == 0 ||
					       strncmp(m->message->key, "ollama-", 7) == 0));
	finding_flag(v, "vllm", m->message && strncmp(m->message->key, "vllm-", 5) == 0);
	finding_flag(v, "tgi", m->message && strncmp(m->message->key, "tgi-", 4) == 0);
	if (m->has_tgi && m->tgi.prefill_next > 0)
		finding_var(v, "tgi_prefill", "%ld", m->tgi.prefill_next);
	if (m->has_tgi && m->tgi.total_next > 0)
		finding_var(v, "tgi_total", "%ld", m->tgi.total_next);
	if (m->has_vram_wait)
		finding_var(v, "seconds", "%.1f", m->vram_wait_s);
}

/* What this machine says about the id when doctor's rule for it fires here too (no driver here
 * either, NVML failing here, ECC errors on a GPU here...): doctor's values and case, so the
 * finding reads as doctor's. */
static int machine_vars(const char *id, struct cd_run *run, struct finding_vars *v, const char **row, char *err)
{
	struct facts f;
	struct finding_vars mv;
	const char *mrow;
	int rc;

	if (!rules_machine_vars_known(id))
		return CD_OK;
	if ((rc = cd_run_facts(run, CD_FACTS_DRIVER, &f, err)) != CD_OK)
		return rc;
	finding_vars_init(&mv);
	if (rules_machine_vars(id, &f, &mv, &mrow)) {
		finding_vars_merge(v, &mv);
		*row = mrow;
	}
	return CD_OK;
}

static int report_match(struct report *r, const struct explain_match *m, struct explain_given *given, struct cd_run *run,
			bool offline, bool torch, const struct text_platform *tp, json_t *matches, char *err)
{
	const char *row = kb_finding_find(m->finding) ? m->finding : "cuda-error";
	const struct kb_finding *x;
	struct explain_checks ck = { 0 };
	struct finding_vars vars;
	char ev[8][EXPLAIN_EVIDENCE_LINE], subject[48];
	size_t n_ev;
	struct finding *f;
	json_t *jm = NULL, *jchecks = json_array(), *jfix = json_array(), *jev = json_array();
	bool ok;
	int rc = CD_OK;

	if (!(x = kb_finding_find(row))) {
		rc = cd_fail(err, CD_EFORMAT, "findings.tsv has no entry for %s", m->finding);
		goto out;
	}
	if (!jchecks || !jfix || !jev)
		goto bad_json;
	/* offline, only a binary against named GPUs is checked */
	bool checked = !offline || given->target.n_gpus > 0;
	if (checked && (rc = explain_checks_run(m, x->checks, given, run, &ck, err)) != CD_OK)
		goto out;
	text_vars(m, given, torch, tp, &vars);
	if (ck.runtime_verdict.fails && strcmp(m->finding, "runtime-newer-than-driver") == 0)
		driver_need_vars(&ck.runtime, &given->target.driver, &given->target, &vars);
	if (!offline && (rc = machine_vars(m->finding, run, &vars, &row, err)) != CD_OK)
		goto out;
	x = kb_finding_find(row);
	if (m->count > 1)
		snprintf(subject, sizeof(subject), "text, line %zu (last of %zu)", m->last_line, m->count);
	else
		snprintf(subject, sizeof(subject), "text, line %zu", m->line);
	f = finding_make(r, SEV_CATALOGUE, row, subject, &vars);
	if (!f)
		goto oom;
	for (size_t i = 0; i < m->n_lines; i++) {
		if (finding_evidence(f, "matched: %s", m->lines[i]))
			goto oom;
		if (!push(jev, report_json_text(m->lines[i])))
			goto bad_json;
	}
	if (m->count > 1 && finding_evidence(f, "%zu lines, first line %zu, last line %zu: %s", m->count, m->line,
					      m->last_line, m->last))
		goto oom;
	/* an error whose premise the text's own numbers contradict claims less */
	if (m->has_oom && f->severity == SEV_ERROR && premise_oom_contradicted(&m->oom.n, ev[0], sizeof(ev[0]))) {
		f->severity = SEV_WARN;
		if (finding_evidence(f, "%s", ev[0]))
			goto oom;
		if (!push(jev, report_json_text(ev[0])))
			goto bad_json;
	}
	n_ev = explain_offline_evidence(m, ev, 8);
	if (m->has_oom)
		n_ev += oom_evidence(&m->oom.n, m->oom.gpu, m->oom.suggests_expandable, ev + n_ev, 8 - n_ev);
	for (size_t i = 0; i < n_ev; i++) {
		if (finding_evidence(f, "%s", ev[i]))
			goto oom;
		if (!push(jev, report_json_text(ev[i])))
			goto bad_json;
	}
	for (size_t i = 0; i < ck.n; i++) {
		if (finding_evidence(f, "here, %s: %s: %s", ck.c[i].name, check_result_name(ck.c[i].result),
				     ck.c[i].detail))
			goto oom;
		if (!push(jchecks, json_pack("{s:s, s:s, s:o}", "name", ck.c[i].name, "result",
					     check_result_name(ck.c[i].result), "detail",
					     report_json_text(ck.c[i].detail))))
			goto bad_json;
	}
	if (offline && finding_evidence(f, "checks on this machine skipped (--offline)"))
		goto oom;
	for (size_t i = 0; i < f->n_fix; i++)
		if (!push(jfix, report_json_text(f->fix[i])))
			goto bad_json;
	jm = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:I, s:I, s:I, s:s}", "id", f->id, "severity",
		       severity_name(f->severity), "matched_text", m->lines[0], "layer", x->layer, "why", f->why,
		       "evidence", jev, "checks", checked ? jchecks : json_null(), "fix", jfix, "line",
		       (json_int_t)m->line, "last_line", (json_int_t)m->last_line, "count", (json_int_t)m->count,
		       "last_text", m->last);
	if (!jm)
		goto bad_json;
	ok = !m->error || json_object_set_new(jm, "error", json_pack("{s:s, s:i, s:s}", "name", m->error->name,
								     "code", m->error->code, "api",
								     kb_api_name(m->error->api))) == 0;
	if (ok && ck.binary.judged)
		ok = json_object_set_new(jm, "binary", binary_json(&ck.binary)) == 0;
	if (ok && ck.launch.judged)
		ok = json_object_set_new(jm, "launch", launch_json(&ck.launch)) == 0;
	if (!ok || json_array_append_new(matches, jm))
		goto bad_json;
	jm = NULL;
	goto out;
oom:
	rc = cd_fail(err, CD_ENOMEM, "out of memory");
	goto out;
bad_json:
	/* every string here is safe text, so the JSON library has nothing to refuse: a bug */
	rc = cd_fail(err, CD_EINTERNAL, "internal error: the JSON of finding %s could not be made", m->finding);
out:
	json_decref(jm);
	json_decref(jchecks);
	json_decref(jfix);
	json_decref(jev);
	explain_checks_free(&ck);
	return rc;
}

/* The platform the text shows: its record (JSON "platform"), text only where the text said
 * something of it. */
static int report_platform(struct report *r, const struct text_platform *tp, char *err)
{
	struct report_rec top, rec;
	int rc, top_rc;

	report_rec_top(&top, r);
	report_rec_object(&top, "platform", &rec);
	if (!tp->vendor && !tp->os && !tp->container && !tp->jetson && !tp->hyperv)
		report_rec_text(&rec, REPORT_TEXT_NONE);
	report_fields(&rec, &text_platform_field_table, tp, FIELD_ALL);
	rc = report_rec_end(&rec);
	top_rc = report_rec_end(&top);
	if (rc == CD_OK)
		rc = top_rc;
	return rc == CD_OK ? CD_OK : cd_fail(err, rc, "out of memory");
}

/* CD_OK when PATH opens as an input and starts like a file arch reads; else CD_EIO or
 * CD_EFORMAT with the reason in err, as arch would name it. */
static int binary_readable(const char *path, char *err)
{
	unsigned char head[4096];
	char ferr[CD_ERRMSG];
	size_t size;
	long long got;
	int fd, rc;

	if ((rc = file_open_input(path, &fd, &size, ferr)) != CD_OK)
		return cd_fail(err, rc == CD_ENOMEM ? rc : CD_EIO, "%s", ferr);
	got = os_read(fd, head, sizeof(head));
	os_close(fd);
	if (got < 0)
		return cd_fail(err, CD_EIO, "%.400s: cannot be read", path);
	if (!dc_has_magic(head, (size_t)got))
		return cd_fail(err, CD_EFORMAT, "%.400s: %s", path,
			       got ? "not an ELF or PE file, archive, fatbin, cubin, offload bundle or PTX text" : "empty file");
	return CD_OK;
}

static int explain_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct explain_given given;
	struct explain_result res = { 0 };
	struct explain_scan *sc = NULL;
	struct strbuf sb;
	size_t len = 0, lines;
	bool offline = false;
	json_t *matches = NULL;
	int a = 1, rc = CD_OK;

	explain_given_init(&given);
	/* main.c parsed the options wherever they stood: the operands are the text */
	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;

		switch (g->args->v[i].opt->id) {
		case OPT_OFFLINE: offline = true; break;
		case OPT_PATTERNS: return print_patterns(r, err);
		case OPT_BINARY: {
			/* a --binary that cannot be read is said on stderr and exits 3; the text is
			 * still explained, and the check says it was skipped */
			char ferr[CD_ERRMSG];

			given.binary = v;
			if ((rc = binary_readable(v, ferr)) != CD_OK) {
				if (rc == CD_ENOMEM)
					return cd_fail(err, rc, "out of memory");
				/* a path that is missing here may be the program's on the machine the
				 * text came from: fixes still name it; a file that is no binary is not it */
				given.binary_bad = rc == CD_EFORMAT;
				cmd_input_error(r, "explain", ferr);
			}
			break;
		}
		case OPT_GPU:
			if ((rc = arch_target_gpu_option(&given.target, v, err)) != CD_OK)
				return rc;
			break;
		case OPT_DRIVER:
			if ((rc = arch_target_driver_option(&given.target, v, err)) != CD_OK)
				return rc;
			break;
		case OPT_BLOCK: {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (!*v || *end || *v == '-' || n == 0 || n > 1u << 20)
				return cd_fail(err, CD_EUSAGE, "--block %.40s: give threads per block, 1 to 1048576", v);
			given.block = (unsigned)n;
			break;
		}
		}
	}
	given.offline = offline;
	if ((rc = explain_scan_new(&sc, err)) != CD_OK)
		goto out;
	if (a < argc && (operand_is_log(argc, argv, a) || operand_looks_like_path(argc, argv, a))) {
		rc = scan_file(sc, argv[a], err);
	} else if (a < argc && strcmp(argv[a], "-") != 0) {
		sb_init(&sb);
		for (int i = a; i < argc; i++) {
			if (i > a)
				sb_append(&sb, " ");
			sb_append(&sb, argv[i]);
		}
		if (sb.failed) {
			sb_free(&sb);
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		rc = explain_scan_feed(sc, sb.buf ? sb.buf : "", sb.len, err);
		sb_free(&sb);
	} else if (os_isatty(OS_STDIN)) {
		rc = cd_fail(err, CD_EUSAGE, "give the error text as an argument or pipe it in "
			     "(cmd 2>&1 | cudoctor explain)");
	} else {
		rc = scan_stdin(sc, err);
	}
	if (rc != CD_OK)
		goto out;
	if ((rc = explain_scan_finish(sc, &res, err)) != CD_OK)
		goto out;
	len = explain_scan_bytes(sc);
	lines = explain_scan_lines(sc);
	explain_result_classify_oom(&res, oom_finding_of);
	if (given.block)
		explain_result_launch_given(&res);
	matches = json_array();
	if (!matches) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	report_section(r, "Explain");
	report_kv(r, "text", "%zu bytes, %zu line%s", len, lines, lines == 1 ? "" : "s");
	report_kv(r, "recognised", "%zu", res.n);
	if (!offline) { /* a text explained here: what it leaves unsaid is this machine's */
		const struct platform_info *pf;

		if ((rc = cd_run_platform(g->run, &pf, err)) != CD_OK)
			goto out;
		text_platform_add_host(&res.platform, pf);
	}
	if ((rc = report_platform(r, &res.platform, err)) != CD_OK)
		goto out;
	if (res.n == 0) {
		report_line(r, "No CUDA error that cudoctor knows is in the text.");
		report_line(r, "Run `cudoctor doctor` to check the driver, toolkits and runtimes here, "
			    "or paste more of the log.");
	}
	for (size_t i = 0; i < res.n; i++)
		if ((rc = report_match(r, &res.m[i], &given, g->run, offline,
				       res.torch || (given.binary && strstr(given.binary, "torch")), &res.platform, matches,
				       err)) != CD_OK)
			goto out;
	report_json_set(r, "matches", matches);
	matches = NULL;
	if ((rc = nccl_explain_log(r, explain_scan_nccl(sc), err)) != CD_OK)
		goto out;
	report_json_set(r, "offline", json_boolean(offline));
	rc = report_answer_findings(r, SEV_INFO); /* -q: the findings are explain's answer */
	if (rc != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
out:
	json_decref(matches);
	explain_result_free(&res);
	explain_scan_free(sc);
	explain_given_free(&given);
	return rc;
}

const struct cd_command cmd_explain = {
	.name = "explain",
	.summary = "what a pasted CUDA error means, checked on this machine, and its fix",
	.usage = "cudoctor explain [--offline] [--binary PATH] [--gpu SPEC]...\n"
		 "                        [--driver VER] [--block N] [TEXT... | LOGFILE]\n"
		 "       some-command 2>&1 | cudoctor explain",
	.help = explain_help,
	.opts = explain_opts,
	.run = explain_run,
};
