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
#include "cmd/explain/fields.h"
#include "cmd/explain/nccl.h"
#include "explain/evidence.h"
#include "explain/explain.h"
#include "explain/textfacts.h"
#include "kb/vendor_libs.h"
#include "os/fs.h"
#include "os/term.h"
#include "rules/arch.h"
#include "rules/explain_judge.h"
#include "rules/oom.h"
#include "rules/premise.h"
#include "rules/rules.h"
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

enum { OPT_OFFLINE = 1, OPT_BINARY, OPT_GPU, OPT_DRIVER, OPT_BLOCK, OPT_PATTERNS, OPT_PYTHON };

static const struct cli_opt explain_opts[] = {
	{ .id = OPT_OFFLINE, .long_name = "offline", .help = "skip the checks on this machine" },
	{ .id = OPT_BINARY, .long_name = "binary", .arg = CLI_REQUIRED, .metavar = "PATH",
	  .help = "the program or library that failed: check which images it carries and judge them "
		  "as `cudoctor arch` does",
	  .complete = CLI_C_FILE },
	{ .id = OPT_PYTHON, .long_name = "python", .arg = CLI_OPTIONAL, .metavar = "PY",
	  .help = "without --binary: the frameworks' device code in the site-packages of python3 (or PY: an "
		  "interpreter, or a venv/conda folder read without running it), as arch --python finds it; the "
		  "binary check reads the file that has no code for a GPU" },
	{ CMD_OPT_GPU(OPT_GPU, "judge --binary against this GPU (sm_89, 8.9, 89, sm_90a, H200; AMD: gfx1100, \"RX 7900 XTX\") "
		  "instead of the GPUs here (an AMD error: the AMD GPUs here); repeatable; also with --offline, for "
		  "a log from another machine") },
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

/* What the run knows once for every match: the text's origin and this machine's driver view. */
struct explain_ctx {
	struct explain_given *given;
	size_t n_given_gpus;        /* --gpu's, before the checks add this machine's */
	bool driver_given;
	bool offline, torch;
	struct text_origin origin;
	struct facts here;          /* this machine's driver view; valid when probed */
	bool probed;
	const struct text_facts *text;
	const struct text_platform *platform;
};

/* The finding's evidence: the text's lines and what they imply (counted into *n_text), then
 * this machine's checks, labelled by whether the text is from it. CD_OK or CD_ENOMEM. */
static int match_evidence(struct finding *f, const struct explain_match *m, const struct explain_checks *ck,
			  const struct explain_ctx *c, size_t *n_text)
{
	char ev[8][EXPLAIN_EVIDENCE_LINE];
	size_t n_ev;

	for (size_t i = 0; i < m->n_lines; i++)
		if (finding_evidence(f, "matched: %s", m->lines[i]))
			return CD_ENOMEM;
	if (m->via == VIA_PHRASE && finding_evidence(f, "a short phrase, read as the error whose words it holds"))
		return CD_ENOMEM;
	/* an error whose premise the text's own numbers contradict claims less */
	if (m->has_oom && f->severity == SEV_ERROR && premise_oom_contradicted(&m->oom.n, ev[0], sizeof(ev[0]))) {
		f->severity = SEV_WARN;
		if (finding_evidence(f, "%s", ev[0]))
			return CD_ENOMEM;
	}
	n_ev = explain_offline_evidence(m, ev, 8);
	if (m->has_oom)
		n_ev += oom_evidence(&m->oom.n, m->oom.gpu, m->oom.suggests_expandable, ev + n_ev, 8 - n_ev);
	for (size_t i = 0; i < n_ev; i++)
		if (finding_evidence(f, "%s", ev[i]))
			return CD_ENOMEM;
	*n_text = f->n_evidence;
	if (m->count > 1 && finding_evidence(f, "%zu lines, first line %zu, last line %zu: %s", m->count, m->line,
					      m->last_line, m->last))
		return CD_ENOMEM;
	if (c->probed && !c->origin.here && finding_evidence(f, "%s", c->origin.why))
		return CD_ENOMEM;
	for (size_t i = 0; i < ck->n; i++)
		if (finding_evidence(f, "%s, %s: %s: %s", c->origin.here ? "here" : "this machine", ck->c[i].name,
				     check_result_name(ck->c[i].result), ck->c[i].detail))
			return CD_ENOMEM;
	if (c->offline && finding_evidence(f, "checks on this machine skipped (--offline)"))
		return CD_ENOMEM;
	return CD_OK;
}

static int report_match(struct report *r, const struct explain_match *m, struct explain_ctx *c, struct cd_run *run,
			struct report_rec *matches, char *err)
{
	struct explain_given *given = c->given;
	const char *binary = given->binary && !given->binary_bad ? given->binary : m->path[0] ? m->path : NULL;
	const struct kb_finding *x = kb_finding_find(kb_finding_find(m->finding) ? m->finding : "cuda-error");
	struct explain_checks ck = { 0 };
	struct text_error e;
	struct explain_judge j;
	struct explain_verdict v;
	char subject[48];
	size_t n_text = 0;
	struct finding *f;
	/* offline, only a binary against named GPUs is checked */
	bool checked = !c->offline || given->target.n_gpus > 0;
	int rc = CD_OK;

	if (!x) {
		rc = cd_fail(err, CD_EFORMAT, "findings.tsv has no entry for %s", m->finding);
		goto out;
	}
	if (checked && (rc = explain_checks_run(m, x->checks, given, run, &ck, err)) != CD_OK)
		goto out;
	explain_match_facts(m, &e);
	j = (struct explain_judge){ &e, c->text, &c->origin, &given->target, c->n_given_gpus, c->driver_given, binary,
				    ck.binary.judged		      ? explain_given_mapped(given, ck.binary.path)
				    : binary && given->target.n_gpus ? explain_given_mapped(given, binary)
								      : NULL,
				    c->torch, checked ? &ck : NULL, c->probed ? &c->here : NULL, c->platform };
	if ((rc = rules_explain_verdict(&j, &v, err)) != CD_OK)
		goto out;
	x = kb_finding_find(v.row);
	if (m->count > 1)
		snprintf(subject, sizeof(subject), "text, line %zu (last of %zu)", m->last_line, m->count);
	else
		snprintf(subject, sizeof(subject), "text, line %zu", m->line);
	if (!(f = finding_make(r, SEV_CATALOGUE, v.row, subject, &v.vars)) ||
	    match_evidence(f, m, &ck, c, &n_text) != CD_OK) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = explain_match_fields(matches, f, x, m, n_text, &ck, checked, &v)) == CD_ENOMEM)
		rc = cd_fail(err, rc, "out of memory");
	else if (rc != CD_OK) /* every string here is safe text, so nothing can be refused: a bug */
		rc = cd_fail(err, CD_EINTERNAL, "internal error: the JSON of finding %s could not be made", m->finding);
