"""sequence-lstm.test's models, inputs and PyTorch references.
Usage: sequence_lstm.py DIR
Writes, for each model NAME, NAME.onnx (torch.onnx.export, opset 17),
NAME.in.npz and NAME.ref.npz (PyTorch's float32 outputs):
  tm:    nn.LSTM(8, 16), time-major [7, 2, 8], with h0 and c0 as graph
         inputs; outputs y and h_n (the final cell state unread)
  bf:    nn.LSTM(6, 12, num_layers=2, batch_first=True) on [3, 9, 6], no
         initial state; output y
  cell:  nn.LSTM(5, 4) whose final cell state c_n is an output too (NNAPI's
         sequence LSTM gives it only at level 30: unrolled instead)
  long:  nn.LSTM(4, 8) over 600 steps, longer than unroll-recurrence unrolls
"""
import os
import sys
import warnings

import numpy as np
import torch
from torch import nn

warnings.filterwarnings("ignore")
torch.manual_seed(5)


class Tm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16)

    def forward(self, x, h0, c0):
        y, (h, _) = self.lstm(x, (h0, c0))
        return y, h


class Bf(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 12, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 4)

    def forward(self, x):
        y, (_, c) = self.lstm(x)
        return y, c


class Long(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8)

    def forward(self, x):
        return self.lstm(x)[0]


MODELS = {
    "tm": (Tm, {"x": (7, 2, 8), "h0": (1, 2, 16), "c0": (1, 2, 16)}, ["y", "h"]),
    "bf": (Bf, {"x": (3, 9, 6)}, ["y"]),
    "cell": (Cell, {"x": (5, 2, 5)}, ["y", "c"]),
    "long": (Long, {"x": (600, 1, 4)}, ["y"]),
}


def main():
    out = sys.argv[1]
    for name, (cls, shapes, outputs) in MODELS.items():
        model = cls().eval()
        inputs = {k: torch.randn(*s) for k, s in shapes.items()}
        args = tuple(inputs.values())
        path = os.path.join(out, name)
        torch.onnx.export(model, args, path + ".onnx", opset_version=17,
                          input_names=list(inputs), output_names=outputs)
        with torch.no_grad():
            ref = model(*args)
        ref = ref if isinstance(ref, tuple) else (ref,)
        np.savez(path + ".in.npz", **{k: v.numpy() for k, v in inputs.items()})
        np.savez(path + ".ref.npz", **{k: v.numpy() for k, v in zip(outputs, ref)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
