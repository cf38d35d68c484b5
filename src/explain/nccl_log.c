/* NCCL log lines into facts, one line at a time; every field copied with its size checked,
 * nothing in the text trusted to be NUL-terminated or short. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "explain/nccl_log.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/safetext.h"

#define LINE_MAX_PARSED 1024

/* Substrings that mark an event; ci: case-insensitive. */
struct ev_pattern {
	enum nccl_event ev;
	const char *text;
	bool ci;
	bool needs_nccl; /* counts only once NCCL has spoken ("Cuda failure" is everyone's) */
};

static const struct ev_pattern patterns[] = {
	{ NCCL_EV_CUDA, "unhandled cuda error", true, false },
	{ NCCL_EV_CUDA, "ncclUnhandledCudaError", false, false },
	{ NCCL_EV_CUDA, "Cuda failure", true, true },
	{ NCCL_EV_SYSTEM, "unhandled system error", true, false },
	{ NCCL_EV_SYSTEM, "ncclSystemError", false, false },
	{ NCCL_EV_SHM_DEV, "creating shared memory segment", false, false },
	{ NCCL_EV_SHM_DEV, "/dev/shm", false, false },
	{ NCCL_EV_SHM_DEV, "posix_fallocate", false, false },
	{ NCCL_EV_INTERNAL, "internal error", true, false },
	{ NCCL_EV_INTERNAL, "ncclInternalError", false, false },
	{ NCCL_EV_INVALID_USAGE, "invalid usage", true, false },
	{ NCCL_EV_INVALID_USAGE, "ncclInvalidUsage", false, false },
	{ NCCL_EV_INVALID_ARG, "ncclInvalidArgument", false, false },
	{ NCCL_EV_INVALID_ARG, "invalid argument (run with NCCL_DEBUG", false, false },
	{ NCCL_EV_REMOTE, "remote process exited or there was a network error", true, false },
	{ NCCL_EV_REMOTE, "ncclRemoteError", false, false },
	{ NCCL_EV_TIMEOUT, "Watchdog caught collective operation timeout", false, false },
	{ NCCL_EV_TIMEOUT, "milliseconds before timing out", false, false },
	{ NCCL_EV_TIMEOUT, "NCCL timeout", true, false },
	{ NCCL_EV_TIMEOUT, "NCCL communicator was aborted", false, false },
	/* PyTorch's watchdog over NCCL: blocked itself by a hung NCCL/CUDA call */
	{ NCCL_EV_TIMEOUT, "watchdog got stuck", false, false },
	{ NCCL_EV_TIMEOUT, "Heartbeat monitor timed out", false, false },
	{ NCCL_EV_DUP_GPU, "Duplicate GPU detected", false, false },
	{ NCCL_EV_P2P_DISABLED, "P2P is disabled between", false, false },
	{ NCCL_EV_P2P_DISABLED, "NCCL_P2P_DISABLE set by environment to 1", false, false },
	{ NCCL_EV_IB_MISSING, "NET/IB : No device found", false, false },
	{ NCCL_EV_IB_MISSING, "NET/IB: No device found", false, false },
	{ NCCL_EV_IB_CONFIGURED, "NCCL_IB_HCA set", false, false },
	{ NCCL_EV_IB_CONFIGURED, "NCCL_NET set by environment to IB", false, false },
	{ NCCL_EV_NO_IFACE, "no socket interface found", true, false },
	{ NCCL_EV_NO_IFACE, "No usable listening interface found", false, false },
	{ NCCL_EV_NVLS, "transport/nvls", false, false },
};

/* What is kept of a log is printed and put in JSON: safe text (util/safetext.h), cut
 * between characters, as explain's matched lines are. */
static void keep_line(char *dst, const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	safe_text(dst, NCCL_LOG_LINE, line, strlen(line), 0);
}

static void see(struct nccl_log *l, enum nccl_event ev, const char *line)
{
	if (l->ev[ev].count++ == 0)
		keep_line(l->ev[ev].line, line);
}

/* copies the word at p (up to a character in stop, or the end) into out */
static void word(const char *p, const char *stop, char *out, size_t n)
{
	safe_text(out, n, p, strcspn(p, stop), 0);
}

/* "NCCL version 2.18.1+cuda12.1" (p: where it starts in line, or NULL): the dotted numbers
 * only, so PyTorch's "NCCL version 2.18.1" and NCCL's own line for the same release agree */
