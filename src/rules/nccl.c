/* NCCL's failures and slow paths as findings, from the facts of its log; the CUDA error behind
 * an unhandled cuda error is named through the CUDA error catalogue. */
#include "rules/nccl.h"

#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "rules/catalogue.h"
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
	struct finding_vars v;

	finding_vars_init(&v);
	finding_var(&v, "version_a", "%s", l->versions[0]);
	finding_var(&v, "version_b", "%s", l->versions[1]);
	struct finding *f = finding_make(r, SEV_ERROR, "nccl-version-mismatch", subject, &v);
	if (!f)
		return oom(err);
	for (size_t i = 0; i < l->n_versions; i++)
		if (finding_evidence(f, "%s", l->version_lines[i]) != CD_OK)
			return oom(err);
	return CD_OK;
}

static int rule_socket(const struct nccl_log *l, struct report *r, char *err)
{
	if (!socket_traffic(l))
		return CD_OK;
	const struct nccl_channel *c = first_channel(l, "NET", "Socket");
	struct finding *f = finding_make(r, SEV_WARN, "nccl-socket-fallback", subject, NULL);
	if (!f)
		return oom(err);
	if ((c && channel_evidence(f, c, count_channels(l, "NET", "Socket"))) ||
	    (l->network[0] && finding_evidence(f, "Using network %s", l->network)) ||
	    ev_line(f, l, NCCL_EV_IB_MISSING))
		return oom(err);
	return CD_OK;
}

static int rule_ib(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_IB_MISSING) || (!seen(l, NCCL_EV_IB_CONFIGURED) && !socket_traffic(l)))
		return CD_OK;
	struct finding *f = finding_make(r, SEV_WARN, "nccl-ib-missing", subject, NULL);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_IB_MISSING) || ev_line(f, l, NCCL_EV_IB_CONFIGURED))
		return oom(err);
	return CD_OK;
}

static int rule_p2p(const struct nccl_log *l, struct report *r, char *err)
{
	const struct nccl_channel *shm = first_channel(l, "SHM", NULL);

	if (!seen(l, NCCL_EV_P2P_DISABLED) && !shm)
		return CD_OK;
	struct finding *f = finding_make(r, SEV_WARN, "nccl-p2p-disabled", subject, NULL);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_P2P_DISABLED) || (shm && channel_evidence(f, shm, count_channels(l, "SHM", NULL))))
		return oom(err);
	return CD_OK;
}

static int rule_timeout(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_TIMEOUT))
		return CD_OK;
	struct finding_vars v;

	finding_vars_init(&v);
	finding_var(&v, "lines", "%zu line%s", l->ev[NCCL_EV_TIMEOUT].count, l->ev[NCCL_EV_TIMEOUT].count == 1 ? "" : "s");
	struct finding *f = finding_make(r, SEV_ERROR, "nccl-timeout", subject, &v);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_TIMEOUT) || ev_line(f, l, NCCL_EV_REMOTE))
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
	struct finding_vars v;
	struct finding *f;

	finding_vars_init(&v);
	if (e) {
		finding_var(&v, "error_name", "%s", e->name);
		finding_var(&v, "error_code", "%d", e->code);
		/* explain has a text of its own for the error */
		if (e->finding)
			finding_var(&v, "explain_name", "%s", e->name);
	} else if (l->cuda_error[0]) {
		finding_var(&v, "cuda_message", "%s", l->cuda_error);
	}
	f = finding_make(r, SEV_ERROR, "nccl-cuda-error", subject, &v);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_CUDA) || code_line(f, l, 1) ||
	    (e && finding_evidence(f, "%s is \"%s\"%s%s", e->name, e->string, e->finding ? "; cudoctor explain: " : "",
				   e->finding ? e->finding : "")))
		return oom(err);
	return CD_OK;
}

static int rule_system(const struct nccl_log *l, struct report *r, char *err)
{
	bool shm = seen(l, NCCL_EV_SHM_DEV);

	if (!seen(l, NCCL_EV_SYSTEM) && !shm && !codes(l, 2))
		return CD_OK;
	struct finding_vars v;

	finding_vars_init(&v);
	finding_flag(&v, "shm", shm);
	struct finding *f = finding_make(r, SEV_ERROR, "nccl-system-error", subject, &v);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_SHM_DEV) || ev_line(f, l, NCCL_EV_SYSTEM) || code_line(f, l, 2))
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
	struct finding_vars v;

	finding_vars_init(&v);
	finding_flag(&v, "same_gpu", dup);
	struct finding *f = finding_make(r, SEV_ERROR, "nccl-invalid-usage", subject, &v);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_DUP_GPU) || ev_line(f, l, NCCL_EV_INVALID_USAGE) || code_line(f, l, 5))
		return oom(err);
	return CD_OK;
}

static int rule_internal(const struct nccl_log *l, struct report *r, char *err)
{
	if (!seen(l, NCCL_EV_INTERNAL) && !codes(l, 3))
		return CD_OK;
	struct finding *f = finding_make(r, SEV_ERROR, "nccl-internal-error", subject, NULL);
	if (!f)
		return oom(err);
	if (ev_line(f, l, NCCL_EV_INTERNAL) || code_line(f, l, 3) || ev_line(f, l, NCCL_EV_NO_IFACE) ||
	    (l->bootstrap_if[0] && finding_evidence(f, "bootstrap interface: %s", l->bootstrap_if)))
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
