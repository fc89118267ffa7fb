# The update step of a DQN: a replay memory of namedtuples, batching with zip(*transitions), a bool
# mask of non-final states, gather on the taken actions, max(1).values of a target network,
# smooth_l1_loss, clip_grad_value_, and a soft update of the target network through state_dicts.
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.optim as optim

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))


class ReplayMemory:
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super().__init__()
        self.layer1 = nn.Linear(n_observations, 16)
        self.layer2 = nn.Linear(16, n_actions)

    def forward(self, x):
        return self.layer2(torch.relu(self.layer1(x)))


random.seed(0)
policy_net = DQN(4, 2)
init_fixed(policy_net, scale=0.3, freq=0.61)
target_net = DQN(4, 2)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=1e-3, amsgrad=True)
memory = ReplayMemory(100)
GAMMA, TAU, BATCH_SIZE = 0.99, 0.005, 8

state = torch.tensor([0.01, -0.02, 0.03, 0.0]).unsqueeze(0)
for t in range(30):
    with torch.no_grad():
        action = policy_net(state).max(1).indices.view(1, 1)
    observation = (state[0] + torch.tensor([0.1, -0.05, 0.02, 0.01]) * (action.item() * 2 - 1)).tolist()
    reward = torch.tensor([1.0 if abs(observation[2]) < 0.2 else 0.0])
    terminated = t % 10 == 9
    next_state = None if terminated else torch.tensor(observation, dtype=torch.float64).unsqueeze(0)
    memory.push(state, action, next_state, reward)
    state = next_state if next_state is not None else torch.tensor([0.01, -0.02, 0.03, 0.0]).unsqueeze(0)
    if len(memory) < BATCH_SIZE:
        continue
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    target_net_state_dict = target_net.state_dict()
    policy_net_state_dict = policy_net.state_dict()
    for key in policy_net_state_dict:
        target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
    target_net.load_state_dict(target_net_state_dict)
    if t % 5 == 4:
        print(t, f"{loss.item():.10f}", non_final_mask.sum().item(), action_batch.view(-1).tolist())
print(target_net.layer2.bias, policy_net.layer2.bias)