out:
	explain_checks_free(&ck);
	return rc;
}

/* Every match's object under "matches" (its text is the finding), and the lines that say
 * nothing was recognised. */
static int report_matches(struct report *r, const struct explain_result *res, struct explain_ctx *c,
			  struct cd_run *run, char *err)
{
	struct report_rec top, matches;
	int rc = CD_OK, end;

	report_rec_top(&top, r);
	if (res->n == 0) {
		report_rec_line(&top, "No CUDA error that cudoctor knows is in the text.");
		report_rec_line(&top, "Run `cudoctor doctor` to check the driver, toolkits and runtimes here, "
				      "or paste more of the log.");
	}
	report_rec_array(&top, "matches", &matches);
	report_rec_text(&matches, REPORT_TEXT_NONE);
	for (size_t i = 0; i < res->n && rc == CD_OK; i++)
		rc = report_match(r, &res->m[i], c, run, &matches, err);
	end = report_rec_end(&matches);
	end = report_rec_end(&top) == CD_OK ? end : top.rc;
	if (rc == CD_OK && end != CD_OK)
		rc = cd_fail(err, end, end == CD_ENOMEM ? "out of memory" : "internal error: the JSON of a match could not be made");
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

/* Once per run: the options as given (before the checks add this machine's GPUs), and whether
 * the text is from this machine, read against its driver part unless --offline. */
static int explain_origin(struct explain_ctx *c, const struct explain_result *res, bool offline, struct cd_run *run,
			  char *err)
{
	const struct gpu_probe *gp = NULL;
	const struct platform_info *pf = NULL;
	int rc;

	c->offline = c->given->offline = offline;
	c->n_given_gpus = c->given->target.n_gpus;
	c->driver_given = c->given->target.driver.known;
	c->torch = res->torch || (c->given->binary && strstr(c->given->binary, "torch"));
	c->text = &res->facts;
	c->platform = &res->platform;
	if (!offline && res->n) {
		if ((rc = cd_run_driver(run, &gp, err)) != CD_OK || (rc = cd_run_platform(run, &pf, err)) != CD_OK ||
		    (rc = cd_run_facts(run, CD_FACTS_DRIVER, &c->here, err)) != CD_OK)
			return rc;
		c->probed = true;
	}
	if (offline || res->n) {
		bool driverless = true;

		for (size_t i = 0; i < res->n; i++)
			driverless &= rules_error_without_driver(res->m[i].finding);
		rules_text_origin(&res->facts, gp, pf && pf->windows, driverless, &c->origin);
	}
	else
		snprintf(c->origin.why, sizeof(c->origin.why), "nothing recognised in the text");
	return CD_OK;
}

static int explain_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct explain_given given;
	struct explain_result res = { 0 };
	struct explain_scan *sc = NULL;
	struct explain_ctx ctx = { .given = &given };
	struct strbuf sb;
	size_t len = 0, lines;
	bool offline = false;
	struct report_rec top, o;
	int a = 1, rc = CD_OK;

