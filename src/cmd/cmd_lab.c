/* `cudoctor lab`: runs the experiments of src/lab/ on a GPU and reports each claim,
 * its set-up, measurements, verdict and lesson; --plot writes SVG charts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/lab/machine.h"
#include "cmd/lab/render.h"
#include "lab/fields.h"
#include "driver/cudrv.h"
#include "lab/fatbin.h"
#include "lab/gpu.h"
#include "lab/lab.h"
#include "lab/nvml_dev.h"
#include "lab/svg.h"
#include "rules/catalogue.h"
#include "os/env.h"
#include "os/fs.h"
#include "util/err.h"
#include "util/outfile.h"
#include "util/str.h"

static const char help[] =
	"Proves the claims of the CUDA programming model on this GPU: each lab prints the claim, "
	"the set-up, a table of measurements, the verdict (confirmed, refuted, inconclusive) with "
	"the numbers that decided it, and what it means for your code. `cudoctor lab list` names "
	"every lab. `cudoctor --html FILE lab ...` also writes one self-contained page with every chart. "
	"-q prints a line per lab (name: verdict: the numbers that decided it) and the warn and "
	"error findings; with list, the names alone.";

enum { O_QUICK = 1, O_PLOT, O_DEVICE, O_SEED };

static const struct cli_opt lab_opts[] = {
	{ .id = O_QUICK, .long_name = "quick", .help = "smaller sweeps and fewer repetitions (seconds)" },
	{ .id = O_PLOT, .long_name = "plot", .arg = CLI_REQUIRED, .metavar = "DIR",
	  .help = "write one SVG chart per lab into DIR", .complete = CLI_C_DIR },
	{ .id = O_DEVICE, .long_name = "device", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "run on CUDA device N (default 0)" },
	{ .id = O_SEED, .long_name = "seed", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "seed of the random inputs (default: from the clock)" },
	{ 0 },
};

struct progress {
	bool on;
	size_t index, total;
};

static void show_progress(void *user, const char *lab, double fraction, const char *what)
{
	struct progress *p = user;
	if (!p->on)
		return;
	double all = ((double)p->index + (fraction < 0 ? 0 : fraction > 1 ? 1 : fraction)) / (double)p->total;
	int filled = (int)(all * 24 + 0.5);
	fprintf(stderr, "\r\033[K[%.*s%*s] %zu/%zu %s %s", filled, "########################", 24 - filled, "",
		p->index + 1, p->total, lab, what);
	fflush(stderr);
}

static int write_plot(const char *dir, const struct lab *l, const struct lab_result *res, char *err)
{
	if (!res->plot.used)
		return CD_OK;
	char *svg = lab_svg_render(&res->plot);
	if (!svg)
		return CD_OK;
	char *path = cd_asprintf("%s/%s.svg", dir, l->name);
	int rc = path ? outfile_write_all(path, "--plot", svg, strlen(svg), err)
		      : cd_fail(err, CD_ENOMEM, "out of memory");
	free(path);
	free(svg);
	return rc;
}

static int list_labs(struct report *r)
{
	const char *hdr[3];
	size_t ncols = report_fields_headers(&lab_field_table, FIELD_BRIEF, hdr, 3);
	struct report_rec top, t, row;
	int rc;

	report_rec_top(&top, r);
	report_rec_section(&top, "labs");
	report_rec_table(&top, "available", ncols, hdr, &t);
	for (size_t i = 0; i < lab_count(); i++) {
		const struct lab *l = lab_at(i);

		report_rec_item(&t, &row);
		report_one_field(&row, &lab_field_table, LAB_F_NAME, l);
		report_one_field(&row, &lab_field_table, LAB_F_CONCEPT, l);
		report_one_field(&row, &lab_field_table, LAB_F_MEASURES, l);
		report_one_json(&row, &lab_field_table, LAB_F_CLAIM, l);
		if (report_rec_end(&row) != CD_OK)
			break;
		cmd_note(r, report_answer(r, "%s", l->name)); /* -q: the names, for a script's loop */
	}
	rc = report_rec_end(&t);
	return report_rec_end(&top) == CD_OK ? rc : top.rc;
}