static void parse_version(struct nccl_log *l, const char *line, const char *p)
{
	char v[32];
	size_t k = 0;

	if (!p)
		return;
	p += strlen("NCCL version ");
	while (k + 1 < sizeof v && (isdigit((unsigned char)p[k]) || p[k] == '.'))
		k++;
	while (k > 0 && p[k - 1] == '.')
		k--;
	if (k == 0 || !strchr(p, '.'))
		return;
	memcpy(v, p, k);
	v[k] = '\0';
	for (size_t i = 0; i < l->n_versions; i++)
		if (strcmp(l->versions[i], v) == 0)
			return;
	if (l->n_versions == NCCL_LOG_VERSIONS)
		return;
	memcpy(l->versions[l->n_versions], v, k + 1);
	keep_line(l->version_lines[l->n_versions], line);
	l->n_versions++;
}

/* isspace in the C locale (the one this program runs in), without the table lookup */
static bool c_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static const char *skip_blanks(const char *p)
{
	while (c_space(*p))
		p++;
	return p;
}

/* atoi of the digits at p (there is one), as glibc's gives it: strtol's long, saturated, then
 * converted to int */
static int digits_int(const char *p)
{
	long n = 0;

	for (; *p >= '0' && *p <= '9'; p++)
		n = n > (LONG_MAX - (*p - '0')) / 10 ? LONG_MAX : n * 10 + (*p - '0');
	return (int)n;
}

/* An int at *p as strtol reads it (blanks, a sign, digits), clamped to +-2147483647;
 * advances *p. false without digits. By hand: strtol's locale machinery cost more than the
 * rest of an NCCL INFO line. */
static bool int_at(const char **p, int *v)
{
	const char *q = skip_blanks(*p);
	bool neg = false;
	int64_t n = 0;

	if (*q == '+' || *q == '-')
		neg = *q++ == '-';
	if (*q < '0' || *q > '9')
		return false;
	for (; *q >= '0' && *q <= '9'; q++)
		if (n <= 2147483647)
			n = n * 10 + (*q - '0');
	*v = n > 2147483647 ? (neg ? -2147483647 : 2147483647) : (int)(neg ? -n : n);
	*p = q;
	return true;
}

/* ":pid:tid [rank]" after the host */
static bool host_ids(const char *p, int *pid, int *tid)
{
	int rank;

	if (*p++ != ':' || !int_at(&p, pid) || *p++ != ':' || !int_at(&p, tid))
		return false;
	p = skip_blanks(p);
	return *p++ == '[' && int_at(&p, &rank) && *p == ']';
}

/* "rank[dev]": the device text, 1 to cap-1 bytes up to ']' (dev NULL: only read past) */
static bool rank_dev(const char **pp, int *rank, char *dev, size_t cap)
{
	const char *p = *pp;
	size_t k = 0;

	if (!int_at(&p, rank) || *p++ != '[')
		return false;
	while (p[k] && p[k] != ']' && k + 1 < cap)
		k++;
	if (k == 0 || p[k] != ']')
		return false;
	if (dev)
		safe_text(dev, cap, p, k, 0);
	*pp = p + k + 1;
	return true;
}

/* " -> " with any blanks around the arrow */
static bool arrow(const char **pp)
{
	const char *p = skip_blanks(*pp);

	if (p[0] != '-' || p[1] != '>')
		return false;
	*pp = skip_blanks(p + 2);
	return true;
}

/* "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "Channel 01 : 1[3000] -> 0[2000] [send] via
 * NET/Socket/0" (p: the first "Channel " in line, or NULL) */
