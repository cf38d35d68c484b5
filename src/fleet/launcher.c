/* Under a launcher: whether one started this process, this node's name, and the MPI
 * plug-in loaded through the one dlopen loader. */
#include "fleet/mpi.h"

#include <stdio.h>
#include <stdlib.h>

#include "os/env.h"
#include "os/host.h"
#include "util/err.h"

bool fleet_under_launcher(void)
{
	/* Open MPI's mpirun, MPICH's and Intel MPI's Hydra (PMI), srun --mpi=pmix / pmi2 */
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", NULL };

	for (size_t i = 0; vars[i]; i++)
		if (os_getenv(vars[i]))
			return true;
	return false;
}

void fleet_node_name(char *buf, size_t n)
{
	const char *env = os_getenv("CUDOCTOR_NODE");

	if (env && *env) {
		snprintf(buf, n, "%s", env);
		return;
	}
	if (!os_hostname(buf, n))
		snprintf(buf, n, "localhost");
	buf[n - 1] = '\0';
}

int fleet_mpi_load(struct dl_lib *lib, const char *const *dirs, const struct fleet_mpi **api, char *err)
{
	const struct dl_spec spec = { FLEET_MPI_SONAME, "CUDOCTOR_FLEET_MPI", FLEET_MPI_SYMBOL, dirs, false };
	fleet_mpi_entry entry;
	int rc;

	*api = NULL;
	if ((rc = dl_open(&spec, lib, err)) != CD_OK)
		return rc;
	entry = (fleet_mpi_entry)dl_sym(lib, FLEET_MPI_SYMBOL);
	*api = entry ? entry() : NULL;
	if (!*api || (*api)->abi != FLEET_MPI_ABI || !(*api)->init || !(*api)->send || !(*api)->recv ||
	    !(*api)->bcast || !(*api)->gather || !(*api)->finish || !(*api)->free_rank) {
		rc = cd_fail(err, CD_EUNSUPPORTED, "%s is not a cudoctor %s plug-in of interface %d", lib->path,
			     FLEET_MPI_SONAME, FLEET_MPI_ABI);
		dl_close(lib);
		*api = NULL;
	}
	return rc;
}
