"""A small model with a layer the CPU target has no int8 kernel for (avg_pool)
and a sigmoid (an int8 table since schema 1.8), concatenated, between int8
convolutions, plus a 3-channel stem; exported
to ONNX with seeded weights. usage: make-fallback-model.py OUT.onnx"""
import sys, torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.c = torch.nn.Conv2d(16, 4, 1)
    def forward(self, x):
        y = torch.relu(self.a(x))
        p = torch.nn.functional.avg_pool2d(y, 2)
        s = torch.sigmoid(self.b(p))
        z = torch.cat([p, s], 1)
        return self.c(z)
torch.onnx.export(Net().eval(), torch.zeros(1, 3, 16, 16), sys.argv[1], opset_version=13, input_names=["x"], output_names=["y"])
