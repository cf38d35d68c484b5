// Peer access from GPU 0 to itself: refused (invalid device, 101).
#include "common.h"
int main()
{
	CHECK(cudaSetDevice(0));
	CHECK(cudaDeviceEnablePeerAccess(0, 0));
	return 0;
}
