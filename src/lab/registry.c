/* The registry: every lab `cudoctor lab` knows, in the order `lab all` runs them
 * (thread hierarchy, then memory, then execution, then several GPUs). Only finished labs are listed. */
#include <string.h>

#include "lab/lab.h"

extern const struct lab lab_hello, lab_index2d, lab_coalescing, lab_bank, lab_transpose, lab_constant, lab_latency,
	lab_bandwidth, lab_hostxfer, lab_divergence, lab_blocksize, lab_streams, lab_graphs, lab_jit,
	lab_nccl, lab_libraries, lab_occupancy, lab_texture, lab_p2p, lab_syncthreads, lab_device_malloc;

static const struct lab *const all_labs[] = {
	&lab_hello,
	&lab_index2d,
	&lab_coalescing,
	&lab_bank,
	&lab_transpose,
	&lab_constant,
	&lab_texture,
	&lab_latency,
	&lab_bandwidth,
	&lab_hostxfer,
	&lab_divergence,
	&lab_syncthreads,
	&lab_blocksize,
	&lab_occupancy,
	&lab_streams,
	&lab_graphs,
	&lab_jit,
	&lab_p2p,
	&lab_nccl,
	&lab_libraries,
	&lab_device_malloc,
};

size_t lab_count(void)
{
	return sizeof all_labs / sizeof all_labs[0];
}

const struct lab *lab_at(size_t i)
{
	return i < lab_count() ? all_labs[i] : NULL;
}

const struct lab *lab_find(const char *name)
{
	for (size_t i = 0; name && i < lab_count(); i++)
		if (strcmp(all_labs[i]->name, name) == 0)
			return all_labs[i];
	return NULL;
}
