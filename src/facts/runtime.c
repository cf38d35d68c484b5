/* Names of the facts' enumerations, for evidence and for the JSON report. */
#include "facts/runtime.h"

const char *runtime_origin_name(enum runtime_origin o)
{
	switch (o) {
	case ORIGIN_SYSTEM: return "system";
	case ORIGIN_TOOLKIT: return "toolkit";
	case ORIGIN_PIP: return "pip wheel";
	case ORIGIN_TORCH: return "torch";
	case ORIGIN_CONDA: return "conda";
	}
	return "unknown";
}
