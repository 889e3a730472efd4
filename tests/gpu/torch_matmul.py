# A few matrix products and copies for the GPU check: 2 host-to-device copies, 3
# products, 1 device-to-host copy. Prints the same numbers with and without the shim.
import torch

torch.manual_seed(0)
a = torch.arange(256 * 256, dtype=torch.float32).reshape(256, 256) / 65536
b = torch.eye(256, dtype=torch.float32)
da = a.cuda()
db = b.cuda()
c = da @ db
c = c @ db
c = c @ db
result = c.cpu()
print(f"{result.sum().item():.4f}")
