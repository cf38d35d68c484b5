/* The topology facts' read-only accessors: CPU sets, level names, pairs. */
#include "facts/topology.h"

#include <stdio.h>
#include <string.h>

void topo_cpuset_add(struct topo_cpuset *s, long cpu)
{
	if (cpu >= 0 && cpu < TOPO_MAX_CPUS)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static bool cpu_has(const struct topo_cpuset *s, long cpu)
{
	return cpu >= 0 && cpu < TOPO_MAX_CPUS && ((s->bits[cpu / 64] >> (cpu % 64)) & 1ULL);
}

void topo_cpuset_format(const struct topo_cpuset *s, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (long c = 0; c < TOPO_MAX_CPUS; c++) {
		if (!cpu_has(s, c))
			continue;
		long e = c;
		while (e + 1 < TOPO_MAX_CPUS && cpu_has(s, e + 1))
			e++;
		int n = e > c ? snprintf(buf + used, len - used, "%s%ld-%ld", used ? "," : "", c, e)
			      : snprintf(buf + used, len - used, "%s%ld", used ? "," : "", c);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
		c = e;
	}
}

bool topo_cpuset_empty(const struct topo_cpuset *s)
{
	for (size_t i = 0; i < TOPO_CPU_WORDS; i++)
		if (s->bits[i])
			return false;
	return true;
}

bool topo_cpuset_intersects(const struct topo_cpuset *a, const struct topo_cpuset *b)
{
	for (size_t i = 0; i < TOPO_CPU_WORDS; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

const char *topo_level_name(int level)
{
	switch (level) {
	case NVML_TOPOLOGY_INTERNAL: return "X";
	case NVML_TOPOLOGY_SINGLE: return "PIX";
	case NVML_TOPOLOGY_MULTIPLE: return "PXB";
	case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
	case NVML_TOPOLOGY_NODE: return "NODE";
	case NVML_TOPOLOGY_SYSTEM: return "SYS";
	default: return "?";
	}
}

const char *topo_p2p_status_text(int status)
{
	switch (status) {
	case NVML_P2P_STATUS_OK: return "OK";
	case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED: return "chipset not supported";
	case NVML_P2P_STATUS_GPU_NOT_SUPPORTED: return "GPU not supported";
	case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED: return "IOH topology not supported";
	case NVML_P2P_STATUS_DISABLED_BY_REGKEY: return "disabled by registry key";
	case NVML_P2P_STATUS_NOT_SUPPORTED: return "not supported";
	default: return "unknown";
	}
}

const struct topo_pair *topo_pair_of(const struct topo_probe *t, size_t a, size_t b)
{
	if (a == b || a >= t->n_gpus || b >= t->n_gpus || !t->pairs)
		return NULL;
	return &t->pairs[a * (t->n_gpus - 1) + (b < a ? b : b - 1)];
}
