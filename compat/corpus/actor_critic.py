# Actor-critic in the manner of the reinforcement-learning examples: one network with a shared
# hidden layer and two heads (action probabilities and a state value), a Categorical to sample
# each action, SavedAction namedtuples of (log_prob, value), discounted returns normalised by
# (r - mean) / (std + eps), a policy loss weighted by the advantage, a smooth L1 value loss and
# torch.stack(...).sum(). The environment is a small cart-pole written in the script.
import math
import random
from collections import namedtuple
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(543)
torch.set_default_dtype(torch.float64)
SavedAction = namedtuple("SavedAction", ["log_prob", "value"])
gamma = 0.99
eps = np.finfo(np.float32).eps.item()


class CartPole:
    """The classic pole-balancing task, Euler-integrated, with a seeded start state."""

    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold, x_threshold = 12 * 2 * math.pi / 360, 2.4

    def __init__(self, seed, max_steps=60):
        self.rng = random.Random(seed)
        self.max_steps = max_steps

    def reset(self):
        self.state = [self.rng.uniform(-0.05, 0.05) for _ in range(4)]
        self.steps = 0
        return np.array(self.state)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        polemass_length = self.masspole * self.length
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot ** 2 * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / total_mass))
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = [x, x_dot, theta, theta_dot]
        self.steps += 1
        terminated = abs(x) > self.x_threshold or abs(theta) > self.theta_threshold
        truncated = self.steps >= self.max_steps
        return np.array(self.state), 1.0, terminated, truncated


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 64)
        self.action_head = nn.Linear(64, 2)
        self.value_head = nn.Linear(64, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=3e-2)


def select_action(state):
    state = torch.from_numpy(state).double()
    probs, state_value = model(state)
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    saved_actions = model.saved_actions
    policy_losses = []
    value_losses = []
    returns = []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]
    return loss.item()


env = CartPole(seed=543)
running_reward = 10
for i_episode in count(1):
    state, ep_reward = env.reset(), 0
    for t in range(1, 10000):
        action = select_action(state)
        state, reward, terminated, truncated = env.step(action)
        model.rewards.append(reward)
        ep_reward += reward
        if terminated or truncated:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    if i_episode % 4 == 0:
        print(f"Episode {i_episode}\tLast reward: {ep_reward:.0f}\tAverage reward: {running_reward:.4f}"
              f"\tloss {loss:.6f}")
    if i_episode >= 20:
        break

with torch.no_grad():
    probs, values = model(torch.zeros(3, 4))
    print("batched heads:", probs.shape, values.shape, [round(v, 5) for v in probs[0].tolist()],
          round(values[0, 0].item(), 5))
