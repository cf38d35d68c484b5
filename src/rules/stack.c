/* The order doctor runs the layers in above the driver: a finding's place in the report
 * follows it, so keep it stable. */
#include "rules/internal.h"

int rules_run_table(const rules_fn *rules, size_t n, const struct facts *f, struct report *r)
{
	for (size_t i = 0; i < n; i++) {
		int rc = rules[i](f, r);
		if (rc != CD_OK)
			return rc;
	}
	return CD_OK;
}

int rules_stack(const struct facts *f, struct report *r)
{
	static const rules_fn rules[] = {
		rule_helper_timeouts, rule_toolkit_vs_driver, rule_runtime_vs_driver,
		rule_toolkit_vs_gpu, rule_shadowed, rule_torch_cpu, rule_visible_devices,
		rule_device_order, rule_device_nodes, rule_wsl, rules_windows, rule_persistence,
		rule_smi_cuda_version,
	};

	return rules_run_table(rules, sizeof rules / sizeof rules[0], f, r);
}
