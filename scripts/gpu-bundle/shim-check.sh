#!/usr/bin/env bash
# Checks the CUDA driver shim (cuda-shim.sh) on this machine, which has no driver:
#   scripts/gpu-bundle/shim-check.sh SHIM_DIR
# 1. with no libcuda.so.1 to be found, a driver call through the shim returns
#    CUDA_ERROR_STUB_LIBRARY (34) rather than the process failing to start;
# 2. with a fake libcuda.so.1 on the library path, calls reach it with their arguments and
#    its results come back (the jump keeps the caller's registers and stack).
set -euo pipefail
shim="$(cd "$1" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/caller.c" <<'C'
#include <stdio.h>
typedef int CUresult;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGetCount(int *count);
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes);
int main(void) {
  int count = -1;
  unsigned long long ptr = 0;
  int a = cuInit(0), b = cuDeviceGetCount(&count), c = cuMemAlloc_v2(&ptr, 4096);
  printf("%d %d %d %d %llu\n", a, b, count, c, ptr);
  return 0;
}
C
cat > "$work/fake.c" <<'C'
typedef int CUresult;
CUresult cuInit(unsigned int flags) { return flags == 0 ? 0 : 1; }
CUresult cuDeviceGetCount(int *count) { *count = 5; return 0; }
CUresult cuMemAlloc_v2(unsigned long long *ptr, unsigned long bytes) { *ptr = bytes + 1; return 2; }
C
mkdir -p "$work/driver"
gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$work/driver/libcuda.so.1" "$work/fake.c"
gcc -o "$work/caller" "$work/caller.c" -L"$shim" -lstateless_cuda_shim -Wl,-rpath,"$shim"
none=$("$work/caller")
faked=$(LD_LIBRARY_PATH="$work/driver" "$work/caller")
echo "shim-check: no driver -> '$none'; a fake driver -> '$faked'"
[ "$none" = "34 34 -1 34 0" ] || { echo "shim-check: without a driver the shim should answer 34" >&2; exit 1; }
[ "$faked" = "0 0 5 2 4097" ] || { echo "shim-check: the shim did not forward to the driver" >&2; exit 1; }
echo "shim-check: passed"
