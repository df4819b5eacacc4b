"""A ShuffleNet-style block, seeded weights, exported to ONNX:
  (default) two convolutions concatenated, a channel shuffle (reshape,
            transpose, reshape) and a 1x1 convolution;
  pool      the same with a 3x3 max pool (stride 1) ending the first branch;
  split     a ShuffleNetV2 unit: a convolution, split in two halves, the
            second half through a convolution, concatenated with the first,
            then the shuffle and the 1x1 convolution.
usage: make-shuffle-model.py OUT.onnx [pool|split]"""
import sys, torch
KIND = sys.argv[2] if len(sys.argv) > 2 else ""
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(3 if KIND != "split" else 4, 8 if KIND != "split" else 4, 1)
        self.c = torch.nn.Conv2d(16 if KIND != "split" else 8, 4, 1)
    def forward(self, x):
        a = torch.relu(self.a(x))
        if KIND == "pool":
            a = torch.nn.functional.max_pool2d(a, 3, 1, 1)
        if KIND == "split":
            a1, a2 = a.chunk(2, 1)
            z = torch.cat([a1, torch.relu(self.b(a2))], 1)
        else:
            z = torch.cat([a, self.b(x)], 1)
        n, c, h, w = z.shape
        z = z.reshape(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)
        return self.c(z)
torch.onnx.export(Net().eval(), torch.zeros(1, 3, 16, 16), sys.argv[1], opset_version=13, input_names=["x"], output_names=["y"])