static int parse_channel(struct nccl_log *l, const char *line, const char *p, size_t *cap, char *err)
{
	const char *via = strstr(line, " via ");
	/* past the kept channels a line is only counted: nothing of it is copied */
	bool keep = l->n_ch < NCCL_LOG_CHANNELS;
	struct nccl_channel c;
	const char *q;

	if (p)
		p += strlen("Channel ");
	else if ((p = strstr(line, "Ring ")) != NULL)
		p += strlen("Ring ");
	if (!p || !via || via < p)
		return CD_OK;
	memset(&c, 0, sizeof c);
	if (!isdigit((unsigned char)*p))
		return CD_OK;
	c.channel = digits_int(p);
	p = strstr(p, " : ");
	if (!p || p > via)
		return CD_OK;
	p += 3;
	while (*p == ' ')
		p++;
	q = p;
	if (!rank_dev(&q, &c.src_rank, keep ? c.src_dev : NULL, sizeof c.src_dev) || !arrow(&q) ||
	    !rank_dev(&q, &c.dst_rank, keep ? c.dst_dev : NULL, sizeof c.dst_dev)) {
		q = p;
		c.src_dev[0] = c.dst_dev[0] = '\0';
		if (!int_at(&q, &c.src_rank) || !arrow(&q) || !int_at(&q, &c.dst_rank))
			return CD_OK;
	}
	if (q > via)
		return CD_OK;
	if (!keep) {
		/* the transport below is empty only where the text after "via" is */
		if (strncmp(via + 5, "direct shared memory", 20) == 0 || !strchr(" \t\r/", via[5]))
			l->n_ch_dropped++;
		return CD_OK;
	}
	if (strncmp(via + 5, "direct shared memory", 20) == 0)
		snprintf(c.via, sizeof c.via, "SHM/direct shared memory");
	else
		word(via + 5, " \t\r", c.via, sizeof c.via);
	word(c.via, "/ \t", c.transport, sizeof c.transport);
	if (!c.transport[0])
		return CD_OK;
	if (l->n_ch == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct nccl_channel *nc = realloc(l->ch, ncap * sizeof *nc);
		if (!nc)
			return cd_fail(err, CD_ENOMEM, "nccl log: out of memory");
		l->ch = nc;
		*cap = ncap;
	}
	l->ch[l->n_ch++] = c;
	return CD_OK;
}

/* "init.cc:1123 -> 3": NCCL's trace of a failing call prints only the result code */
static void parse_result_code(struct nccl_log *l, const char *line)
{
	for (const char *p = strstr(line, " -> "); p; p = strstr(p + 4, " -> ")) {
		const char *q = p + 4;
		if (q[0] >= '1' && q[0] <= '7' && (q[1] == '\0' || q[1] == ' ' || q[1] == '\r' || q[1] == '[')) {
			int code = q[0] - '0';
			if (l->result_codes[code]++ == 0)
				keep_line(l->result_line[code], line);
			return;
		}
	}
}

/* "Cuda failure 'invalid device function'" or "Cuda failure 98 'invalid device function'" */
static void parse_cuda_failure(struct nccl_log *l, const char *line)
{
	const char *p = strcasestr(line, "Cuda failure");
	const char *q;

	if (!p || l->cuda_error[0])
		return;
	p += strlen("Cuda failure");
	while (*p == ' ' || *p == ':')
		p++;
	if (isdigit((unsigned char)*p))
		l->cuda_code = atoi(p);
	q = strchr(p, '\'');
	if (!q)
		return;
	word(q + 1, "'", l->cuda_error, sizeof l->cuda_error);
}

/* "node01:1297856:1297856 [0] NCCL INFO ...": the host before the pid and thread ids */
static void parse_host(struct nccl_log *l, const char *line)
{
	char host[64];
	size_t k = strcspn(line, ": \t");
	const char *p = line + k;
	int pid = 0, tid = 0;

	if (k == 0 || k >= sizeof host || !host_ids(p, &pid, &tid))
		return;
	if (k == l->last_host_len && memcmp(line, l->last_host, k) == 0)
		return;
	memcpy(l->last_host, line, k);
	l->last_host_len = k;
	safe_text(host, sizeof host, line, k, 0);
	for (size_t i = 0; i < l->n_hosts; i++)
		if (strcmp(l->hosts[i], host) == 0)
			return;
	if (l->n_hosts < NCCL_LOG_HOSTS)
		memcpy(l->hosts[l->n_hosts++], host, sizeof host);
}

#define N_PATTERNS (sizeof patterns / sizeof patterns[0])

/* What follows NCCL's name on a line, found from its occurrences (most lines have one) rather
 * than by a search per word: the first "NCCL version ", and whether a warning or an error is
 * named ("NCCL WARN", "NCCL error", "NCCL failure", "NCCL Error"). at: the first "NCCL". */
