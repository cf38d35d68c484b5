/* NCCL's failures and slow paths as findings, from the facts of its log; the CUDA error behind
 * an unhandled cuda error is named through the CUDA error catalogue. */
#include "rules/nccl.h"

#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "util/err.h"

static const char *const result_names[8] = {
	"ncclSuccess",	       "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage",	 "ncclRemoteError", "ncclInProgress",
};

static const char subject[] = "NCCL";

static int oom(char *err)
{
	return cd_fail(err, CD_ENOMEM, "nccl rules: out of memory");
}

static bool seen(const struct nccl_log *l, enum nccl_event e)
{
	return l->ev[e].count > 0;
}

/* "-> N" lines count only beside a WARN or an error a framework raised: NCCL also traces
 * failures it recovers from (a missing plugin, an IB extension turned off) */
static size_t codes(const struct nccl_log *l, int code)
{
	return l->warn_lines ? l->result_codes[code] : 0;
}

/* evidence: the first line of an event, or the first "-> code" trace line */
static int ev_line(struct finding *f, const struct nccl_log *l, enum nccl_event e)
{
	return seen(l, e) ? finding_evidence(f, "%s", l->ev[e].line) : CD_OK;
}

static int code_line(struct finding *f, const struct nccl_log *l, int code)
{
	if (!codes(l, code))
		return CD_OK;
	return finding_evidence(f, "%s (%zu line%s; result %d is %s)", l->result_line[code], l->result_codes[code],
				l->result_codes[code] == 1 ? "" : "s", code, result_names[code]);
}

static const struct nccl_channel *first_channel(const struct nccl_log *l, const char *transport, const char *via_part)
{
	for (size_t i = 0; i < l->n_ch; i++)
		if (strcmp(l->ch[i].transport, transport) == 0 && (!via_part || strstr(l->ch[i].via, via_part)))
			return &l->ch[i];
	return NULL;
}

static size_t count_channels(const struct nccl_log *l, const char *transport, const char *via_part)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n_ch; i++)
		n += strcmp(l->ch[i].transport, transport) == 0 && (!via_part || strstr(l->ch[i].via, via_part));
	return n;
}

static int channel_evidence(struct finding *f, const struct nccl_channel *c, size_t n)
{
	return finding_evidence(f, "channel %02d: rank %d [%s] -> rank %d [%s] via %s (%zu connection%s like it)",
				c->channel, c->src_rank, c->src_dev, c->dst_rank, c->dst_dev, c->via, n,
				n == 1 ? "" : "s");
}

/* sockets between nodes: a channel over NET/Socket, or the socket network on a log of
 * several hosts */
static bool socket_traffic(const struct nccl_log *l)
{
	bool socket = strcmp(l->network, "Socket") == 0 || l->socket_net;

	return first_channel(l, "NET", "Socket") != NULL ||
	       (socket && (first_channel(l, "NET", NULL) != NULL || l->n_hosts >= 2));
}

static int rule_version(const struct nccl_log *l, struct report *r, char *err)
{
	if (l->n_versions < 2)
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_ERROR, "nccl-version-mismatch", subject,
					       "the ranks run different NCCL releases (%s and %s)", l->versions[0],
					       l->versions[1]);
	if (!f)
		return oom(err);
	for (size_t i = 0; i < l->n_versions; i++)
		if (finding_evidence(f, "%s", l->version_lines[i]) != CD_OK)
			return oom(err);
	if (finding_why(f, "Every rank of a communicator must run the same NCCL: the bootstrap and the wire "
			   "protocol between releases are not compatible, so mixed releases hang or fail at init.") ||
	    finding_fix(f, "python -c 'import torch; print(torch.cuda.nccl.version())'  # on every node") ||
	    finding_fix(f, "install the same NCCL (or the same PyTorch wheel) on every node"))
		return oom(err);
	return CD_OK;
}

