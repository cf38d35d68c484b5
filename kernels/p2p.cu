/* p2p: the kernels of the peer-to-peer lab. A wait kernel holds a stream until the host
 * has queued everything (so enqueue cost stays out of the timing), a copy kernel moves
 * bytes through the SMs over peer pointers, and fill/check kernels give each run its
 * own pattern and verify every byte at the destination. */
#include "common.cuh"

/* Spins until *go is non-zero. clock64() bounds the wait: after timeout_cycles it gives
 * up and counts itself in *timed_out, so a host that never releases it (or a queue that
 * filled before the release) costs seconds, never a hang. */
extern "C" __global__ void lab_p2p_wait(const volatile unsigned int *go, unsigned int *timed_out,
					long long timeout_cycles)
{
	if (threadIdx.x != 0 || blockIdx.x != 0)
		return;
	long long t0 = clock64();
	while (*go == 0) {
		if (clock64() - t0 > timeout_cycles) {
			atomicAdd(timed_out, 1u);
			return;
		}
	}
}

/* dst[0..bytes) = src[0..bytes): 16-byte accesses, four in flight per thread, then the
 * 4-byte words past the last 16-byte boundary. bytes is a multiple of 4; src and dst are
 * 16-byte aligned (cuMemAlloc gives 256). Either pointer may live on a peer GPU. */
extern "C" __global__ void lab_p2p_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst,
					unsigned long long bytes)
{
	unsigned long long n = bytes / 16, T = lab_nthreads(), i = lab_tid();
	for (; i + 3 * T < n; i += 4 * T) {
		uint4 a = src[i], b = src[i + T], c = src[i + 2 * T], d = src[i + 3 * T];
		dst[i] = a;
		dst[i + T] = b;
		dst[i + 2 * T] = c;
		dst[i + 3 * T] = d;
	}
	for (; i < n; i += T)
		dst[i] = src[i];
	unsigned long long words = (bytes % 16) / 4, t = lab_tid();
	if (t < words)
		((unsigned int *)(dst + n))[t] = ((const unsigned int *)(src + n))[t];
}

/* p[i] = the run's pattern word i, xor mask (mask ~0 poisons a destination so that no
 * word of it already holds what the copy should bring) */
extern "C" __global__ void lab_p2p_fill(unsigned int *p, unsigned long long words, unsigned long long seed,
					unsigned int mask)
{
	for (unsigned long long i = lab_tid(); i < words; i += lab_nthreads())
		p[i] = lab_rand32(seed, i) ^ mask;
}

/* Counts the words of p that differ from the run's pattern. */
extern "C" __global__ void lab_p2p_check(const unsigned int *p, unsigned long long words, unsigned long long seed,
					 unsigned long long *bad)
{
	unsigned long long nbad = 0;
	for (unsigned long long i = lab_tid(); i < words; i += lab_nthreads())
		if (p[i] != lab_rand32(seed, i))
			nbad++;
	if (nbad)
		atomicAdd(bad, nbad);
}
