/* The GPU bundle's `bin/host`: asks the CUDA runtime for a device, then runs the real host
 * (`bin/host-gpu`) with the same arguments, or says in one line why it cannot.
 *
 * Why a launcher: OpenVM's CUDA memory manager (openvm-cuda-common 2.0.1,
 * memory_manager/mod.rs) initialises itself in a constructor that runs before `main` and
 * unwraps the device it finds, so a GPU build started where there is no GPU, or a driver too old
 * for its CUDA runtime, aborts with a panic before any code of ours runs, `--version` included.
 * This check runs first, in its own process image, and the real host replaces it (execv) only
 * when a device answers.
 *
 * Built by scripts/gpu-bundle.sh: gcc launcher.c -lcudart, RUNPATH $ORIGIN/../lib. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cudaGetDeviceCount(int *count);
int cudaDriverGetVersion(int *version);
int cudaRuntimeGetVersion(int *version);
const char *cudaGetErrorString(int error);

static int refuse(const char *why, int code) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  fprintf(stderr,
          "error: this host is the GPU build and needs an NVIDIA GPU: %s (%d, %s); driver CUDA %d.%d, runtime %d.%d\n",
          why, code, code ? cudaGetErrorString(code) : "no device", driver / 1000, driver % 1000 / 10,
          runtime / 1000, runtime % 1000 / 10);
  return 2;
}

int main(int argc, char **argv) {
  (void)argc;
  int count = 0;
  int code = cudaGetDeviceCount(&count);
  if (code != 0) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    return refuse(driver ? "cudaGetDeviceCount failed" : "no NVIDIA driver (libcuda.so.1) is installed", code);
  }
  if (count <= 0) return refuse("the CUDA runtime sees no device", 0);

  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) {
    fprintf(stderr, "error: /proc/self/exe: %s\n", strerror(errno));
    return 2;
  }
  self[n] = 0;
  char real[PATH_MAX];
  snprintf(real, sizeof real, "%s/host-gpu", dirname(self));
  execv(real, argv);
  fprintf(stderr, "error: %s: %s\n", real, strerror(errno));
  return 2;
}
