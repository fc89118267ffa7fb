# Full-batch optimisation with L-BFGS and a closure, as curve-fitting and style-transfer
# tutorials use it: fit a small model to a curve, then minimise the Rosenbrock function.
# (Few iterations: over many, L-BFGS amplifies the last-bit differences of any two libraries.)
import torch
import torch.nn as nn

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
x = torch.linspace(-2, 2, 40).unsqueeze(1)
y = torch.sin(2 * x) + 0.3 * x ** 2 + 0.05 * wave(40, 1, freq=1.7)

model = nn.Sequential(nn.Linear(1, 12), nn.Tanh(), nn.Linear(12, 1))
init_fixed(model, scale=0.5, freq=0.83)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=8, history_size=10,
                              line_search_fn="strong_wolfe")
loss_fn = nn.MSELoss()


def closure():
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


for step in range(3):
    loss = optimizer.step(closure)
    print(f"step {step} loss before {loss.item():.6e} after {loss_fn(model(x), y).item():.6e}")
state = optimizer.state[optimizer._params[0]]
print(state["func_evals"], state["n_iter"], len(state["old_dirs"]))
print(sorted(optimizer.state_dict()["param_groups"][0]))

point = torch.tensor([-1.5, 2.0], requires_grad=True)
rosen = torch.optim.LBFGS([point], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def rosenbrock():
    rosen.zero_grad()
    value = (1 - point[0]) ** 2 + 100 * (point[1] - point[0] ** 2) ** 2
    value.backward()
    return value


for _ in range(3):
    rosen.step(rosenbrock)
print(point.detach(), rosenbrock().item() < 1e-10)
