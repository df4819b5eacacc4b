"""recurrent-cells.test's models and PyTorch references.
Usage: recurrent_cells.py DIR
Writes DIR/lstm.onnx and DIR/gru.onnx (opset 17): a 2-layer nn.LSTM (or
nn.GRU) over 5 steps of a batch of 3, its initial states given as graph
inputs (so the first step's cell reads a computed state, batch rows each
its own), and the last step's output through a linear layer; with
DIR/<model>_in.npz and DIR/<model>_ref.npz (PyTorch's output)."""
import sys

import numpy as np
import torch


class Model(torch.nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell
        self.rnn = getattr(torch.nn, cell)(8, 16, num_layers=2, batch_first=True)
        self.fc = torch.nn.Linear(16, 4)

    def forward(self, x, *state):
        y, _ = self.rnn(x, state if self.cell == "LSTM" else state[0])
        return self.fc(y[:, -1])


def main():
    out = sys.argv[1]
    for cell in ("LSTM", "GRU"):
        torch.manual_seed(3)
        m = Model(cell).eval()
        x = torch.randn(3, 5, 8)
        state = [torch.randn(2, 3, 16) for _ in range(2 if cell == "LSTM" else 1)]
        names = ["x", "h0", "c0"][:1 + len(state)]
        name = cell.lower()
        torch.onnx.export(m, (x, *state), "%s/%s.onnx" % (out, name),
                          opset_version=17, input_names=names,
                          output_names=["output"])
        with torch.no_grad():
            ref = m(x, *state).numpy()
        np.savez("%s/%s_in.npz" % (out, name),
                 **dict(zip(names, [x.numpy()] + [s.numpy() for s in state])))
        np.savez("%s/%s_ref.npz" % (out, name), output=ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
