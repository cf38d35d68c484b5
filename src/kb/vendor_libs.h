/* NVIDIA's own libraries, shipped as pip wheels: fixed by the release that carries what is
 * missing, never by rebuilding them. */
#ifndef CUDOCTOR_KB_VENDOR_LIBS_H
#define CUDOCTOR_KB_VENDOR_LIBS_H

/* The wheel of a library family ("nvidia-cudnn", without the -cuNN suffix) from a file's path:
 * "lib" + family in a soname (libcublasLt.so.13), family + bits or '_' + version in a Windows
 * DLL's name (cublasLt64_12.dll, cudnn_ops64_9.dll, nvrtc64_120_0.dll, nvinfer_10.dll), any case
 * there. NULL for any other file. */
const char *kb_vendor_wheel(const char *path);

#endif