/* The labs could not start after the driver check passed (a module the driver rejects, a
 * context it cannot create): lab-failed for the whole run, exit 1. */
static void labs_not_started(struct report *r, int device, const char *evidence)
{
	struct finding_vars v;
	struct finding *f;

	finding_vars_init(&v);
	finding_var(&v, "device", "%d", device);
	if ((f = finding_make(r, SEV_CATALOGUE, "lab-failed/start", "cudoctor lab", &v)))
		cmd_note(r, finding_evidence(f, "%s", evidence));
}

/* -q: the verdict lines on stdout; the warn and error findings (a lab refuted, the driver
 * missing) on stderr */
static int run_labs(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	bool quick = false;
	const char *plot = NULL;
	int device = 0;
	unsigned long long seed = (unsigned long long)time(NULL);

	for (size_t i = 0; i < g->args->n; i++) {
		const char *optarg = g->args->v[i].value;
		char *end;

		switch (g->args->v[i].opt->id) {
		case O_QUICK: quick = true; break;
		case O_PLOT: plot = optarg; break;
		case O_DEVICE:
			device = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || device < 0)
				return cd_fail(err, CD_EUSAGE, "--device wants a device number, not '%.40s'", optarg);
			break;
		case O_SEED:
			seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end)
				return cd_fail(err, CD_EUSAGE, "--seed wants a number, not '%.40s'", optarg);
			break;
		}
	}
	/* the operands: list | all | run NAME... | NAME... */
	const struct lab *chosen[64];
	size_t n = 0;
	bool all = false, list = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i == 1 && strcmp(a, "run") == 0)
			continue;
		if (i == 1 && strcmp(a, "list") == 0) { list = true; continue; }
		if (strcmp(a, "all") == 0) { all = true; continue; }
		const struct lab *l = lab_find(a);
		if (!l) {
			struct strbuf sb;
			sb_init(&sb);
			for (size_t k = 0; k < lab_count(); k++)
				sb_printf(&sb, "%s%s", k ? ", " : "", lab_at(k)->name);
			cd_fail(err, CD_EUSAGE, "no lab named '%.40s' (labs: %s)", a, sb.buf ? sb.buf : "");
			sb_free(&sb);
			return CD_EUSAGE;
		}
		if (n < sizeof chosen / sizeof *chosen)
			chosen[n++] = l;
	}
	if (list)
		return list_labs(r);
	if (all)
		for (n = 0; n < lab_count() && n < sizeof chosen / sizeof *chosen; n++)
			chosen[n] = lab_at(n);
	if (n == 0)
		return cd_fail(err, CD_EUSAGE, "name a lab, `all` or `list`");
	int made = plot ? os_mkdir(plot) : 0;
	if (made != 0 && made != -EEXIST)
		return cd_fail(err, CD_EIO, "--plot %s: %s", plot, strerror(-made));

	/* the driver judged as doctor and devices judge it; the kernels are this build's own */
	struct cd_run *run = g->run;
	int rc = cd_run_judge_driver(run, r, err);
	if (rc != CD_OK)
		return rc;
	if (lab_fatbin_size == 0) {
		struct finding *f = finding_make(r, SEV_CATALOGUE, "lab-no-kernels", "cudoctor lab", NULL);
		if (f)
			cmd_note(r, finding_evidence(f, "nvcc was not found when cudoctor was built"));
		return CD_OK;
	}
	if (!run->cuda_usable)
		return CD_OK;

	struct cudrv *d = run->cu;
	char lerr[CD_ERRMSG] = "";
	struct lab_ctx c;
	memset(&c, 0, sizeof c);
	c.quick = quick;
	c.tiny = os_getenv("CUDOCTOR_LAB_TINY") && strcmp(os_getenv("CUDOCTOR_LAB_TINY"), "1") == 0;
	c.seed = seed;
	c.nv = driver_nvml_ok(&run->probe) ? run->nv : NULL;
	c.probe = &run->probe;
	rc = lab_open(&c, d, device, lab_fatbin, lerr);
	if (rc == CD_EUSAGE)
		return cd_fail(err, CD_EUSAGE, "%s", lerr);
	if (rc != CD_OK) {
		labs_not_started(r, device, lerr);
		return CD_OK;
	}
	struct lab_nvml nv;
	lab_nvml_open(&nv, c.nv, c.d, c.dev);
	c.sm_clock_mhz = lab_nvml_sm_clock;
	c.pcie_link = lab_nvml_link;
	c.clock_user = &nv;
	lab_machine_fill(&c, run);
	struct progress prog = { .on = g->stderr_is_tty, .total = n };
	c.progress = show_progress;
	c.progress_user = &prog;

	struct report_rec top, dev, labs;
	int sm_now = lab_nvml_sm_clock(&nv); /* 0: no NVML */

	report_rec_top(&top, r);
	report_rec_object(&top, "device", &dev);
	report_rec_section(&dev, "device");
	report_fields(&dev, &lab_dev_field_table, &c.info, FIELD_ALL);
	report_field(&dev, NULL, "seed", rv_int((long long)(seed & 0x7fffffffffffffffull)));
	report_fieldf(&dev, "clocks", "sm_clock_mhz_now", rv_int(sm_now), "SM %d MHz now (NVML%s), %d MHz peak; memory %d MHz peak",
		      sm_now, nv.ok ? "" : " unavailable", c.info.clock_khz / 1000, c.info.mem_clock_khz / 1000);
	cmd_note(r, report_rec_end(&dev));
	report_rec_array(&top, "labs", &labs);
	double t0 = lab_now_s();
	int status = CD_OK;
	for (size_t i = 0; i < n; i++) {
		struct lab_result *res = calloc(1, sizeof *res);
		if (!res) {
			status = cd_fail(err, CD_ENOMEM, "out of memory");
			break;
		}
		res->name = chosen[i]->name;
		prog.index = i;
		c.current = chosen[i]->name;
		show_progress(&prog, chosen[i]->name, 0, "");
		char e[CD_ERRMSG] = "";
		int lrc = chosen[i]->run(&c, res, e);
		if (lrc != CD_OK) {
			res->verdict = LAB_FAILED;
			if (!res->decided[0])
				snprintf(res->decided, sizeof res->decided, "%s", e);
		} else if (res->wrong_result) {
			res->verdict = LAB_FAILED;
		}
		/* a failed launch can leave the context unusable: say so once and stop */
		lab_render_result(&labs, chosen[i], res, e);
		if (plot && lrc == CD_OK) {
			char perr[CD_ERRMSG];
			if (write_plot(plot, chosen[i], res, perr) != CD_OK)
				report_rec_line(&labs, "plot not written: %s", perr);
		}
		free(res);
		if ((lrc != CD_OK && strstr(e, "ILLEGAL") != NULL) || c.hung)
			break;
	}
	if (prog.on)
		fputs("\r\033[K", stderr);
	cmd_note(r, report_rec_end(&labs));
	report_rec_section(&top, "summary");
	report_fieldf(&top, "time", NULL, rv_null(), "%.1f s", lab_now_s() - t0);
	cmd_note(r, report_rec_end(&top));
	lab_close(&c);
	lab_nvml_close(&nv);
	return status;
}

const struct cd_command cmd_lab = {
	.name = "lab",
	.summary = "prove the CUDA programming model on this GPU, claim by claim",
	.usage = "cudoctor lab list\n"
		 "       cudoctor lab [run] NAME... [--quick] [--plot DIR] [--device N] [--seed N]\n"
		 "       cudoctor lab all [--quick] [--plot DIR] [--device N] [--seed N]",
	.help = help,
	.opts = lab_opts,
	.operands = CLI_C_LAB,
	.operand_words = "list all run",
	.needs = NEEDS_DRIVER_GENTLY, /* `lab list` needs no driver */
	.run = run_labs,
};
