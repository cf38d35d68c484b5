/* The kernel log's NVIDIA events: Xid and SXid lines and "fallen off the bus", read from
 * /dev/kmsg (under $CUDOCTOR_HOST_ROOT) and parsed into facts/deploy.h's kmsg_events. */
#ifndef CUDOCTOR_PROBE_KMSG_H
#define CUDOCTOR_PROBE_KMSG_H

#include <stddef.h>

#include "facts/deploy.h"

/* The most of the log read: the kernel's ring buffer is 128 KiB to a few MiB. */
#define KMSG_READ_MAX (8u << 20)

/* Adds the events in a log's text to out (kept: what out already holds). The text is
 * /dev/kmsg records ("6,1234,5678901,-;NVRM: Xid ..."), dmesg lines ("[  49.26] NVRM: ...")
 * or bare lines; anything else is skipped. Trusts nothing in data; never fails. */
void kmsg_parse(const unsigned char *data, size_t size, struct kmsg_events *out);

/* Reads root's /dev/kmsg (NULL: the host root) without blocking, at most KMSG_READ_MAX
 * bytes, and parses it. A log that cannot be read is a state in out, not a failure:
 * CD_OK, or CD_ENOMEM. */
int kmsg_probe(struct kmsg_events *out, const char *root, char *err);

#endif
