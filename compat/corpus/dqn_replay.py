# Deep Q-learning in the manner of the reinforcement-learning tutorial, on a tiny deterministic
# environment written here instead of a gym one: a walker on a line of cells that must reach the
# right end. A replay memory of namedtuples in a deque, epsilon-greedy action choice with a
# decaying epsilon, a policy and a target network, Huber loss on the gathered Q-values of the
# taken actions, gradient clipping by value, AdamW with amsgrad, and a soft target update
# written as arithmetic on state_dict entries.
import math
import random
from collections import deque, namedtuple
from itertools import count

import torch
import torch.nn as nn
import torch.optim as optim

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
device = torch.device("cpu")  # the printed numbers are compared on the CPU
random.seed(3)
torch.manual_seed(3)
DTYPE = torch.float64


class LineWalk:
    """Cells 0..size-1; start in the middle; action 0 steps left, 1 steps right."""

    def __init__(self, size=7, max_steps=12):
        self.size = size
        self.max_steps = max_steps

    def reset(self):
        self.position = self.size // 2
        self.steps = 0
        return self.observe()

    def observe(self):
        onehot = [0.0] * self.size
        onehot[self.position] = 1.0
        return onehot + [self.steps / self.max_steps]

    def step(self, action):
        self.position += 1 if action == 1 else -1
        self.steps += 1
        terminated = self.position in (0, self.size - 1)
        truncated = self.steps >= self.max_steps
        reward = 1.0 if self.position == self.size - 1 else (-1.0 if self.position == 0 else -0.05)
        return self.observe(), reward, terminated, truncated


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
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.layer3(x)


BATCH_SIZE = 16
GAMMA = 0.95
EPS_START, EPS_END, EPS_DECAY = 0.9, 0.05, 60
TAU = 0.01
LR = 3e-3

env = LineWalk()
n_actions = 2
n_observations = len(env.reset())
policy_net = DQN(n_observations, n_actions).to(device=device, dtype=DTYPE)
target_net = DQN(n_observations, n_actions).to(device=device, dtype=DTYPE)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(500)
steps_done = 0


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    return torch.tensor([[random.randrange(n_actions)]], device=device, dtype=torch.long)


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return None
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)),
                                  device=device, dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)

    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE, device=device, dtype=DTYPE)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch

    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


episode_returns, episode_durations = [], []
for i_episode in range(14):
    state = torch.tensor(env.reset(), dtype=DTYPE, device=device).unsqueeze(0)
    episode_return, losses = 0.0, []
    for t in count():
        action = select_action(state)
        observation, reward, terminated, truncated = env.step(action.item())
        episode_return += reward
        reward = torch.tensor([reward], device=device, dtype=DTYPE)
        done = terminated or truncated
        if terminated:
            next_state = None
        else:
            next_state = torch.tensor(observation, dtype=DTYPE, device=device).unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state
        loss = optimize_model()
        if loss is not None:
            losses.append(loss)

        # soft update of the target network: theta' <- tau * theta + (1 - tau) * theta'
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)
        if done:
            break
    episode_returns.append(round(episode_return, 2))
    episode_durations.append(t + 1)
    mean_loss = sum(losses) / len(losses) if losses else float("nan")
    print(i_episode, "steps", t + 1, "return", round(episode_return, 2), "mean loss", f"{mean_loss:.6g}")

# the tutorial's plot of durations with a moving average over windows of the last episodes
durations_t = torch.tensor(episode_durations, dtype=torch.float)
WINDOW = 5
means = durations_t.unfold(0, WINDOW, 1).mean(1).view(-1)
means = torch.cat((torch.zeros(WINDOW - 1), means))
print("durations", durations_t.dtype, durations_t.int().tolist())
print("moving average", [round(m, 2) for m in means.tolist()])
print("returns", episode_returns, "memory", len(memory), "steps", steps_done)
with torch.no_grad():
    env.reset()
    greedy = policy_net(torch.tensor(env.observe(), dtype=DTYPE).unsqueeze(0))
    print("greedy Q at start", [round(q, 4) for q in greedy[0].tolist()], greedy.argmax(1).item())
    gap = (target_net.layer3.weight - policy_net.layer3.weight).abs().max()
    print("target lags policy", gap.item() > 0, f"{gap.item():.6g}")
print(optimizer.state_dict()["param_groups"][0]["amsgrad"], len(optimizer.state_dict()["state"]))