static int rule_socket(const struct nccl_log *l, struct report *r, char *err)
{
	if (!socket_traffic(l))
		return CD_OK;
	const struct nccl_channel *c = first_channel(l, "NET", "Socket");
	struct finding *f = report_add_finding(r, SEV_WARN, "nccl-socket-fallback", subject,
					       "traffic between nodes goes over TCP sockets, not InfiniBand/RoCE");
	if (!f)
		return oom(err);
	if ((c && channel_evidence(f, c, count_channels(l, "NET", "Socket"))) ||
	    (l->network[0] && finding_evidence(f, "Using network %s", l->network)) ||
	    ev_line(f, l, NCCL_EV_IB_MISSING) ||
	    finding_why(f, "NCCL's socket transport copies through the host's TCP stack: a few GB/s per node "
			   "instead of the tens of GB/s an RDMA NIC gives, so collectives across nodes slow down by "
			   "an order of magnitude.") ||
	    finding_fix(f, "ibv_devinfo   # are RDMA devices visible in this container or node?") ||
	    finding_fix(f, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: look for NET/IB lines"))
		return oom(err);
	return CD_OK;
}

static int rule_ib(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_IB_MISSING) || (!seen(l, NCCL_EV_IB_CONFIGURED) && !socket_traffic(l)))
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_WARN, "nccl-ib-missing", subject,
					       "NCCL found no InfiniBand/RoCE device");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_IB_MISSING) || ev_line(f, l, NCCL_EV_IB_CONFIGURED) ||
	    finding_why(f, "NCCL's IB plugin opens libibverbs and lists the HCAs; with none (no rdma-core in the "
			   "image, /dev/infiniband not passed to the container, a wrong NCCL_IB_HCA) it falls back "
			   "to sockets for inter-node traffic.") ||
	    finding_fix(f, "ls /dev/infiniband; ibv_devices") ||
	    finding_fix(f, "docker run --device=/dev/infiniband --cap-add=IPC_LOCK ...  # or the Kubernetes RDMA "
			   "device plugin") ||
	    finding_fix(f, "unset NCCL_IB_HCA or set it to a device ibv_devices lists"))
		return oom(err);
	return CD_OK;
}

static int rule_p2p(const struct nccl_log *l, struct report *r, char *err)
{
	const struct nccl_channel *shm = first_channel(l, "SHM", NULL);

	if (!seen(l, NCCL_EV_P2P_DISABLED) && !shm)
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_WARN, "nccl-p2p-disabled", subject,
					       "GPUs of one node exchange data through host memory, not peer to peer");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_P2P_DISABLED) || (shm && channel_evidence(f, shm, count_channels(l, "SHM", NULL))) ||
	    finding_why(f, "Without P2P every transfer between two GPUs of the node is staged through a shared "
			   "host buffer (SHM): two PCIe crossings instead of one NVLink or PCIe hop. Causes: "
			   "NCCL_P2P_DISABLE or NCCL_P2P_LEVEL set, PCIe ACS or the IOMMU redirecting peer traffic, "
			   "a VM without P2P, or GPUs that do not support P2P.") ||
	    finding_fix(f, "env | grep NCCL_P2P") || finding_fix(f, "nvidia-smi topo -p2p r") ||
	    finding_fix(f, "sudo lspci -vvv | grep ACSCtl   # ACS on bridges breaks P2P; disable it in the BIOS"))
		return oom(err);
	return CD_OK;
}

static int rule_timeout(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_TIMEOUT))
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_ERROR, "nccl-timeout", subject,
					       "a collective did not complete in time (%zu line%s)",
					       l->ev[NCCL_EV_TIMEOUT].count, l->ev[NCCL_EV_TIMEOUT].count == 1 ? "" : "s");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_TIMEOUT) || ev_line(f, l, NCCL_EV_REMOTE) ||
	    finding_why(f, "A collective completes only when every rank joins it. A timeout means some rank never "
			   "called it (a crash, a data-dependent branch, uneven data so ranks run different numbers "
			   "of steps), called a different collective, or the network between ranks stalled.") ||
	    finding_fix(f, "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1: see which rank is behind") ||
	    finding_fix(f, "NCCL_DEBUG=INFO on every rank; check the first rank that failed, not the last"))
		return oom(err);
	return CD_OK;
}

/* the catalogue entry whose runtime message NCCL quoted */
static const struct kb_error *cuda_error_of(const struct nccl_log *l)
{
	const struct kb_error *by_code = NULL;

	for (size_t i = 0; i < kb_error_count(); i++) {
		const struct kb_error *e = kb_error_at(i);
		if (!e || e->api != KB_API_RUNTIME)
			continue;
		if (l->cuda_error[0] && e->string && strcmp(e->string, l->cuda_error) == 0)
			return e;
		if (l->cuda_code >= 0 && e->code == l->cuda_code)
			by_code = e;
	}
	return by_code;
}

static int rule_cuda(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_CUDA) && !codes(l, 1))
		return CD_OK;
	/* a CUDA failure in the NVLS transport is the NVSwitch fabric's state, which explain's matcher
	 * names from the same line (fabric-manager-state) */
	if (seen(l, NCCL_EV_NVLS))
		return CD_OK;
	const struct kb_error *e = cuda_error_of(l);
	struct finding *f;

	if (e)
		f = report_add_finding(r, SEV_ERROR, "nccl-cuda-error", subject, "NCCL failed on a CUDA call: %s (%d)",
				       e->name, e->code);
	else
		f = report_add_finding(r, SEV_ERROR, "nccl-cuda-error", subject, "NCCL failed on a CUDA call%s%s%s",
				       l->cuda_error[0] ? ": '" : "", l->cuda_error, l->cuda_error[0] ? "'" : "");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_CUDA) || code_line(f, l, 1) ||
	    (e && finding_evidence(f, "%s is \"%s\"%s%s", e->name, e->string, e->finding ? "; cudoctor explain: " : "",
				   e->finding ? e->finding : "")) ||
	    finding_why(f, "ncclUnhandledCudaError means a CUDA runtime call inside NCCL failed; the CUDA error is "
			   "the cause (no kernel image for this GPU in an old NCCL, out of memory, peer access, a "
			   "device lost). NCCL_DEBUG=WARN prints it as Cuda failure '...'.") ||
	    finding_fix(f, "NCCL_DEBUG=WARN <your command> 2>&1 | cudoctor explain") ||
	    (e && e->finding && finding_fix(f, "cudoctor explain %s", e->name)))
		return oom(err);
	return CD_OK;
}

