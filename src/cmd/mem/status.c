/* `cudoctor mem status [--oom FILE|-]`: per GPU, memory by NVML and by the driver,
 * the CUDA context's cost measured here, every process with its memory, MIG; and,
 * given a PyTorch OOM message, its classification with this machine's numbers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "explain/oom_text.h"
#include "mem/context_cost.h"
#include "os/fs.h"
#include "os/proc.h"
#include "rules/catalogue.h"
#include "rules/oom.h"
#include "show/gpu_facts.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"
#include "util/str.h"
#include "util/units.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MAX_MESSAGE (1u << 20)

/* "python train.py --lr 3e-4" from /proc/PID/cmdline, or why not. */
static void process_command(unsigned pid, bool host_pids, char *buf, size_t cap)
{
	char rel[64], path[4096], *text = NULL;
	size_t len = 0;
	struct os_stat st;
	if (host_pids) {
		snprintf(buf, cap, "(PID in another PID namespace: NVML reports host PIDs here)");
		return;
	}
	snprintf(rel, sizeof rel, "/proc/%u", pid);
	if (host_path(path, sizeof path, NULL, rel) != CD_OK || os_stat(path, &st) != 0) {
		snprintf(buf, cap, "(not in this PID namespace: another container or the host)");
		return;
	}
	snprintf(rel, sizeof rel, "/proc/%u/cmdline", pid);
	if (host_path(path, sizeof path, NULL, rel) != CD_OK || file_read_text(path, 4096, &text, &len, NULL) != CD_OK ||
	    len == 0) {
		free(text);
		snprintf(buf, cap, "(command line not readable)");
		return;
	}
	for (size_t i = 0; i + 1 < len; i++)
		if (text[i] == 0)
			text[i] = ' ';
	snprintf(buf, cap, "%.200s", text);
	free(text);
}

struct status_gpu {
	const struct gpu_info *g;
	struct mem_context_cost cost;
	uint64_t others;          /* memory of processes other than cudoctor */
	bool others_known;
};

/* The processes holding memory on g: a table (or a line) and "processes", null when NVML
 * cannot list them. Keys as devices names them. */