static void nccl_words(const char *at, const char **version, bool *warn)
{
	*version = NULL;
	*warn = false;
	for (const char *p = at; p; p = strstr(p + 4, "NCCL")) {
		const char *q = p + 4;

		if (*q++ != ' ')
			continue;
		if (!*version && strncmp(q, "version ", 8) == 0)
			*version = p;
		*warn |= strncmp(q, "WARN", 4) == 0 || strncmp(q, "error", 5) == 0 || strncmp(q, "failure", 7) == 0 ||
			 strncmp(q, "Error", 5) == 0;
	}
}

static int parse_line(struct nccl_log *l, const char *line, const bool *hit, size_t *cap, char *err)
{
	const char *p, *nccl, *version;
	bool any = false, warn;

	for (size_t i = 0; i < N_PATTERNS; i++) {
		const struct ev_pattern *e = &patterns[i];
		if (hit && !hit[i])
			continue;
		if (e->needs_nccl && !l->nccl_lines && (hit ? !hit[N_PATTERNS] : !strcasestr(line, "nccl")))
			continue;
		if (e->ci ? strcasestr(line, e->text) != NULL : strstr(line, e->text) != NULL) {
			see(l, e->ev, line);
			any = true;
		}
	}
	nccl = strstr(line, "NCCL");
	if (!any && !nccl && !strstr(line, "nccl"))
		return CD_OK;
	l->nccl_lines++;
	nccl_words(nccl, &version, &warn);
	parse_version(l, line, version);
	if (!hit || hit[2]) /* "Cuda failure" */
		parse_cuda_failure(l, line);
	/* the network, the bootstrap interface and the socket transport are all "Using ..." */
	if (strstr(line, "Using")) {
		if ((p = strstr(line, "Using network ")) && !l->network[0])
			word(p + strlen("Using network "), " \t\r", l->network, sizeof l->network);
		if ((p = strstr(line, "Bootstrap")) && (p = strstr(p, "Using ")) && !l->bootstrap_if[0]) {
			p += strlen("Using ");
			if (*p == '[')
				p += strcspn(p, "]") + (p[strcspn(p, "]")] ? 1 : 0);
			word(p, ": \t\r", l->bootstrap_if, sizeof l->bootstrap_if);
		}
		if (strstr(line, "NET/Socket : Using"))
			l->socket_net = true;
	}
	if (warn)
		l->warn_lines++;
	parse_host(l, line);
	if ((p = strstr(line, "Channel ")) || strstr(line, "Ring "))
		return parse_channel(l, line, p, cap, err);
	parse_result_code(l, line);
	return CD_OK;
}

void nccl_log_init(struct nccl_log *l)
{
	memset(l, 0, sizeof *l);
	l->cuda_code = -1;
}

int nccl_log_line(struct nccl_log *l, const char *text, size_t len, char *err)
{
	return nccl_log_line_hits(l, text, len, NULL, err);
}

int nccl_log_line_hits(struct nccl_log *l, const char *text, size_t len, const bool *hit, char *err)
{
	char line[LINE_MAX_PARSED];
	size_t k = len < sizeof line - 1 ? len : sizeof line - 1;
	const char *nul = k ? memchr(text, '\0', k) : NULL;
	int rc;

	/* a line longer than the buffer is read from its start; NUL bytes end it early */
	if (nul)
		k = (size_t)(nul - text);
	memcpy(line, text, k);
	while (k > 0 && (line[k - 1] == '\r' || line[k - 1] == ' '))
		k--;
	line[k] = '\0';
	if (!k)
		return CD_OK;
	rc = parse_line(l, line, hit, &l->ch_cap, err);
	if (rc != CD_OK)
		nccl_log_free(l);
	return rc;
}

size_t nccl_log_anchor_count(void)
{
	return N_PATTERNS + 1;
}

const char *nccl_log_anchor(size_t i)
{
	return i < N_PATTERNS ? patterns[i].text : i == N_PATTERNS ? "nccl" : NULL;
}

int nccl_log_parse(const char *text, size_t len, struct nccl_log *out, char *err)
{
	size_t i = 0;
	int rc = CD_OK;

	nccl_log_init(out);
	while (i < len && rc == CD_OK) {
		size_t start = i;

		while (i < len && text[i] != '\n')
			i++;
		rc = nccl_log_line(out, text + start, i - start, err);
		i++;
	}
	return rc;
}

void nccl_log_free(struct nccl_log *l)
{
	free(l->ch);
	l->ch = NULL;
	l->n_ch = 0;
	l->ch_cap = 0;
}