static int rule_system(const struct nccl_log *l, struct report *r, char *err)
{
	bool shm = seen(l, NCCL_EV_SHM_DEV);

	if (!seen(l, NCCL_EV_SYSTEM) && !shm && !codes(l, 2))
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_ERROR, "nccl-system-error", subject, "%s",
					       shm ? "NCCL could not create its shared-memory segment (/dev/shm)"
						   : "NCCL failed on a system call (memory, files, sockets)");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_SHM_DEV) || ev_line(f, l, NCCL_EV_SYSTEM) || code_line(f, l, 2) ||
	    finding_why(f, "%s", shm ? "NCCL's SHM transport and its proxy buffers live in /dev/shm; Docker gives a "
				       "container 64 MB there, too little for several GPUs."
				     : "ncclSystemError is a failed operating-system call: a socket that cannot "
				       "connect (firewall, wrong interface), memory that cannot be pinned (ulimit -l), "
				       "or shared memory that cannot be allocated.") ||
	    (shm && finding_fix(f, "docker run --ipc=host ...   # or --shm-size=16g")) ||
	    finding_fix(f, "df -h /dev/shm; ulimit -l") ||
	    finding_fix(f, "NCCL_DEBUG=INFO: the WARN line before the error names the failing call"))
		return oom(err);
	return CD_OK;
}

static int rule_usage(const struct nccl_log *l, struct report *r, char *err)
{
	bool dup = seen(l, NCCL_EV_DUP_GPU);

	if (!seen(l, NCCL_EV_INVALID_USAGE) && !dup && !codes(l, 5))
		return CD_OK;
	/* NCCL 2.28 reports a bootstrap with no interface as invalid usage: the interface is the cause,
	 * which explain's matcher names (nccl-socket-ifname-invalid) */
	if (!dup && seen(l, NCCL_EV_NO_IFACE))
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_ERROR, "nccl-invalid-usage", subject, "%s",
					       dup ? "two ranks of one communicator use the same GPU"
						   : "the program used NCCL in a way it does not allow");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_DUP_GPU) || ev_line(f, l, NCCL_EV_INVALID_USAGE) || code_line(f, l, 5) ||
	    finding_why(f, "%s", dup ? "NCCL needs one GPU per rank. Usually every process called "
				       "torch.cuda.set_device(0) (or none did), or CUDA_VISIBLE_DEVICES gave all ranks "
				       "the same device."
				     : "ncclInvalidUsage is a programming error: mismatched collectives, a "
				       "communicator used after an abort, or a group call left open.") ||
	    (dup && finding_fix(f, "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))  # before init_process_group")) ||
	    finding_fix(f, "NCCL_DEBUG=WARN: the WARN line says which rule was broken"))
		return oom(err);
	return CD_OK;
}

static int rule_internal(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_INTERNAL) && !codes(l, 3))
		return CD_OK;
	struct finding *f = report_add_finding(r, SEV_ERROR, "nccl-internal-error", subject,
					       "NCCL reported an internal error (ncclInternalError, result 3)");
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_INTERNAL) || code_line(f, l, 3) || ev_line(f, l, NCCL_EV_NO_IFACE) ||
	    (l->bootstrap_if[0] && finding_evidence(f, "bootstrap interface: %s", l->bootstrap_if)) ||
	    finding_why(f, "NCCL returns ncclInternalError when a step of its own set-up fails. The known causes: a "
			   "bootstrap interface that does not exist (NCCL_SOCKET_IFNAME naming no interface, or no "
			   "interface shared by the nodes), an NCCL release older than the GPU (no kernels for its "
			   "architecture), and a proxy or plugin failure printed in the WARN line just before.") ||
	    finding_fix(f, "ip -br addr   # compare with NCCL_SOCKET_IFNAME") ||
	    finding_fix(f, "python -c 'import torch; print(torch.cuda.nccl.version())'  # new enough for this GPU?"))
		return oom(err);
	return CD_OK;
}

int nccl_rules(const struct nccl_log *l, struct report *r, char *err)
{
	int (*const rules[])(const struct nccl_log *, struct report *, char *) = {
		rule_version, rule_socket, rule_ib, rule_p2p, rule_timeout, rule_cuda, rule_system, rule_usage, rule_internal,
	};
	int rc;

	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if ((rc = rules[i](l, r, err)) != CD_OK)
			return rc;
	return CD_OK;
}
