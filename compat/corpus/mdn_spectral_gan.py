# A mixture density network in the manner of the MDN tutorials (Bishop 1994): a Tanh trunk whose
# heads give mixture logits, component means and softplus scales, MixtureSameFamily(Categorical,
# Normal) as the likelihood, Adam on the negative log-likelihood. Then a tiny SN-GAN critic:
# nn.utils.spectral_norm on one Linear and parametrizations.spectral_norm on the other, hinge
# losses against the MDN's predicted means, remove_spectral_norm at the end. The power-iteration
# vectors u and v start from fixed numbers (set under torch.no_grad()), so both libraries agree;
# draws from the mixture are printed by shape only.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, MixtureSameFamily, Normal
from torch.nn.utils import remove_spectral_norm, spectral_norm
from torch.nn.utils.parametrizations import spectral_norm as spectral_norm_parametrization

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
n_components, hidden = 3, 12

x = torch.linspace(-1.0, 1.0, 24).unsqueeze(1)
y = torch.sin(3.0 * x).squeeze(1) + 0.2 * wave(24, freq=2.3)


class MDN(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(1, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_components)
        self.mu = nn.Linear(hidden, n_components)
        self.sigma = nn.Linear(hidden, n_components)

    def forward(self, x):
        h = self.trunk(x)
        return MixtureSameFamily(Categorical(logits=self.pi(h)), Normal(self.mu(h), F.softplus(self.sigma(h)) + 1e-3))


mdn = init_fixed(MDN(), scale=0.5)
optimizer = torch.optim.Adam(mdn.parameters(), lr=0.02)
for step in range(40):
    optimizer.zero_grad()
    loss = -mdn(x).log_prob(y).mean()
    loss.backward()
    optimizer.step()
    if step % 10 == 9:
        print(f"step {step + 1} nll {loss.item():.6f}")

with torch.no_grad():
    mixture = mdn(x[:4])
    print(mixture.batch_shape, mixture.event_shape, mixture.sample((5,)).shape)
    print("mean", mixture.mean)
    print("stddev", mixture.stddev)
    print("cdf at 0", mixture.cdf(torch.zeros(4)))
    print("weights", mixture.mixture_distribution.probs[0])

critic = nn.Sequential(
    spectral_norm(nn.Linear(2, 8)),
    nn.LeakyReLU(0.2),
    spectral_norm_parametrization(nn.Linear(8, 1)),
)
init_fixed(critic, scale=0.4, freq=1.1)
with torch.no_grad():
    for k, (name, buffer) in enumerate(critic.named_buffers()):
        buffer.copy_(F.normalize(wave(buffer.numel(), phase=float(k)), dim=0))
print([name for name, _ in critic.named_parameters()])
print(list(critic.state_dict().keys()))

real = torch.cat([x, y.unsqueeze(1)], dim=1)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=0.01, betas=(0.0, 0.9))
for step in range(5):
    fake = torch.cat([x, mdn(x).mean.unsqueeze(1)], dim=1)
    critic_optimizer.zero_grad()
    loss_d = F.relu(1.0 - critic(real)).mean() + F.relu(1.0 + critic(fake.detach())).mean()
    loss_d.backward()
    critic_optimizer.step()
    optimizer.zero_grad()
    loss_g = -critic(fake).mean()
    loss_g.backward()
    optimizer.step()
    print(f"[{step}] loss_D {loss_d.item():.6f} loss_G {loss_g.item():.6f}")

first = critic[0]
print("u", first.weight_u[:3])
print("sigma", torch.dot(first.weight_u, first.weight_orig @ first.weight_v).item())
critic.eval()
with torch.no_grad():
    scores = critic(real[:3]).squeeze(1)
print("eval scores", scores)
remove_spectral_norm(first)
print(sorted(name for name, _ in first.named_parameters()), type(first.weight).__name__)
with torch.no_grad():
    print("after removal", critic(real[:3]).squeeze(1))
print("nll", -mdn(x).log_prob(y).mean().item())
