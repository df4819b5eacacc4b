"""Dynamic quantization as torch.ao.quantization.quantize_dynamic gives it:
an MLP (64 -> 128 -> ReLU -> 128 -> 10) whose Linear layers hold int8
weights and quantize their inputs at run time, once with per-tensor weights
(the default qconfig) and once per channel. Writes, for each:
  mlp_dynamic[_per_channel].traced.pt, .ref.npz (PyTorch's output on
  mlp_dynamic.input.npz, QNNPACK's kernels), and mlp_dynamic.float.npz (the
  float model's).
And a keyword-spotting-shaped LSTM (20 frames of 40 features, a 2-layer
bidirectional LSTM of 32 units, a Linear to 12 classes from the last frame)
with its LSTM and Linear dynamically quantized (aten::quantized_lstm):
  lstm_dynamic.traced.pt, .input.npz, .ref.npz, .float.npz.
usage: make_dynamic.py [OUTDIR]
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.ao.quantization import default_dynamic_qconfig, per_channel_dynamic_qconfig

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else HERE
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(1))
    np.savez(os.path.join(outdir, "mlp_dynamic.input.npz"), input=x.numpy())
    with torch.no_grad():
        np.savez(os.path.join(outdir, "mlp_dynamic.float.npz"), output=model(x).numpy())
    for name, qconfig in (("mlp_dynamic", default_dynamic_qconfig),
                          ("mlp_dynamic_per_channel", per_channel_dynamic_qconfig)):
        q = torch.ao.quantization.quantize_dynamic(model, {nn.Linear: qconfig})
        with torch.no_grad():
            ref = q(x)
            traced = torch.jit.trace(q, x)
        traced.save(os.path.join(outdir, name + ".traced.pt"))
        np.savez(os.path.join(outdir, name + ".ref.npz"), output=ref.numpy())
        print("wrote", name)
    write_lstm(outdir)


class KeywordLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(40, 32, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


def write_lstm(outdir):
    torch.manual_seed(3)
    model = KeywordLstm().eval()
    x = torch.randn(2, 20, 40, generator=torch.Generator().manual_seed(4))
    np.savez(os.path.join(outdir, "lstm_dynamic.input.npz"), x=x.numpy())
    q = torch.ao.quantization.quantize_dynamic(model, {nn.LSTM, nn.Linear}, dtype=torch.qint8)
    with torch.no_grad():
        np.savez(os.path.join(outdir, "lstm_dynamic.float.npz"), output=model(x).numpy())
        np.savez(os.path.join(outdir, "lstm_dynamic.ref.npz"), output=q(x).numpy())
        torch.jit.trace(q, x).save(os.path.join(outdir, "lstm_dynamic.traced.pt"))
    print("wrote lstm_dynamic")


if __name__ == "__main__":
    main()
