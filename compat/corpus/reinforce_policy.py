# REINFORCE in the manner of the policy-gradient tutorials: a policy network, a Categorical over
# its softmax, log_prob of the actions taken, discounted and normalised returns, and an entropy
# bonus. The actions come from a fixed list (random streams differ between libraries), the
# rest is as a tutorial writes it.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.0)
        self.affine2 = nn.Linear(16, 2)

    def forward(self, x):
        x = F.relu(self.dropout(self.affine1(x)))
        return F.softmax(self.affine2(x), dim=1)


policy = Policy()
init_fixed(policy, scale=0.4, freq=0.59)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = torch.finfo(torch.float64).eps
gamma = 0.99
states = wave(6, 4, freq=0.45)
actions = [0, 1, 1, 0, 1, 1]
rewards = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]

for episode in range(5):
    log_probs, entropies = [], []
    for state, action in zip(states, actions):
        probs = policy(state.unsqueeze(0))
        m = Categorical(probs)
        log_probs.append(m.log_prob(torch.tensor([action])))
        entropies.append(m.entropy())
    R, returns = 0.0, []
    for r in rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = torch.cat([-lp * ret for lp, ret in zip(log_probs, returns)]).sum()
    loss = policy_loss - 0.01 * torch.cat(entropies).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"episode {episode} loss {loss.item():.8f} p(first action) {probs[0, 0].item():.8f}")

m = Categorical(logits=policy.affine2(F.relu(policy.affine1(states))))
print(m.batch_shape, m.probs.sum(-1), m.log_prob(torch.tensor(actions)))
print(m.sample().shape, m.sample((3,)).shape, m.entropy().mean())
