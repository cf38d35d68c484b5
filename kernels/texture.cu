/* texture: 2-D reads with spatial locality, each through three paths: plain global loads
 * (no const/__restrict__, so the compiler may not use the read-only path), the read-only
 * path (const __restrict__ and __ldg), and a texture object over a CUDA array (block-linear
 * layout, clamp addressing, point or hardware-linear filtering). Edges clamp in all three. */
#include "common.cuh"

static __device__ __forceinline__ int tex_clamp(int v, int hi)
{
	return v < 0 ? 0 : v > hi ? hi : v;
}

/* floats in [1, 2) with 24 significant bits: exact in float */
extern "C" __global__ void lab_tex_fill(float *a, unsigned long long n, unsigned long long seed)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		a[i] = 1.0f + (float)(lab_rand32(seed, i) >> 8) * (1.0f / 16777216.0f);
}

#define TEX_XY                                                   \
	int x = blockIdx.x * blockDim.x + threadIdx.x;           \
	int y = blockIdx.y * blockDim.y + threadIdx.y;           \
	if (x >= w || y >= h)                                    \
		return;

/* 5-point stencil: out = c/2 + (n + s + e + w)/8 */
#define TEX_STENCIL(LD)                                                                             \
	float c = LD(y * w + x), n = LD(tex_clamp(y - 1, h - 1) * w + x);                            \
	float s = LD(tex_clamp(y + 1, h - 1) * w + x), e = LD(y * w + tex_clamp(x + 1, w - 1));       \
	float wv = LD(y * w + tex_clamp(x - 1, w - 1));                                              \
	out[y * w + x] = 0.5f * c + 0.125f * ((n + s) + (e + wv));

extern "C" __global__ void lab_tex_stencil_plain(float *in, float *out, int w, int h)
{
	TEX_XY
#define LD_PLAIN(i) in[i]
	TEX_STENCIL(LD_PLAIN)
}

extern "C" __global__ void lab_tex_stencil_ldg(const float *__restrict__ in, float *__restrict__ out, int w, int h)
{
	TEX_XY
#define LD_RO(i) __ldg(in + (i))
	TEX_STENCIL(LD_RO)
}

extern "C" __global__ void lab_tex_stencil_tex(cudaTextureObject_t t, float *out, int w, int h)
{
	TEX_XY
	float c = tex2D<float>(t, x + 0.5f, y + 0.5f), n = tex2D<float>(t, x + 0.5f, y - 0.5f);
	float s = tex2D<float>(t, x + 0.5f, y + 1.5f), e = tex2D<float>(t, x + 1.5f, y + 0.5f);
	float wv = tex2D<float>(t, x - 0.5f, y + 0.5f);
	out[y * w + x] = 0.5f * c + 0.125f * ((n + s) + (e + wv));
}

/* Bilinear sample of the image rotated by (ca, sa) = (cos, sin) about its centre: a warp's
 * lanes walk a slanted line through the source, so neighbouring lanes touch neighbouring rows.
 * Texel centres at i + 0.5, as the texture unit counts them. */
#define TEX_UV                                                                 \
	float dx = x + 0.5f - 0.5f * w, dy = y + 0.5f - 0.5f * h;              \
	float u = 0.5f * w + dx * ca - dy * sa, v = 0.5f * h + dx * sa + dy * ca;

#define TEX_BILINEAR(LD)                                                                   \
	float bx = u - 0.5f, by = v - 0.5f, fx0 = floorf(bx), fy0 = floorf(by);           \
	float fx = bx - fx0, fy = by - fy0;                                               \
	int x0 = tex_clamp((int)fx0, w - 1), x1 = tex_clamp((int)fx0 + 1, w - 1);         \
	int y0 = tex_clamp((int)fy0, h - 1), y1 = tex_clamp((int)fy0 + 1, h - 1);         \
	float t00 = LD(y0 * w + x0), t10 = LD(y0 * w + x1), t01 = LD(y1 * w + x0), t11 = LD(y1 * w + x1); \
	float top = t00 + fx * (t10 - t00), bot = t01 + fx * (t11 - t01);                 \
	out[y * w + x] = top + fy * (bot - top);

extern "C" __global__ void lab_tex_bilinear_plain(float *in, float *out, int w, int h, float ca, float sa)
{
	TEX_XY
	TEX_UV
	TEX_BILINEAR(LD_PLAIN)
}

extern "C" __global__ void lab_tex_bilinear_ldg(const float *__restrict__ in, float *__restrict__ out, int w, int h,
						float ca, float sa)
{
	TEX_XY
	TEX_UV
	TEX_BILINEAR(LD_RO)
}

extern "C" __global__ void lab_tex_bilinear_tex(cudaTextureObject_t t, float *out, int w, int h, float ca, float sa)
{
	TEX_XY
	TEX_UV
	out[y * w + x] = tex2D<float>(t, u, v);
}
