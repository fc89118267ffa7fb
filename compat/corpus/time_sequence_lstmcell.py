# Sine-wave sequence prediction in the manner of the time-sequence example: two nn.LSTMCell
# layers unrolled by hand over time steps taken with .chunk, their outputs joined with
# torch.stack(..., 1).squeeze(2), a "future" mode that feeds each prediction back in, and
# training in float64 (.double()) with L-BFGS and a closure. The waves are made with NumPy and
# passed through torch.save/torch.load and torch.from_numpy, as the example's two scripts do.
# (Few L-BFGS steps: over many, it amplifies the last-bit differences of any two libraries.)
import io

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

HIDDEN = 12


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)

        for input_t in input.chunk(input.size(1), dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # keep going on the model's own predictions
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.stack(outputs, 1).squeeze(2)
        return outputs


# the data script: N shifted sine waves of length L, period 2*pi*T
np.random.seed(2)
T, L, N = 20, 60, 8
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")
buffer = io.BytesIO()
torch.save(data, buffer)
buffer.seek(0)

# the training script
np.random.seed(0)
torch.manual_seed(0)
data = torch.load(buffer, weights_only=False)
print(type(data).__name__, data.shape, data.dtype)
input = torch.from_numpy(data[3:, :-1])
target = torch.from_numpy(data[3:, 1:])
test_input = torch.from_numpy(data[:3, :-1])
test_target = torch.from_numpy(data[:3, 1:])
print(input.shape, input.dtype, input.is_contiguous(), test_target.shape)
# newer versions of the example step through time with split(1, dim=1): the same columns
pieces = input.split(1, dim=1)
print(len(pieces), pieces[0].shape, all(torch.equal(a, b) for a, b in zip(pieces, input.chunk(input.size(1), dim=1))))

seq = Sequence()
seq.double()
print(seq)
print({name: p.dtype for name, p in seq.named_parameters()}["lstm2.weight_hh"])
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=6)
for i in range(3):
    losses = []

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        losses.append(loss.item())
        loss.backward()
        return loss

    optimizer.step(closure)
    print("step", i, "closure calls", len(losses), "losses", [f"{v:.5g}" for v in losses])
    with torch.no_grad():
        future = 20
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss", f"{loss.item():.5g}", pred.shape)
        y = pred.detach().numpy()
    print("prediction tail", np.round(y[0, -4:], 3).tolist(), y.dtype)
