/* libFuzzer harness: sysfs cpulist parsing and formatting (probe/topology.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo_cpuset a, b;
	char text[20000];
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (topo_cpuset_parse(s, &a)) {
		/* what we print must read back as the same set */
		topo_cpuset_format(&a, text, sizeof text);
		if (strlen(text) + 1 < sizeof text && (!topo_cpuset_parse(text, &b) || memcmp(&a, &b, sizeof a) != 0))
			abort();
	}
	free(s);
	return 0;
}
