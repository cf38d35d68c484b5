/* The pieces under `cudoctor topo`: kb/links.tsv (rates, sources), sysfs cpulists, the PCIe
 * relation of two sysfs paths, and the link theory of a pair from fabricated facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "kb/links.h"
#include "probe/topology.h"
#include "rules/topology.h"
#include "util/err.h"

static void test_links_table(void **state)
{
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(kb_links_load(err), CD_OK);
	assert_true(kb_link_count() > 10);
	/* NVLink 4 (H100/H200): 25 GB/s per link and direction, 18 links = 450 */
	const struct kb_link *h = kb_nvlink_for_cc(9, 0);
	assert_non_null(h);
	assert_int_equal(h->generation, 4);
	assert_true(h->gbs * h->links == 450.0);
	assert_true(kb_nvlink_for_cc(10, 0)->gbs == 50.0);
	assert_null(kb_nvlink_for_cc(7, 5));   /* Turing GeForce: no row, theory unknown */
	assert_int_equal(kb_nvlink_model("NVIDIA H200")->links, 18);
	assert_null(kb_nvlink_model("NVIDIA H100 PCIe"));
	/* PCIe Gen5 x16 = 63 GB/s per direction; Gen3 x16 = 15.75 */
	assert_true(kb_pcie_gen(5)->gbs * 16 > 62.9 && kb_pcie_gen(5)->gbs * 16 < 63.1);
	assert_true(kb_pcie_gen(3)->gbs * 16 > 15.7 && kb_pcie_gen(3)->gbs * 16 < 15.8);
	assert_null(kb_pcie_gen(9));
	/* every source key is explained in sources.tsv */
	assert_int_equal(kb_load(err), CD_OK);
	for (size_t i = 0; i < kb_link_count(); i++) {
		char keys[256];
		snprintf(keys, sizeof keys, "%s", kb_link_at(i)->source);
		for (char *k = strtok(keys, ";"); k; k = strtok(NULL, ";"))
			if (!kb_source_find(k))
				fail_msg("links.tsv cites %s, which sources.tsv does not explain", k);
	}
}

static void test_cpulist(void **state)
{
	struct topo_cpuset s;
	char buf[256];

	(void)state;
	assert_true(topo_cpuset_parse("0-3,8,10-11\n", &s));
	topo_cpuset_format(&s, buf, sizeof buf);
	assert_string_equal(buf, "0-3,8,10-11");
	assert_true(topo_cpuset_parse("0-47,96-143", &s));
	topo_cpuset_format(&s, buf, sizeof buf);
	assert_string_equal(buf, "0-47,96-143");
	assert_true(topo_cpuset_parse("\n", &s));
	assert_true(topo_cpuset_empty(&s));
	assert_false(topo_cpuset_parse("3-1", &s));
	assert_false(topo_cpuset_parse("0-", &s));
	assert_false(topo_cpuset_parse("a", &s));
	assert_false(topo_cpuset_parse("1;2", &s));
	assert_false(topo_cpuset_parse("99999", &s));
	struct topo_cpuset a, b;
	assert_true(topo_cpuset_parse("0-31", &a) && topo_cpuset_parse("32-63", &b));
	assert_false(topo_cpuset_intersects(&a, &b));
	assert_true(topo_cpuset_parse("31-32", &b));
	assert_true(topo_cpuset_intersects(&a, &b));
}

static void test_sysfs_level(void **state)
{
	const char *gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:18:00.0";
	const char *nic_same_switch = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:19:00.0";
	const char *nic_deeper = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:03:00.0/0000:04:00.0/0000:05:00.0";
	const char *nic_other_port = "/sys/devices/pci0000:00/0000:00:03.0/0000:30:00.0";
	const char *nic_other_root = "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0";

	(void)state;
	assert_int_equal(topo_sysfs_level(gpu, nic_same_switch, true), NVML_TOPOLOGY_SINGLE);
	assert_int_equal(topo_sysfs_level(gpu, nic_deeper, true), NVML_TOPOLOGY_MULTIPLE);
	assert_int_equal(topo_sysfs_level(gpu, nic_other_port, true), NVML_TOPOLOGY_HOSTBRIDGE);
	assert_int_equal(topo_sysfs_level(gpu, nic_other_root, true), NVML_TOPOLOGY_NODE);
	assert_int_equal(topo_sysfs_level(gpu, nic_other_root, false), NVML_TOPOLOGY_SYSTEM);
	assert_int_equal(topo_sysfs_level(gpu, "", true), -1);
	assert_int_equal(topo_sysfs_level("/not/sysfs", gpu, true), -1);
	assert_string_equal(topo_level_name(NVML_TOPOLOGY_SINGLE), "PIX");
	assert_string_equal(topo_level_name(NVML_TOPOLOGY_SYSTEM), "SYS");
}

static void test_pair_theory(void **state)
{
	static struct topo_probe t;
	static struct gpu_info a, b;
	struct topo_pair p[2];
	struct topo_theory th;
	char cell[16];

	(void)state;
	memset(&t, 0, sizeof t);
	a.cc_major = 9;
	a.cc_minor = 0;
	gpu_mark(&a, GF_CC);
	a.pcie_gen_max = 5;
	a.pcie_width_max = 16;
	gpu_mark(&a, GF_PCIE_GEN_MAX);
	gpu_mark(&a, GF_PCIE_WIDTH_MAX);
	b = a;
	b.pcie_width_max = 8;   /* the narrower side bounds a PCIe pair */
	t.gpus[0].info = &a;
	t.gpus[1].info = &b;
	t.n_gpus = 2;
	memset(p, 0, sizeof p);
	p[0].a = 0, p[0].b = 1, p[1].a = 1, p[1].b = 0;
	t.pairs = p;
	t.n_pairs = 2;
	topo_pair_theory(&t, &p[0], &th);
	assert_true(th.known && !th.nvlink);
	assert_true(th.gbs > 31.4 && th.gbs < 31.6);
	p[0].has_level = true;
	p[0].level = NVML_TOPOLOGY_HOSTBRIDGE;
	topo_cell(&t, 0, 1, cell, sizeof cell);
	assert_string_equal(cell, "PHB");
	p[0].nvlinks = 6;
	topo_pair_theory(&t, &p[0], &th);
	assert_true(th.known && th.nvlink);
	assert_true(th.gbs == 150.0);
	topo_cell(&t, 0, 1, cell, sizeof cell);
	assert_string_equal(cell, "NV6");
	topo_cell(&t, 1, 1, cell, sizeof cell);
	assert_string_equal(cell, "X");
	topo_cell(&t, 1, 0, cell, sizeof cell);
	assert_string_equal(cell, "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_table),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_sysfs_level),
		cmocka_unit_test(test_pair_theory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