static void processes_fields(struct report_rec *w, const struct status_gpu *s)
{
	static const char *const hdr[] = { "PID", "memory", "MIG GI/CI", "command" };
	const struct gpu_info *g = s->g;
	struct report_rec tab, row;

	if (!gpu_has(g, GF_PROCESSES)) {
		report_fieldf(w, "processes", "processes", rv_null(), "not available from NVML");
		return;
	}
	if (!g->n_processes) {
		report_rec_array(w, "processes", &tab); /* [] */
		if (report_rec_end(&tab) == CD_OK)
			report_fieldf(w, "processes", NULL, rv_null(), "none");
		return;
	}
	report_rec_table(w, "processes", 4, hdr, &tab);
	for (size_t i = 0; i < g->n_processes; i++) {
		const struct gpu_process *p = &g->processes[i];
		char mem[UNITS_BUF], cmd[256];

		process_command(p->pid, s->cost.pid_namespace_differs, cmd, sizeof cmd);
		report_rec_item(&tab, &row);
		report_field(&row, "PID", "pid", rv_int(p->pid));
		if (p->used_memory_bytes >= 0)
			report_fieldf(&row, "memory", "used_memory_bytes", rv_int(p->used_memory_bytes), "%s",
				      units_fmt_bytes((uint64_t)p->used_memory_bytes, mem, sizeof mem));
		else
			report_fieldf(&row, "memory", "used_memory_bytes", rv_null(), "not available");
		report_field(&row, "command", "command", rv_str(cmd));
		if (p->gpu_instance_id >= 0)
			report_fieldf(&row, "MIG GI/CI", "gpu_instance_id", rv_int(p->gpu_instance_id), "%lld/%lld",
				      p->gpu_instance_id, p->compute_instance_id);
		else
			report_fieldf(&row, "MIG GI/CI", "gpu_instance_id", rv_null(), "-");
		report_field(&row, NULL, "compute_instance_id",
			     p->compute_instance_id >= 0 ? rv_int(p->compute_instance_id) : rv_null());
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		return; /* the failure is w's now */
}

/* One GPU: its section and its object of "gpus" (the GPU's facts under devices' keys, and
 * what this command measured). */
static void gpu_fields(struct report_rec *arr, struct status_gpu *s)
{
	const struct field_table *C = &mem_context_cost_field_table;
	const struct gpu_info *g = s->g;
	bool nvml = gpu_has(g, GF_NVML_MEMORY), reserved = gpu_has(g, GF_NVML_MEMORY_RESERVED);
	bool mig = gpu_has(g, GF_MIG_MODE) && g->mig_mode_current;
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], d[UNITS_BUF], subject[300];
	struct report_rec w;

	snprintf(subject, sizeof subject, "GPU %d (%s)", g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index, g->name);
	report_rec_item(arr, &w);
	report_rec_section(&w, "%s", subject);
	report_field(&w, NULL, "gpu", rv_str(subject));
	report_field(&w, NULL, "name", rv_str(g->name));
	report_field(&w, NULL, "cuda_ordinal", g->cuda_ordinal >= 0 ? rv_int(g->cuda_ordinal) : rv_null());
	report_field(&w, NULL, "nvml_index", g->nvml_index >= 0 ? rv_int(g->nvml_index) : rv_null());
	if (nvml)
		report_fieldf(&w, "NVML", "nvml_memory_total_bytes", rv_int(g->nvml_memory_total_bytes),
			      "total %s, used %s, free %s%s%s", units_fmt_bytes((uint64_t)g->nvml_memory_total_bytes, a, sizeof a),
			      units_fmt_bytes((uint64_t)g->memory_used_bytes, b, sizeof b),
			      units_fmt_bytes((uint64_t)g->memory_free_bytes, c, sizeof c),
			      reserved ? ", reserved by the driver " : "",
			      reserved ? units_fmt_bytes((uint64_t)g->memory_reserved_bytes, d, sizeof d) : "");
	else
		report_fieldf(&w, "NVML", "nvml_memory_total_bytes", rv_null(), "memory not available");
	report_field(&w, NULL, "memory_used_bytes", nvml ? rv_int(g->memory_used_bytes) : rv_null());
	report_field(&w, NULL, "memory_free_bytes", nvml ? rv_int(g->memory_free_bytes) : rv_null());
	report_field(&w, NULL, "memory_reserved_bytes", reserved ? rv_int(g->memory_reserved_bytes) : rv_null());
	report_one_fieldf(&w, C, MEM_CTX_CUDA_FREE, &s->cost, "free %s of %s (cuMemGetInfo, with cudoctor's context)",
			     units_fmt_bytes(s->cost.cu_free, a, sizeof a), units_fmt_bytes(s->cost.cu_total, b, sizeof b));
	report_one_json(&w, C, MEM_CTX_CUDA_TOTAL, &s->cost);
	if (s->cost.measured)
		report_one_fieldf(&w, C, MEM_CTX_BYTES, &s->cost, "%s on this driver and GPU (%s)",
				     units_fmt_bytes(s->cost.bytes, a, sizeof a), s->cost.how);
	else
		report_fieldf(&w, C->fields[MEM_CTX_BYTES].label, C->fields[MEM_CTX_BYTES].key, rv_null(), "not measured here (%s)",
			      g->cuda_ordinal < 0 ? "not visible to CUDA" : "NVML shows no change for this process");
	if (gpu_has(g, GF_MIG_MODE))
		report_fieldf(&w, "MIG", "mig_mode_current", rv_bool(mig), "%s%s",
			      mig ? "enabled: processes below carry their GPU/compute instance" : "disabled",
			      g->mig_mode_pending != g->mig_mode_current ? " (a change is pending a reset)" : "");
	else
		report_field(&w, NULL, "mig_mode_current", rv_null());
	/* MIG slices: each is a device of its own to CUDA, with its own memory */
	if (mig) {
		gpu_facts_mig(&w, g);
	}
	processes_fields(&w, s);
	report_one_json(&w, C, MEM_CTX_PID_NAMESPACE, &s->cost);
	if (report_rec_end(&w) != CD_OK)
		return; /* the failure is arr's now */
}

/* -q: one line per GPU, its memory now (NVML's numbers, else the driver's) and who holds it. */
static int answer_gpu(struct report *r, const struct status_gpu *s)
{
	const struct gpu_info *g = s->g;
	char a[48], b[48], c[48], procs[64];

	if (!gpu_has(g, GF_PROCESSES))
		snprintf(procs, sizeof procs, "processes not available from NVML");
	else
		snprintf(procs, sizeof procs, "%zu process%s", g->n_processes, g->n_processes == 1 ? "" : "es");
	if (gpu_has(g, GF_NVML_MEMORY))
		return report_answer(r, "GPU %d (%s): used %s, free %s of %s, %s", g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index,
				     g->name, units_fmt_bytes((uint64_t)g->memory_used_bytes, a, sizeof a),
				     units_fmt_bytes((uint64_t)g->memory_free_bytes, b, sizeof b),
				     units_fmt_bytes((uint64_t)g->nvml_memory_total_bytes, c, sizeof c), procs);
	if (s->cost.cu_valid)
		return report_answer(r, "GPU %d (%s): free %s of %s (the driver's count), %s",
				     g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index, g->name,
				     units_fmt_bytes(s->cost.cu_free, a, sizeof a), units_fmt_bytes(s->cost.cu_total, b, sizeof b), procs);
	return report_answer(r, "GPU %d (%s): memory not available, %s", g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index,
			     g->name, procs);
}

