/* Topology of the simulated machine (fake_topo.h), read from the environment on each call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_topo.h"

enum fake_layout fake_topo_layout(void)
{
	const char *s = getenv("FAKE_TOPO");

	if (s && strcmp(s, "nvswitch") == 0)
		return FAKE_LAYOUT_SWITCH;
	if (s && strcmp(s, "nvlink-pairs") == 0)
		return FAKE_LAYOUT_PAIRS;
	return FAKE_LAYOUT_PCIE;
}

int fake_topo_links(const struct fake_gpu *g)
{
	int cc = g->cc_major * 10 + g->cc_minor;

	if (fake_topo_layout() == FAKE_LAYOUT_PCIE)
		return 0;
	long long n = fake_env_int("FAKE_TOPO_NVLINKS", -1);
	if (n >= 0)
		return n > 18 ? 18 : (int)n;
	switch (cc) {
	case 60: return 4;
	case 70: return 6;
	case 80: return 12;
	case 90: case 100: case 103: return 18;
	default: return 4;
	}
}

bool fake_topo_link_up(int gpu, int link)
{
	const char *s = getenv("FAKE_TOPO_NVLINK_DOWN");

	while (s && *s) {
		int g, l;
		if (sscanf(s, "%d:%d", &g, &l) == 2 && g == gpu && l == link)
			return false;
		s = strchr(s, ';');
		if (s)
			s++;
	}
	return true;
}

int fake_topo_link_peer(const struct fake_gpu *g, int n_gpus, int link)
{
	if (fake_topo_layout() != FAKE_LAYOUT_PAIRS || link >= fake_topo_links(g))
		return -1;
	int peer = g->index ^ 1;
	return peer < n_gpus ? peer : -1;
}

int fake_topo_numa(int gpu)
{
	return gpu / 4;
}

int fake_topo_level(int a, int b)
{
	if (a == b)
		return 0;
	if ((a ^ 1) == b)
		return 20;
	return fake_topo_numa(a) == fake_topo_numa(b) ? 40 : 50;
}

void fake_topo_cpus(int gpu, int *first, int *last)
{
	unsigned long long v[2];

	if (fake_env_gpu_values("FAKE_TOPO_CPUS", gpu, v, 2) == 2) {
		*first = (int)v[0];
		*last = (int)v[1];
		return;
	}
	*first = fake_topo_numa(gpu) * 32;
	*last = *first + 31;
}

static int denied(int a, int b)
{
	const char *s = getenv("FAKE_P2P_DENY");

	while (s && *s) {
		int x, y, status;
		if (sscanf(s, "%d-%d:%d", &x, &y, &status) == 3 && ((x == a && y == b) || (x == b && y == a)))
			return status;
		s = strchr(s, ';');
		if (s)
			s++;
	}
	return 0;
}

static int up_links(const struct fake_gpu *g)
{
	int n = 0;

	for (int l = 0; l < fake_topo_links(g); l++)
		n += fake_topo_link_up(g->index, l);
	return n;
}

int fake_topo_nvlinks_between(const struct fake_gpu *g, int n_gpus, int a, int b)
{
	int n = 0;

	if (a == b || a >= n_gpus || b >= n_gpus)
		return 0;
	if (fake_topo_layout() == FAKE_LAYOUT_SWITCH) {
		int la = up_links(&g[a]), lb = up_links(&g[b]);
		return la < lb ? la : lb;
	}
	for (int l = 0; l < fake_topo_links(&g[a]); l++)
		if (fake_topo_link_peer(&g[a], n_gpus, l) == b && fake_topo_link_up(a, l) && fake_topo_link_up(b, l))
			n++;
	return n;
}

int fake_topo_p2p_status(const struct fake_gpu *g, int n_gpus, int a, int b, int cap)
{
	enum { OK = 0, IOH_TOPOLOGY = 3, NOT_SUPPORTED = 5 };
	int d = denied(a, b);
	bool nvlink = fake_topo_nvlinks_between(g, n_gpus, a, b) > 0;

	if (d)
		return d;
	if (cap == 2 || cap == 3)
		return nvlink ? OK : NOT_SUPPORTED;
	if (nvlink)
		return OK;
	return fake_topo_level(a, b) >= 50 ? IOH_TOPOLOGY : OK;
}
