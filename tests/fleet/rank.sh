#!/bin/sh
# One rank of the simulated fleet in tests/unit/test_fleet_mpi.c: gives each MPI rank its
# own node name and fake driver (tests/fakes, FAKE_*), then runs cudoctor with the
# arguments given. FLEET_FAKES is the fakes' directory, FLEET_STUCK_CUDA the libcuda whose
# cuInit exits or hangs (tests/fleet/stuck_cuda.c); FLEET_DYING_RANK=N makes rank N die in
# cuInit after FLEET_DYING_DELAY seconds; FLEET_NO_NCCL_RANK=N gives rank N no libnccl.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-0}}}
two="NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB"
export CUDOCTOR_LIBCUDA="$FLEET_FAKES/libcuda.so.1" CUDOCTOR_LIBNVML="$FLEET_FAKES/libnvidia-ml.so.1"
export FAKE_GPUS="$two"
case $rank in
0|1) export CUDOCTOR_NODE=node01 ;;                      # two ranks, one node: one leader
2) export CUDOCTOR_NODE=node02 ;;
3) export CUDOCTOR_NODE=node03 FAKE_NVML_DRIVER_VERSION=535.104.05 FAKE_CUDA_DRIVER_VERSION=12020 ;;
4) export CUDOCTOR_NODE=node04 FAKE_NVML_ECC="1:0:4:0:4" ;;  # GPU 1: uncorrectable ECC errors
5) export CUDOCTOR_NODE=node05 FAKE_GPUS="NVIDIA H200:9.0:141GiB" ;; # one GPU missing
6) export CUDOCTOR_NODE=node06 FAKE_CUDA_INIT_RESULT=999 ;;  # its doctor fails: cuInit 999
7) export CUDOCTOR_NODE=node07 CUDOCTOR_LIBCUDA="$FLEET_STUCK_CUDA" STUCK_CUDA=hang ;; # hangs
*) export CUDOCTOR_NODE=node$((rank + 1)) ;;
esac
if [ "${FLEET_NO_NCCL_RANK:-}" = "$rank" ]; then
	export CUDOCTOR_LIBNCCL=/nonexistent/libnccl.so.2
fi
if [ "${FLEET_DYING_RANK:-}" = "$rank" ]; then
	export CUDOCTOR_LIBCUDA="$FLEET_STUCK_CUDA" STUCK_CUDA=exit STUCK_CUDA_DELAY=${FLEET_DYING_DELAY:-0}
fi
exec "$@"