/* Other processes holding memory: the threshold of src/rules/oom.c's rule 3. */
static void other_process_finding(struct report *r, const struct status_gpu *s)
{
	const struct gpu_info *g = s->g;
	double t = (double)(gpu_has(g, GF_NVML_MEMORY) ? g->nvml_memory_total_bytes : g->memory_total_bytes);
	double limit = t / 10 > GIB ? t / 10 : GIB;
	char a[48], b[48], subject[300];
	if (!s->others_known || (double)s->others < limit || t <= 0)
		return;
	snprintf(subject, sizeof subject, "GPU %d (%s)", g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index, g->name);
	struct finding_vars v;
	finding_vars_init(&v);
	finding_var(&v, "others", "%s", units_fmt_bytes(s->others, a, sizeof a));
	finding_var(&v, "total", "%s", units_fmt_bytes((uint64_t)t, b, sizeof b));
	struct finding *f = finding_make(r, SEV_WARN, "oom-other-process/status", subject, &v);
	if (!f)
		return;
	for (size_t i = 0; i < g->n_processes; i++)
		if (g->processes[i].used_memory_bytes > 0 && g->processes[i].pid != os_pid())
			cmd_note(r, finding_evidence(f, "PID %u holds %s", g->processes[i].pid,
					 units_fmt_bytes((uint64_t)g->processes[i].used_memory_bytes, a, sizeof a)));
}

static void classify_message(struct report *r, const char *text, size_t len, struct status_gpu *gpus, size_t n)
{
	struct oom_message m;
	char a[48], b[48], c[48];
	if (oom_parse(text, len, &m) != CD_OK) {
		struct report_rec top;

		report_rec_top(&top, r);
		report_rec_line(&top, "--oom: no PyTorch \"CUDA out of memory\" message found in the text given.");
		cmd_note(r, report_rec_end(&top));
		cmd_note(r, report_answer(r, "--oom: no PyTorch \"CUDA out of memory\" message in the text"));
		return;
	}
	/* numbers the message lacks come from this machine, now: total and the other
	 * processes on the GPU it names (the failed process has usually exited) */
	const char *others_from = "the message";
	struct status_gpu *s = NULL;
	for (size_t i = 0; i < n; i++)
		if (gpus[i].g->cuda_ordinal == (m.gpu >= 0 ? m.gpu : 0))
			s = &gpus[i];
	if (s && !(m.n.have & OOM_HAVE_TOTAL) && gpu_has(s->g, GF_NVML_MEMORY)) {
		m.n.total = (double)s->g->nvml_memory_total_bytes;
		m.n.have |= OOM_HAVE_TOTAL;
	}
	/* only what the message could not say: other processes NVML sees now, when the
	 * message listed none (with none here, the classifier's own derivation stands) */
	if (s && !(m.n.have & OOM_HAVE_OTHERS) && s->others_known && s->others > 0 && m.n_processes == 0) {
		m.n.others = (double)s->others;
		m.n.have |= OOM_HAVE_OTHERS;
		others_from = "NVML now";
	}
	enum oom_class cls = oom_classify(&m.n);
	const char *id = oom_class_finding(cls);
	char subject[64];
	snprintf(subject, sizeof subject, "GPU %d", m.gpu >= 0 ? m.gpu : 0);
	/* the message's case of the class's id: what the numbers of one message can say */
	char row[64];
	struct finding_vars v;
	snprintf(row, sizeof row, "%s/message", id);
	finding_vars_init(&v);
	finding_flag(&v, "expandable", oom_expandable_helps(&m.n));
	struct finding *f = finding_make(r, SEV_CATALOGUE, row, subject, &v);
	struct report_rec top, w;
	report_rec_top(&top, r);
	report_rec_object(&top, "oom_message", &w);
	report_field(&w, NULL, "classification", rv_str(id));
	report_field(&w, NULL, "gpu", rv_int(m.gpu));
	report_field(&w, NULL, "others_from", rv_str(others_from));
	cmd_note(r, report_rec_end(&w));
	cmd_note(r, report_rec_end(&top));
	if (!f)
		return;
	if (m.n.have & OOM_HAVE_REQUESTED)
		cmd_note(r, finding_evidence(f, "tried to allocate %s", units_fmt_bytes((uint64_t)m.n.requested, a, sizeof a)));
	if ((m.n.have & OOM_HAVE_TOTAL) && (m.n.have & OOM_HAVE_FREE))
		cmd_note(r, finding_evidence(f, "total %s, free %s", units_fmt_bytes((uint64_t)m.n.total, a, sizeof a),
				 units_fmt_bytes((uint64_t)m.n.free_bytes, b, sizeof b)));
	if (m.n.have & OOM_HAVE_RESERVED_UNALLOC)
		cmd_note(r, finding_evidence(f, "reserved by PyTorch but unallocated %s",
				 units_fmt_bytes((uint64_t)m.n.reserved_unalloc, c, sizeof c)));
	double o = oom_others(&m.n);
	if (o >= 0)
		cmd_note(r, finding_evidence(f, "other processes %s (from %s)", units_fmt_bytes((uint64_t)o, a, sizeof a), others_from));
}

