/* libamdhip64 through the one loader: its two queries bound, nothing else. */
#include "driver/hip.h"

#include <stddef.h>
#include <string.h>

#include "util/err.h"

#define SYM(field, ...) { offsetof(struct hip, field), { __VA_ARGS__ } }

static const struct dl_symbol symbols[] = {
	SYM(RuntimeGetVersion, "hipRuntimeGetVersion"),
	SYM(GetDeviceCount, "hipGetDeviceCount"),
};

int hip_load(struct hip *h, const char *const *dirs, char *err)
{
	static const struct dl_spec spec = {
#ifdef _WIN32
		.soname = "amdhip64_6.dll", /* the HIP SDK's */
#else
		.soname = "libamdhip64.so",
#endif
		.override_env = "CUDOCTOR_LIBHIP", .path_symbol = "hipRuntimeGetVersion",
	};
	struct dl_spec s = spec;
	int rc;

	memset(h, 0, sizeof *h);
	s.dirs = dirs;
	if ((rc = dl_open(&s, &h->lib, err)) != CD_OK)
		return rc;
	dl_bind(&h->lib, symbols, sizeof symbols / sizeof symbols[0], h, NULL);
	if (!h->RuntimeGetVersion || !h->GetDeviceCount) {
		cd_fail(err, CD_ENOTFOUND, "%s lacks hipRuntimeGetVersion/hipGetDeviceCount", h->lib.path);
		hip_unload(h);
		return CD_ENOTFOUND;
	}
	return CD_OK;
}

void hip_unload(struct hip *h)
{
	dl_close(&h->lib);
	memset(h, 0, sizeof *h);
}
