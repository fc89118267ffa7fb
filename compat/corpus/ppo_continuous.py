# PPO with continuous actions in the manner of the popular PPO tutorials and minimal repositories:
# an actor-critic whose actor gives the mean of a MultivariateNormal with a fixed diagonal
# covariance, old log-probabilities kept from the rollout, the clipped surrogate objective, an
# MSE value loss, an entropy bonus and several epochs of Adam over the same rollout. The
# actions come from a fixed list (random streams differ between libraries), the rest is as a
# tutorial writes it; a tanh-squashed Gaussian (SAC's policy) and an Independent Normal end it.
import torch
import torch.nn as nn
from torch.distributions import Independent, MultivariateNormal, Normal, TransformedDistribution
from torch.distributions.transforms import TanhTransform

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
state_dim, action_dim = 3, 2
action_std = 0.6


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.action_var = torch.full((action_dim,), action_std * action_std)
        self.actor = nn.Sequential(nn.Linear(state_dim, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                                   nn.Linear(16, action_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(state_dim, 16), nn.Tanh(), nn.Linear(16, 1))

    def act(self, state, action):
        action_mean = self.actor(state)
        cov_mat = torch.diag(self.action_var).unsqueeze(dim=0)
        dist = MultivariateNormal(action_mean, cov_mat)
        return action.detach(), dist.log_prob(action).detach(), self.critic(state).detach()

    def evaluate(self, state, action):
        action_mean = self.actor(state)
        action_var = self.action_var.expand_as(action_mean)
        cov_mat = torch.diag_embed(action_var)
        dist = MultivariateNormal(action_mean, cov_mat)
        return dist.log_prob(action), self.critic(state), dist.entropy()


policy = ActorCritic()
init_fixed(policy, scale=0.4, freq=0.61)
optimizer = torch.optim.Adam([{"params": policy.actor.parameters(), "lr": 3e-4},
                              {"params": policy.critic.parameters(), "lr": 1e-3}])
mse = nn.MSELoss()
gamma, eps_clip, k_epochs = 0.99, 0.2, 4

states = wave(8, state_dim, freq=0.37)
actions = wave(8, action_dim, freq=0.83, phase=0.4, scale=0.5)
rewards = [0.5, -0.2, 1.0, 0.3, 0.0, 0.8, -0.4, 1.2]
dones = [False, False, False, True, False, False, False, True]

old_actions, old_logprobs, old_values = [], [], []
with torch.no_grad():
    for state, action in zip(states, actions):
        a, logprob, value = policy.act(state.unsqueeze(0), action.unsqueeze(0))
        old_actions.append(a)
        old_logprobs.append(logprob)
        old_values.append(value)
print("rollout log-probs", torch.cat(old_logprobs))

discounted, returns = 0.0, []
for reward, done in zip(reversed(rewards), reversed(dones)):
    if done:
        discounted = 0.0
    discounted = reward + gamma * discounted
    returns.insert(0, discounted)
returns = torch.tensor(returns, dtype=torch.float64)
returns = (returns - returns.mean()) / (returns.std() + 1e-7)
old_states = states.detach()
old_actions = torch.squeeze(torch.stack(old_actions, dim=0)).detach()
old_logprobs = torch.squeeze(torch.stack(old_logprobs, dim=0)).detach()
old_values = torch.squeeze(torch.stack(old_values, dim=0)).detach()
advantages = returns.detach() - old_values.detach()

for epoch in range(k_epochs):
    logprobs, state_values, dist_entropy = policy.evaluate(old_states, old_actions)
    state_values = torch.squeeze(state_values)
    ratios = torch.exp(logprobs - old_logprobs.detach())
    surr1 = ratios * advantages
    surr2 = torch.clamp(ratios, 1 - eps_clip, 1 + eps_clip) * advantages
    loss = -torch.min(surr1, surr2) + 0.5 * mse(state_values, returns) - 0.01 * dist_entropy
    optimizer.zero_grad()
    loss.mean().backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.mean().item():.10f} ratio range {ratios.min().item():.8f} "
          f"{ratios.max().item():.8f} entropy {dist_entropy.mean().item():.8f}")

dist = MultivariateNormal(policy.actor(states), scale_tril=torch.diag(torch.full((action_dim,), action_std)))
print(dist.batch_shape, dist.event_shape, dist.mean.shape, dist.variance[0], dist.sample((5,)).shape)
print(dist.rsample().requires_grad, dist.covariance_matrix[0], dist.precision_matrix[0].diagonal())

# SAC's squashed Gaussian: log_prob with the tanh correction, written two ways
mu, log_std = policy.actor(states).chunk(2, dim=-1)[0].repeat(1, 2), torch.full((8, action_dim), -0.5)
base = Normal(mu, log_std.exp())
squashed = TransformedDistribution(base, [TanhTransform(cache_size=1)])
u = torch.atanh(actions.clamp(-0.99, 0.99))
by_hand = (base.log_prob(u) - torch.log(1 - torch.tanh(u).pow(2) + 1e-6)).sum(-1)
print("squashed log_prob", squashed.log_prob(torch.tanh(u)).sum(-1))
print("by hand", by_hand)
independent = Independent(Normal(mu, log_std.exp()), 1)
print(independent.batch_shape, independent.event_shape, independent.log_prob(u), independent.entropy())
print("kl", torch.distributions.kl_divergence(independent, Independent(Normal(torch.zeros_like(mu), 1.0), 1)))
