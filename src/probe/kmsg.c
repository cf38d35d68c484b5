/* Reads the kernel log for the NVIDIA driver's fault reports. Each distinct (kind, number,
 * device) is one event with a count, so a log repeating an Xid stays a handful of events. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/host.h"
#include "probe/kmsg.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"

struct text {
	const char *p;
	size_t n;
};

static const char *find(struct text t, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= t.n; i++)
		if (memcmp(t.p + i, needle, k) == 0)
			return t.p + i;
	return NULL;
}

static const char *end_of(struct text t)
{
	return t.p + t.n;
}

/* "123" at p (at most 18 digits); -1 when p holds no digit */
static long long number_at(const char *p, const char *end, const char **after)
{
	long long v = 0;
	int digits = 0;

	while (p < end && isdigit((unsigned char)*p) && digits < 18) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	*after = p;
	return digits ? v : -1;
}

/* /dev/kmsg follows a record with " KEY=value" lines (SUBSYSTEM=, DEVICE=) */
static bool kmsg_dict_line(struct text line)
{
	size_t i = 1;

	if (line.n < 3 || line.p[0] != ' ')
		return false;
	while (i < line.n && (isupper((unsigned char)line.p[i]) || line.p[i] == '_' || isdigit((unsigned char)line.p[i])))
		i++;
	return i > 1 && i < line.n && line.p[i] == '=';
}

/* The record's time since boot in microseconds and its message: "6,1234,5678901,-;msg"
 * (/dev/kmsg) or "[   49.261458] msg" (dmesg); a bare line is all message. */
static struct text split_record(struct text line, long long *usec)
{
	const char *p = line.p, *end = end_of(line), *q;
	long long secs, micro;

	*usec = -1;
	if (p < end && *p == '[') {
		for (q = p + 1; q < end && *q == ' '; q++)
			;
		secs = number_at(q, end, &q);
		if (secs >= 0 && q < end && *q == '.') {
			const char *frac = q + 1;
			micro = number_at(frac, end, &q);
			if (micro >= 0 && q - frac == 6 && q < end && *q == ']') {
				*usec = secs * 1000000 + micro;
				q++;
				while (q < end && *q == ' ')
					q++;
				return (struct text){ q, (size_t)(end - q) };
			}
		}
		return line;
	}
	/* prio,seq,usec,flags[,...]; */
	q = p;
	if (number_at(q, end, &q) < 0 || q >= end || *q != ',')
		return line;
	if (number_at(q + 1, end, &q) < 0 || q >= end || *q != ',')
		return line;
	micro = number_at(q + 1, end, &q);
	if (micro < 0 || q >= end || *q != ',')
		return line;
	q = memchr(q, ';', (size_t)(end - q));
	if (!q)
		return line;
	*usec = micro;
	q++;
	return (struct text){ q, (size_t)(end - q) };
}

/* A PCI address as logged: hex digits, ':' and '.', at most out's size; a trailing ':' (as
 * in "PCI:0000:18:00: GPU has fallen") is not part of it. */
static const char *pci_at(const char *p, const char *end, char *out, size_t n)
{
	size_t k = 0;

	while (p < end && (isxdigit((unsigned char)*p) || *p == ':' || *p == '.') && k + 1 < n)
		out[k++] = *p++;
	while (k > 0 && out[k - 1] == ':')
		k--;
	out[k] = '\0';
	return p;
}

static void copy_text(char *out, size_t n, const char *p, const char *end)
{
	size_t k = (size_t)(end - p) < n - 1 ? (size_t)(end - p) : n - 1;

	while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\r'))
		k--;
	memcpy(out, p, k);
	out[k] = '\0';
}

static void add_event(struct kmsg_events *out, const struct xid_event *e)
{
	for (size_t i = 0; i < out->n; i++) {
		struct xid_event *x = &out->ev[i];
		if (x->kind == e->kind && x->xid == e->xid && strcmp(x->pci, e->pci) == 0) {
			x->count++;
			if (e->last_usec >= 0)
				x->last_usec = e->last_usec;
			return;
		}
	}
	if (out->n == KMSG_MAX_EVENTS) {
		out->truncated = true;
		return;
	}
	out->ev[out->n++] = *e;
}

