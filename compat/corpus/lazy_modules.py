# Lazy modules in the manner of tutorials that leave the input sizes out: LazyConv2d,
# LazyBatchNorm2d and LazyLinear infer them on a dry run, then train; a checkpoint is loaded
# into a fresh, still lazy model.
import torch
from torch import nn

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


def make_model():
    return nn.Sequential(
        nn.LazyConv2d(4, 3, padding=1),
        nn.LazyBatchNorm2d(),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.LazyLinear(16),
        nn.ReLU(),
        nn.LazyLinear(3),
    )


model = make_model()
print(model)
print("uninitialized:", model[0].has_uninitialized_params(), [type(p).__name__ for p in model.parameters()][:2])
print("state_dict keys:", list(model.state_dict()))

images = wave(12, 2, 6, 6, freq=0.37)
labels = torch.tensor([i % 3 for i in range(12)])

optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)  # before the dry run, as allowed
model(images[:2])  # the dry run: sizes inferred, modules become their regular classes
print(model)
print([type(m).__name__ for m in model])
print("shapes:", [tuple(p.shape) for p in model.parameters()])
init_fixed(model, scale=0.2)
model[1].reset_running_stats()  # the dry run's statistics came from random weights

loss_fn = nn.CrossEntropyLoss()
for epoch in range(5):
    model.train()
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.10f}")

model.eval()
with torch.no_grad():
    logits = model(images[:4])
print("logits:", logits)
print("running_mean:", model[1].running_mean, "batches:", model[1].num_batches_tracked.item())

fresh = make_model()
print(fresh.load_state_dict(model.state_dict()), type(fresh[5]).__name__, tuple(fresh[5].weight.shape))
fresh.eval()
with torch.no_grad():
    again = fresh(images[:4])
print("same after loading:", torch.equal(again, logits), [type(m).__name__ for m in fresh])
