# NVTX ranges around PyTorch's matrix products, for the GPU check (docs/gpu.md, point 9).
# One product of the same shape in each place, so each range holds a known multiple of
# the kernels one product makes (however many cuBLAS chooses):
#   calib 1, step/forward 2, step/backward 1, emit_nvtx's aten:: ranges 1, window 3.
# A product outside every range first, so that cuBLAS's set-up is in none of them.
# Prints the same number with and without the shim.
import torch

a = torch.arange(512 * 512, dtype=torch.float32).reshape(512, 512) / 262144
da = a.cuda()
db = torch.eye(512, dtype=torch.float32).cuda()
c = da @ db
torch.cuda.synchronize()

nvtx = torch.cuda.nvtx
nvtx.range_push("calib")
c = c @ db
nvtx.range_pop()
nvtx.range_push("step")
nvtx.range_push("forward")
c = c @ db
c = c @ db
nvtx.range_pop()
nvtx.range_push("backward")
c = c @ db
nvtx.range_pop()
nvtx.range_pop()
with torch.autograd.profiler.emit_nvtx():
    c = c @ db
nvtx.range_push("window")
c = c @ db
c = c @ db
c = c @ db
nvtx.range_pop()
torch.cuda.synchronize()
print(f"{c.cpu().sum().item():.4f}")
