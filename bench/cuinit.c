/* The floor for `cudoctor doctor`: a process that dlopens libcuda.so.1, calls cuInit(0),
 * cuDriverGetVersion and cuDeviceGetCount, and exits. Built by bench/doctor.sh. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned int);
typedef int (*int_fn)(int *);

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	init_fn init;
	int_fn version, count;
	int v = 0, n = 0, rc;

	if (!h) {
		fprintf(stderr, "cuinit: %s\n", dlerror());
		return 1;
	}
	init = (init_fn)dlsym(h, "cuInit");
	version = (int_fn)dlsym(h, "cuDriverGetVersion");
	count = (int_fn)dlsym(h, "cuDeviceGetCount");
	if (!init || !version || !count)
		return 1;
	rc = init(0);
	version(&v);
	if (rc == 0)
		count(&n);
	printf("cuInit=%d driver=%d devices=%d\n", rc, v, n);
	return rc == 0 ? 0 : 1;
}
