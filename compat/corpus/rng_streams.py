# What seeded random functions print. Tutorials print these values and initialise layers from the
# same stream, so matching PyTorch's CPU generator is what makes such output comparable.
import torch

torch.manual_seed(0)
print(torch.rand(3))
print(torch.randn(2, 3))
print(torch.randint(0, 10, (5,)))
print(torch.randperm(6))
print(torch.normal(0.0, 1.0, size=(3,)))
torch.manual_seed(42)
print(torch.nn.Linear(3, 2).weight)
g = torch.Generator().manual_seed(7)
print(torch.rand(2, generator=g), torch.multinomial(torch.tensor([0.1, 0.6, 0.3]), 4, replacement=True, generator=g))
torch.manual_seed(1)
print(torch.empty(3).uniform_(-1, 1), torch.empty(2).normal_(), torch.bernoulli(torch.full((6,), 0.5)))
print(torch.initial_seed())
