/* `cudoctor mem status [--oom FILE|-]`: per GPU, memory by NVML and by the driver,
 * the CUDA context's cost measured here, every process with its memory, MIG; and,
 * given a PyTorch OOM message, its classification with this machine's numbers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/gpu_mig.h"
#include "cmd/mem/internal.h"
#include "explain/oom_text.h"
#include "mem/context_cost.h"
#include "util/units.h"
#include "probe/gpus.h"
#include "rules/oom.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MAX_MESSAGE (1u << 20)

/* "python train.py --lr 3e-4" from /proc/PID/cmdline, or why not. */
static void process_command(unsigned pid, bool host_pids, char *buf, size_t cap)
{
	char path[64], *text = NULL;
	size_t len = 0;
	struct stat st;
	if (host_pids) {
		snprintf(buf, cap, "(PID in another PID namespace: NVML reports host PIDs here)");
		return;
	}
	snprintf(path, sizeof path, "/proc/%u", pid);
	if (stat(path, &st) != 0) {
		snprintf(buf, cap, "(not in this PID namespace: another container or the host)");
		return;
	}
	snprintf(path, sizeof path, "/proc/%u/cmdline", pid);
	if (file_read_text(path, 4096, &text, &len, NULL) != CD_OK || len == 0) {
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

static void show_gpu(struct report *r, struct status_gpu *s, json_t *arr)
{
	const struct gpu_info *g = s->g;
	char a[48], b[48], c[48], d[48], subject[300];
	json_t *j = json_object();
	snprintf(subject, sizeof subject, "GPU %d (%s)", g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index, g->name);
	report_section(r, "%s", subject);
	json_object_set_new(j, "gpu", json_string(subject));
	json_object_set_new(j, "name", json_string(g->name));
	json_object_set_new(j, "cuda_index", json_integer(g->cuda_ordinal));
	json_object_set_new(j, "nvml_index", json_integer(g->nvml_index));
	if (gpu_has(g, GF_NVML_MEMORY)) {
		report_kv(r, "NVML", "total %s, used %s, free %s%s%s",
			  units_fmt_bytes((uint64_t)g->nvml_memory_total_bytes, a, sizeof a),
			  units_fmt_bytes((uint64_t)g->memory_used_bytes, b, sizeof b),
			  units_fmt_bytes((uint64_t)g->memory_free_bytes, c, sizeof c),
			  gpu_has(g, GF_NVML_MEMORY_RESERVED) ? ", reserved by the driver " : "",
			  gpu_has(g, GF_NVML_MEMORY_RESERVED) ? units_fmt_bytes((uint64_t)g->memory_reserved_bytes, d, sizeof d) : "");
		json_object_set_new(j, "nvml_total_bytes", json_integer(g->nvml_memory_total_bytes));
		json_object_set_new(j, "nvml_used_bytes", json_integer(g->memory_used_bytes));
		json_object_set_new(j, "nvml_free_bytes", json_integer(g->memory_free_bytes));
		if (gpu_has(g, GF_NVML_MEMORY_RESERVED))
			json_object_set_new(j, "nvml_reserved_bytes", json_integer(g->memory_reserved_bytes));
	} else {
		report_kv(r, "NVML", "memory not available");
	}
	if (s->cost.cu_valid) {
		report_kv(r, "driver", "free %s of %s (cuMemGetInfo, with cudoctor's context)",
			  units_fmt_bytes(s->cost.cu_free, a, sizeof a), units_fmt_bytes(s->cost.cu_total, b, sizeof b));
		json_object_set_new(j, "cuda_free_bytes", json_integer((json_int_t)s->cost.cu_free));
		json_object_set_new(j, "cuda_total_bytes", json_integer((json_int_t)s->cost.cu_total));
	}
	if (s->cost.measured) {
		report_kv(r, "CUDA context", "%s on this driver and GPU (%s)", units_fmt_bytes(s->cost.bytes, a, sizeof a),
			  s->cost.how);
		json_object_set_new(j, "cuda_context_bytes", json_integer((json_int_t)s->cost.bytes));
	} else {
		report_kv(r, "CUDA context", "not measured here (%s)",
			  g->cuda_ordinal < 0 ? "not visible to CUDA" : "NVML shows no change for this process");
		json_object_set_new(j, "cuda_context_bytes", json_null());
	}
	bool mig = gpu_has(g, GF_MIG_MODE) && g->mig_mode_current;
	if (gpu_has(g, GF_MIG_MODE)) {
		report_kv(r, "MIG", "%s%s", mig ? "enabled: processes below carry their GPU/compute instance" : "disabled",
			  g->mig_mode_pending != g->mig_mode_current ? " (a change is pending a reset)" : "");
		json_object_set_new(j, "mig_enabled", json_boolean(mig));
	}
	/* MIG slices: each is a device of its own to CUDA, with its own memory */
	if (mig) {
		gpu_mig_devices_text(r, g);
		json_object_set_new(j, "mig_devices", gpu_mig_devices_json(g));
	}
	json_t *procs = json_array();
	if (g->n_processes) {
		static const char *const hdr[] = {"PID", "memory", "MIG GI/CI", "command"};
		report_table(r, 4, hdr);
	} else if (gpu_has(g, GF_PROCESSES)) {
		report_kv(r, "processes", "none");
	} else {
		report_kv(r, "processes", "not available from NVML");
	}
	for (size_t i = 0; i < g->n_processes; i++) {
		const struct gpu_process *p = &g->processes[i];
		char pid[24], mem[48], gi[48], cmd[256];
		snprintf(pid, sizeof pid, "%u", p->pid);
		if (p->used_memory_bytes >= 0)
			units_fmt_bytes((uint64_t)p->used_memory_bytes, mem, sizeof mem);
		else
			snprintf(mem, sizeof mem, "not available");
		if (p->gpu_instance_id >= 0)
			snprintf(gi, sizeof gi, "%lld/%lld", p->gpu_instance_id, p->compute_instance_id);
		else
			snprintf(gi, sizeof gi, "-");
		process_command(p->pid, s->cost.pid_namespace_differs, cmd, sizeof cmd);
		const char *cells[] = {pid, mem, gi, cmd};
		report_table_row(r, cells);
		json_t *pj = json_object();
		json_object_set_new(pj, "pid", json_integer(p->pid));
		json_object_set_new(pj, "used_bytes", p->used_memory_bytes >= 0 ? json_integer(p->used_memory_bytes) : json_null());
		json_object_set_new(pj, "command", json_string(cmd));
		if (p->gpu_instance_id >= 0) {
			json_object_set_new(pj, "gpu_instance", json_integer(p->gpu_instance_id));
			json_object_set_new(pj, "compute_instance", json_integer(p->compute_instance_id));
		}
		json_array_append_new(procs, pj);
	}
	json_object_set_new(j, "processes", procs);
	json_object_set_new(j, "pid_namespace_differs", json_boolean(s->cost.pid_namespace_differs));
	json_array_append_new(arr, j);
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
	struct finding *f = report_add_finding(r, SEV_WARN, "oom-other-process", subject,
					       "other processes hold %s of %s", units_fmt_bytes(s->others, a, sizeof a),
					       units_fmt_bytes((uint64_t)t, b, sizeof b));
	if (!f)
		return;
	for (size_t i = 0; i < g->n_processes; i++)
		if (g->processes[i].used_memory_bytes > 0 && g->processes[i].pid != (unsigned)getpid())
			cmd_note(r, finding_evidence(f, "PID %u holds %s", g->processes[i].pid,
					 units_fmt_bytes((uint64_t)g->processes[i].used_memory_bytes, a, sizeof a)));
	cmd_note(r, finding_why(f, "Device memory is shared by every process on the GPU and not paged out: what another "
		       "process holds is simply not there for yours."));
	cmd_note(r, finding_fix(f, "stop or move the processes listed (nvidia-smi shows the same PIDs)"));
	cmd_note(r, finding_fix(f, "run on another GPU: CUDA_VISIBLE_DEVICES=N"));
	cmd_note(r, finding_fix(f, "cap the neighbours: torch.cuda.set_per_process_memory_fraction(F), vLLM --gpu-memory-utilization F"));
}

static void classify_message(struct report *r, const char *text, size_t len, struct status_gpu *gpus, size_t n)
{
	struct oom_message m;
	char a[48], b[48], c[48];
	if (oom_parse(text, len, &m) != CD_OK) {
		report_line(r, "--oom: no PyTorch \"CUDA out of memory\" message found in the text given.");
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
	struct finding *f = report_add_finding(r, cls == OOM_CLASS_UNKNOWN ? SEV_INFO : SEV_ERROR, id, subject,
					       "the PyTorch OOM message: %s",
					       cls == OOM_CLASS_CAPACITY ? "the request does not fit this GPU"
					       : cls == OOM_CLASS_OTHER_PROCESS ? "other processes held the memory"
					       : cls == OOM_CLASS_FRAGMENTATION ? "enough was cached, not in one block"
										: "not enough numbers to classify");
	json_t *j = json_object();
	json_object_set_new(j, "classification", json_string(id));
	if (!f)
		goto out;
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
	if (cls == OOM_CLASS_FRAGMENTATION) {
		cmd_note(r, finding_why(f, "PyTorch's caching allocator keeps freed blocks inside the segments it got from "
			       "cudaMalloc; blocks in different segments never merge, so free space can be large and "
			       "still not hold one request."));
		if (oom_expandable_helps(&m.n))
			cmd_note(r, finding_fix(f, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
		cmd_note(r, finding_fix(f, "allocate the largest tensors first; keep shapes few (pad to buckets)"));
	} else if (cls == OOM_CLASS_OTHER_PROCESS) {
		cmd_note(r, finding_why(f, "Another process held the memory this one needed."));
		cmd_note(r, finding_fix(f, "see the processes above; stop or move them, or pick another GPU with CUDA_VISIBLE_DEVICES"));
	} else if (cls == OOM_CLASS_CAPACITY) {
		cmd_note(r, finding_why(f, "This process's own tensors fill the GPU; the allocator already freed its cache and retried."));
		cmd_note(r, finding_fix(f, "cudoctor mem estimate MODEL --gpu-memory SIZE: the largest batch/context that fits"));
		cmd_note(r, finding_fix(f, "smaller batch or context, activation checkpointing, quantised weights, more GPUs"));
	}
out:
	json_object_set_new(j, "gpu", json_integer(m.gpu));
	json_object_set_new(j, "others_from", json_string(others_from));
	report_json_set(r, "oom_message", j);
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
	if ((rc = cd_run_driver(run, r, err)))
		goto out;
	const struct gpu_probe *pp = &run->probe;
	gpus = calloc(pp->n_gpus ? pp->n_gpus : 1, sizeof *gpus);
	if (!gpus) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	const struct cudrv *cu = run->cuda_usable ? run->cu : NULL;
	const struct nvml *nv = driver_nvml_ok(pp) ? run->nv : NULL;
	json_t *arr = json_array();
	report_json_set(r, "gpus", arr);
	for (size_t i = 0; i < pp->n_gpus; i++) {
		struct status_gpu *s = &gpus[i];
		s->g = &pp->gpus[i];
		if (cu && s->g->cuda_ordinal >= 0) {
			char cerr[CD_ERRMSG];
			if (mem_context_cost(cu, nv, s->g->cuda_ordinal, s->g->nvml_index, &s->cost, cerr))
				report_line(r, "GPU %d: context not measured: %s", s->g->cuda_ordinal, cerr);
		}
		s->others_known = gpu_has(s->g, GF_PROCESSES);
		for (size_t k = 0; k < s->g->n_processes; k++)
			if (s->g->processes[k].used_memory_bytes > 0 && s->g->processes[k].pid != (unsigned)getpid())
				s->others += (uint64_t)s->g->processes[k].used_memory_bytes;
		show_gpu(r, s, arr);
		other_process_finding(r, s);
		cmd_note(r, answer_gpu(r, s));
	}
	if (!pp->n_gpus)
		cmd_note(r, report_answer(r, "no GPU"));
	if (msg)
		classify_message(r, msg, msg_len, gpus, pp->n_gpus);
	cmd_note(r, report_answer_findings(r));
out:
	free(gpus);
	free(msg);
	return rc;
}
