/* The platform probe: fills facts/platform.h from /proc, /dev, /usr/lib/wsl and the
 * environment. */
#ifndef CUDOCTOR_PROBE_PLATFORM_H
#define CUDOCTOR_PROBE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/platform.h"
#include "probe/paths.h"

/* Parses CUDA_VISIBLE_DEVICES as CUDA reads it: comma-separated indices, GPU-<uuid>
 * (any unique prefix) or MIG-<uuid>; whitespace around tokens is ignored. raw may be
 * NULL (unset); out->raw points into raw. */
void visible_devices_parse(const char *raw, struct visible_devices *out);

/* This is WSL2: /proc/version or /proc/sys/kernel/osrelease names Microsoft (or WSL). */
bool platform_wsl(const char *root);

/* root prefixes /proc, /dev, /usr/lib/wsl, /etc/ld.so.cache and /.dockerenv (tests). */
int platform_probe(struct platform_info *p, const char *root, char *err);

#endif