static int read_message(const char *path, char **text, size_t *len, char *err)
{
	if (strcmp(path, "-") != 0)
		return file_read_text(path, MAX_MESSAGE, text, len, err);
	struct strbuf sb;
	char chunk[4096];
	size_t n;
	sb_init(&sb);
	while (sb.len < MAX_MESSAGE && (n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		sb_append_n(&sb, chunk, n);
	*len = sb.len;
	*text = sb_detach(&sb);
	return *text ? CD_OK : cd_fail(err, CD_ENOMEM, "out of memory");
}

enum { O_OOM = 1 };

const struct cli_opt mem_status_opts[] = {
	{ .id = O_OOM, .long_name = "oom", .arg = CLI_REQUIRED, .metavar = "FILE",
	  .help = "a PyTorch out-of-memory message (a file, or - for stdin) to classify against the "
		  "GPUs' state", .complete = CLI_C_FILE },
	{ 0 },
};

int mem_status_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	const char *oom_path = NULL;
	int rc = CD_OK;

	for (size_t i = 0; i < g->args->n; i++)
		if (g->args->v[i].opt->id == O_OOM)
			oom_path = g->args->v[i].value;
	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "unexpected '%.60s'", argv[1]);
	char *msg = NULL;
	size_t msg_len = 0;
	if (oom_path && (rc = read_message(oom_path, &msg, &msg_len, err)))
		return rc;

	/* the run's driver, judged as doctor and devices judge it (no libcuda and no NVML: no-driver) */
	struct cd_run *run = g->run;
	struct status_gpu *gpus = NULL;
	if ((rc = cd_run_judge_driver(run, r, err)))
		goto out;
	const struct gpu_probe *pp = &run->probe;
	gpus = calloc(pp->n_gpus ? pp->n_gpus : 1, sizeof *gpus);
	if (!gpus) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	const struct cudrv *cu = run->cuda_usable ? run->cu : NULL;
	const struct nvml *nv = driver_nvml_ok(pp) ? run->nv : NULL;
	struct report_rec top, arr;

	report_rec_top(&top, r);
	report_rec_array(&top, "gpus", &arr);
	for (size_t i = 0; i < pp->n_gpus; i++) {
		struct status_gpu *s = &gpus[i];
		s->g = &pp->gpus[i];
		if (cu && s->g->cuda_ordinal >= 0) {
			char cerr[CD_ERRMSG];
			if (mem_context_cost(cu, nv, s->g->cuda_ordinal, s->g->nvml_index, &s->cost, cerr))
				report_rec_line(&top, "GPU %d: context not measured: %s", s->g->cuda_ordinal, cerr);
		}
		s->others_known = gpu_has(s->g, GF_PROCESSES);
		for (size_t k = 0; k < s->g->n_processes; k++)
			if (s->g->processes[k].used_memory_bytes > 0 && s->g->processes[k].pid != os_pid())
				s->others += (uint64_t)s->g->processes[k].used_memory_bytes;
		gpu_fields(&arr, s);
		other_process_finding(r, s);
		cmd_note(r, answer_gpu(r, s));
	}
	if (report_rec_end(&arr) != CD_OK || report_rec_end(&top) != CD_OK) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if (!pp->n_gpus)
		cmd_note(r, report_answer(r, "%s", cd_run_amd_only(run) ? "no NVIDIA GPU: an AMD machine (mem status reads "
									 "NVIDIA GPUs; devices shows the AMD GPUs' VRAM)"
								       : "no GPU"));
	if (msg)
		classify_message(r, msg, msg_len, gpus, pp->n_gpus);
out:
	free(gpus);
	free(msg);
	return rc;
}
