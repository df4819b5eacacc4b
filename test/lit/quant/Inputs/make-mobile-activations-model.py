"""A small model with the blocks of MobileNetV3 and EfficientNet: a conv with
hardswish, a squeeze-and-excitation gate (global average pool, 1x1 convs,
hardsigmoid, multiply), SiLU as ONNX exports it (Sigmoid then Mul), tanh and
a leaky relu after an add; exported to ONNX (opset 14: HardSwish and
HardSigmoid are single ops) with seeded weights.
usage: make-mobile-activations-model.py OUT.onnx"""
import sys, torch
F = torch.nn.functional
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        with torch.no_grad(): # a stem whose output reaches well below -3
            self.stem.weight *= 4
        self.se_reduce = torch.nn.Conv2d(8, 4, 1)
        self.se_expand = torch.nn.Conv2d(4, 8, 1)
        self.b = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.c = torch.nn.Conv2d(8, 8, 1)
        self.head = torch.nn.Conv2d(16, 4, 1)
    def forward(self, x):
        y = F.hardswish(self.stem(x))
        g = F.hardsigmoid(self.se_expand(F.relu(self.se_reduce(F.adaptive_avg_pool2d(y, 1)))))
        y = y * g
        s = self.b(y)
        s = s * torch.sigmoid(s)
        t = torch.tanh(self.c(s))
        l = F.leaky_relu(s + y, 0.1)
        return self.head(torch.cat([t, l], 1))
torch.onnx.export(Net().eval(), torch.zeros(1, 3, 16, 16), sys.argv[1], opset_version=14, input_names=["x"], output_names=["y"])
