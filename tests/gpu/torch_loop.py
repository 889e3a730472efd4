# A loop of N small kernels (N given, default 100000), for the GPU check's scale point
# (docs/gpu.md, point 11): one in-place add on a 256-element tensor each, then one copy
# back. Prints the sum (the same with and without the shim) on stdout and the loop's
# wall time on stderr.
import sys
import time

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
x = torch.zeros(256, dtype=torch.float64, device="cuda")
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(n):
    x.add_(1.0)
torch.cuda.synchronize()
elapsed = time.perf_counter() - start
print(f"{x.sum().item():.1f}")
print(f"loop {n} kernels {elapsed:.3f} s", file=sys.stderr)
