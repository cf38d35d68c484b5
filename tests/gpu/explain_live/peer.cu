// Peer access from GPU 0 to itself: refused (the H200 answers 217, peer access unsupported).
#include "common.h"
int main()
{
	CHECK(cudaSetDevice(0));
	CHECK(cudaDeviceEnablePeerAccess(0, 0));
	return 0;
}
