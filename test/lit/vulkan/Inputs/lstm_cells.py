"""lstm-cells.test's model and PyTorch reference.
Usage: lstm_cells.py DIR
Writes DIR/lstm.onnx (opset 17): a 2-layer nn.LSTM over 5 steps of a batch
of 3, its initial states h0 and c0 given as graph inputs (so the first
step's cell reads a computed state, batch rows each its own), and the
final hidden state through a linear layer; DIR/in.npz and DIR/ref.npz
(PyTorch's output)."""
import sys

import numpy as np
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = torch.nn.Linear(16, 4)

    def forward(self, x, h0, c0):
        y, _ = self.rnn(x, (h0, c0))
        return self.fc(y[:, -1])


def main():
    out = sys.argv[1]
    torch.manual_seed(3)
    m = Model().eval()
    x = torch.randn(3, 5, 8)
    h0, c0 = torch.randn(2, 3, 16), torch.randn(2, 3, 16)
    torch.onnx.export(m, (x, h0, c0), out + "/lstm.onnx", opset_version=17,
                      input_names=["x", "h0", "c0"], output_names=["output"])
    with torch.no_grad():
        ref = m(x, h0, c0).numpy()
    np.savez(out + "/in.npz", x=x.numpy(), h0=h0.numpy(), c0=c0.numpy())
    np.savez(out + "/ref.npz", output=ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
