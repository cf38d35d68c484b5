/* libFuzzer harness for the kernel-log reader (probe/kmsg.c) and the deployment rules that
 * judge its events (rules/deploy.c): the input is a host's /dev/kmsg under
 * CUDOCTOR_HOST_ROOT, and `cudoctor check` builds and renders its whole report from it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct cd_command cmd_check;

static char root[] = "/tmp/cudoctor-fuzz-kmsg-XXXXXX";
static char dev[96], kmsg_path[128];

static void cleanup(void)
{
	unlink(kmsg_path);
	rmdir(dev);
	rmdir(root);
}

static void setup(void)
{
	if (!mkdtemp(root))
		abort();
	snprintf(dev, sizeof dev, "%s/dev", root);
	if (mkdir(dev, 0755) != 0)
		abort();
	snprintf(kmsg_path, sizeof kmsg_path, "%s/kmsg", dev);
	setenv("CUDOCTOR_HOST_ROOT", root, 1);
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { NULL };
	FILE *f;

	if (!kmsg_path[0])
		setup();
	f = fopen(kmsg_path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size))
		abort();
	fclose(f);
	fuzz_command_words(&cmd_check, NULL, words);
	return 0;
}
