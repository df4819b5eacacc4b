"""A ShuffleNet-style block: two convolutions concatenated, a channel shuffle
(reshape, transpose, reshape) and a 1x1 convolution; seeded weights,
exported to ONNX. With 'pool', the first branch ends in a 3x3 max pool
(stride 1), whose int8 result inherits its input's parameters.
usage: make-shuffle-model.py OUT.onnx [pool]"""
import sys, torch
POOL = len(sys.argv) > 2 and sys.argv[2] == "pool"
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(3, 8, 1)
        self.c = torch.nn.Conv2d(16, 4, 1)
    def forward(self, x):
        a = torch.relu(self.a(x))
        if POOL:
            a = torch.nn.functional.max_pool2d(a, 3, 1, 1)
        z = torch.cat([a, self.b(x)], 1)
        n, c, h, w = z.shape
        z = z.reshape(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)
        return self.c(z)
torch.onnx.export(Net().eval(), torch.zeros(1, 3, 16, 16), sys.argv[1], opset_version=13, input_names=["x"], output_names=["y"])
