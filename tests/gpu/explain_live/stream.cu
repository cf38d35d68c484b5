// cudaEventElapsedTime on an event made with cudaEventDisableTiming: invalid resource handle
// (400), as the runtime API documents (a launch on a destroyed stream is undefined: it may pass).
#include "common.h"
int main()
{
	cudaEvent_t a, b;
	CHECK(cudaEventCreateWithFlags(&a, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&b, cudaEventDisableTiming));
	CHECK(cudaEventRecord(a));
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	float ms = 0;
	CHECK(cudaEventElapsedTime(&ms, a, b));
	return 0;
}
