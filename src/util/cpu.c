/* The processor's vector extensions, asked once. */
#include "util/cpu.h"

bool cpu_has_avx2(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx2") ? 1 : 0;
	}
	return have == 1;
#else
	return false;
#endif
}