	explain_given_init(&given);
	sb_init(&sb);
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
		case OPT_PYTHON:
			/* read here, where an interpreter that does not answer can be reported */
			given.python = true;
			if ((rc = cd_run_input_python(&given.python_files, v, r, err)) != CD_OK)
				goto out;
			break;
		case OPT_GPU:
			if ((rc = arch_target_gpu_option(&given.target, v, err)) != CD_OK)
				goto out;
			break;
		case OPT_DRIVER:
			if ((rc = arch_target_driver_option(&given.target, v, err)) != CD_OK)
				goto out;
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
		for (int i = a; i < argc; i++) {
			if (i > a)
				sb_append(&sb, " ");
			sb_append(&sb, argv[i]);
		}
		if (sb.failed) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		rc = explain_scan_feed(sc, sb.buf ? sb.buf : "", sb.len, err);
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
	/* a phrase typed from memory names an error in words of its own */
	if (sb.buf && (rc = explain_phrase(sb.buf, sb.len, &res, err)) != CD_OK)
		goto out;
	explain_result_classify_oom(&res, oom_finding_of);
	if (given.block)
		explain_result_launch_given(&res);
	report_rec_top(&top, r);
	report_rec_section(&top, "Explain");
	report_fieldf(&top, "text", NULL, rv_null(), "%zu bytes, %zu line%s", len, lines, lines == 1 ? "" : "s");
	report_field(&top, "recognised", NULL, rv_int((long long)res.n));
	if ((rc = report_rec_end(&top)) != CD_OK) {
		rc = cd_fail(err, rc, "out of memory");
		goto out;
	}
	if ((rc = explain_origin(&ctx, &res, offline, g->run, err)) != CD_OK)
		goto out;
	if (!offline && ctx.origin.here) { /* a text from here: what it leaves unsaid is this machine's */
		const struct platform_info *pf;

		if ((rc = cd_run_platform(g->run, &pf, err)) != CD_OK)
			goto out;
		text_platform_add_host(&res.platform, pf);
	}
	if ((rc = report_platform(r, &res.platform, err)) != CD_OK)
		goto out;
	if ((rc = report_matches(r, &res, &ctx, g->run, err)) != CD_OK)
		goto out;
	if ((rc = nccl_explain_log(r, explain_scan_nccl(sc), err)) != CD_OK)
		goto out;
	report_rec_top(&top, r);
	report_field(&top, NULL, "offline", rv_bool(offline));
	report_rec_object(&top, "text_origin", &o);
	report_field(&o, NULL, "here", rv_bool(ctx.origin.here));
	report_field(&o, NULL, "why", rv_str(ctx.origin.why));
	if ((rc = report_rec_end(&o)) == CD_OK)
		rc = report_rec_end(&top);
	if (rc == CD_OK)
		rc = report_answer_findings(r, SEV_INFO); /* -q: the findings are explain's answer */
	if (rc != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
out:
	sb_free(&sb);
	explain_result_free(&res);
	explain_scan_free(sc);
	explain_given_free(&given);
	return rc;
}

const struct cd_command cmd_explain = {
	.name = "explain",
	.summary = "what a pasted CUDA error means, checked on this machine, and its fix",
	.usage = "cudoctor explain [--offline] [--binary PATH | --python[=PY]]\n"
		 "                        [--gpu SPEC]... [--driver VER] [--block N]\n"
		 "                        [TEXT... | LOGFILE]\n"
		 "       some-command 2>&1 | cudoctor explain",
	.help = explain_help,
	.opts = explain_opts,
	.run = explain_run,
};
