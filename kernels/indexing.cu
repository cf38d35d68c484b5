/* indexing-2d: a 2-D grid of 2-D blocks over an image. Each thread counts its write
 * into the pixel it computes; without the bounds check the overhanging threads land
 * in a guard region after the image that the host counts. */
#include "common.cuh"

extern "C" __global__ void lab_index2d(unsigned int *img, int width, int height, int checked)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (checked && (x >= width || y >= height))
		return;
	atomicAdd(&img[(size_t)y * width + x], 1u);
}

/* How the hardware groups a 2-D block into warps: each pixel gets its thread's
 * %laneid and the linear id of lane 0 of its warp. */
extern "C" __global__ void lab_index_warps(unsigned int *warp_of, int width, int height)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	unsigned int lane;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	unsigned int lin = threadIdx.y * blockDim.x + threadIdx.x;
	unsigned int first = __shfl_sync(0xffffffffu, lin, 0);
	if (x < width && y < height)
		warp_of[(size_t)y * width + x] = (first << 8) | lane;
}