/* "Xid (PCI:0000:18:00): 79, pid=1234, name=python, rest" from at (just past "Xid") */
static bool parse_xid(const char *at, const char *end, struct xid_event *e)
{
	const char *p = at, *q;
	long long v;

	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '(') {
		q = memchr(p, ')', (size_t)(end - p));
		if (!q)
			return false;
		if (q - p > 5 && memcmp(p + 1, "PCI:", 4) == 0)
			pci_at(p + 5, q, e->pci, sizeof e->pci);
		p = q + 1;
	}
	if (p >= end || *p != ':')
		return false;
	for (p++; p < end && *p == ' '; p++)
		;
	v = number_at(p, end, &p);
	if (v < 0 || v > 1000000)
		return false;
	e->xid = (int)v;
	while (p < end && (*p == ',' || *p == ' '))
		p++;
	if ((size_t)(end - p) > 4 && memcmp(p, "pid=", 4) == 0) {
		e->pid = number_at(p + 4, end, &q);
		if (e->pid < 0)
			q = p + 4;
		while (q < end && *q != ',')
			q++;
		for (p = q; p < end && (*p == ',' || *p == ' '); p++)
			;
	}
	copy_text(e->text, sizeof e->text, p, end);
	return true;
}

/* The device of "GPU at PCI:0000:18:00: ...", "GPU at 0000:01:00.0 has fallen off the bus"
 * or "The NVIDIA GPU 0000:b3:00.0" */
static void off_bus_pci(struct text msg, char *out, size_t n)
{
	const char *end = end_of(msg), *p = find(msg, "GPU at ");

	if (p)
		p += 7;
	else if ((p = find(msg, "NVIDIA GPU ")))
		p += 11;
	else
		return;
	if ((size_t)(end - p) > 4 && memcmp(p, "PCI:", 4) == 0)
		p += 4;
	pci_at(p, end, out, n);
}

void kmsg_parse(const unsigned char *data, size_t size, struct kmsg_events *out)
{
	const char *p = (const char *)data, *end = p + size;
	/* the open driver splits "The NVIDIA GPU <pci> ... has fallen off the bus" over three
	 * lines: the device of the first stays known for the two after it */
	char pending_pci[24] = "";
	long long pending_usec = -1;
	int pending_left = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct text line = { p, (size_t)((nl ? nl : end) - p) }, msg;
		struct xid_event e = { .pid = -1, .first_usec = -1, .last_usec = -1, .count = 1 };
		const char *at;
		long long usec;

		p = nl ? nl + 1 : end;
		if (line.n == 0 || kmsg_dict_line(line))
			continue;
		/* dmesg indents the further lines of one record */
		while (line.n && line.p[0] == ' ') {
			line.p++;
			line.n--;
		}
		msg = split_record(line, &usec);
		e.first_usec = e.last_usec = usec;
		if (pending_left > 0)
			pending_left--;
		if ((at = find(msg, "SXid")) && (at == msg.p || at[-1] == ' ')) {
			e.kind = XID_EVENT_SXID;
			if (parse_xid(at + 4, end_of(msg), &e))
				add_event(out, &e);
		} else if ((at = find(msg, "NVRM: Xid"))) {
			e.kind = XID_EVENT_XID;
			if (parse_xid(at + 9, end_of(msg), &e))
				add_event(out, &e);
		} else if (find(msg, "NVRM:") && find(msg, "fallen off the bus")) {
			e.kind = XID_EVENT_OFF_BUS;
			off_bus_pci(msg, e.pci, sizeof e.pci);
			if (!e.pci[0] && pending_left > 0) {
				snprintf(e.pci, sizeof e.pci, "%s", pending_pci);
				if (e.first_usec < 0)
					e.first_usec = e.last_usec = pending_usec;
			}
			copy_text(e.text, sizeof e.text, msg.p, end_of(msg));
			add_event(out, &e);
			pending_left = 0;
		} else if ((at = find(msg, "NVRM: The NVIDIA GPU "))) {
			off_bus_pci(msg, pending_pci, sizeof pending_pci);
			pending_usec = usec;
			pending_left = 3;
		}
	}
}

int kmsg_probe(struct kmsg_events *out, const char *root, char *err)
{
	char path[4096], why[CD_ERRMSG];
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof *out);
	/* Linux's: elsewhere a path of that name is no kernel log (under Wine it is the host's
	 * device, opened blocking) */
	if (!os_is_linux() || host_path(path, sizeof path, root, "/dev/kmsg") != CD_OK) {
		out->state = KMSG_MISSING;
		return CD_OK;
	}
	rc = file_read_records(path, KMSG_READ_MAX, &text, &len, &out->sys_errno, why);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "%s", why);
	if (rc != CD_OK) {
		out->state = rc == CD_ENOTFOUND ? KMSG_MISSING
			     : out->sys_errno == EACCES || out->sys_errno == EPERM ? KMSG_DENIED
										      : KMSG_FAILED;
		return CD_OK;
	}
	out->state = KMSG_READ;
	out->bytes = len;
	out->log_full = len + 8192 > KMSG_READ_MAX;
	kmsg_parse((const unsigned char *)text, len, out);
	free(text);
	return CD_OK;
}
