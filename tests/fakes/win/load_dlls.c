/* Loads nvcuda.dll and nvml.dll (argv[1], argv[2]) the way a Windows program does (LoadLibrary,
 * GetProcAddress) and prints what they answer: the MinGW build of the fakes checked under Wine. */
#include <stdio.h>
#include <windows.h>

typedef int (*fn)();

/* The first of two names the library exports (a versioned call, else its older name). */
static fn sym(HMODULE h, const char *name, const char *older)
{
	FARPROC p = GetProcAddress(h, name);

	return (fn)(p ? p : older ? GetProcAddress(h, older) : NULL);
}

int main(int argc, char **argv)
{
	HMODULE cu = LoadLibraryA(argc > 2 ? argv[1] : "nvcuda.dll"), nv = LoadLibraryA(argc > 2 ? argv[2] : "nvml.dll");
	fn model;
	int n = -1, version = 0, cur = -1, pend = -1;
	unsigned nn = 0;
	char name[96] = "";
	void *dev = NULL;

	if (!cu || !nv)
		return printf("load failed: nvcuda %p nvml %p (error %lu)\n", (void *)cu, (void *)nv, GetLastError()), 2;
	printf("cuInit %d", sym(cu, "cuInit", NULL)(0));
	sym(cu, "cuDriverGetVersion", NULL)(&version);
	sym(cu, "cuDeviceGetCount", NULL)(&n);
	printf(" cuDriverGetVersion %d cuDeviceGetCount %d\n", version, n);
	printf("nvmlInit %d", sym(nv, "nvmlInit_v2", "nvmlInit")());
	sym(nv, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount")(&nn);
	printf(" nvmlDeviceGetCount %u\n", nn);
	model = sym(nv, "nvmlDeviceGetDriverModel_v2", "nvmlDeviceGetDriverModel");
	for (unsigned i = 0; i < nn; i++) {
		sym(nv, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex")(i, &dev);
		if (sym(nv, "nvmlDeviceGetName", NULL))
			sym(nv, "nvmlDeviceGetName", NULL)(dev, name, (unsigned)sizeof name);
		printf("gpu %u: %s, driver model %s %d\n", i, name, model ? "result" : "missing", model ? model(dev, &cur, &pend) : -1);
		if (model)
			printf("gpu %u: model %d pending %d\n", i, cur, pend);
	}
	return 0;
}
