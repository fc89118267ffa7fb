# Hogwild training: several processes train one model whose parameters live in shared memory,
# each with its own data loader and optimizer, all writing the same weights without a lock (the
# way the pytorch/examples mnist_hogwild program trains, on a small synthetic problem). The
# processes interleave differently on every run, so only what holds under any interleaving is
# printed: shapes, sharing, that every process finished, that the weights moved and the loss fell.
import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

N_PROCESSES = 2
N_FEATURES, N_CLASSES = 8, 3
EPOCHS = 4


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_FEATURES, 16)
        self.fc2 = nn.Linear(16, N_CLASSES)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def make_data(n, generator):
    teacher = torch.randn(N_FEATURES, N_CLASSES, generator=generator)
    x = torch.randn(n, N_FEATURES, generator=generator)
    return x, (x @ teacher).argmax(dim=1)


def train(rank, model, x, y, results):
    torch.manual_seed(1 + rank)  # each process shuffles its own way
    loader = DataLoader(TensorDataset(x[rank::N_PROCESSES], y[rank::N_PROCESSES]), batch_size=16, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    model.train()
    steps = 0
    for _ in range(EPOCHS):
        for data, target in loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            steps += 1
    # plain numbers: a tensor put on a queue is read from this process's memory, which ends with it
    results.put((rank, steps, loss.item()))


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        output = model(x)
        loss = F.nll_loss(output, y).item()
        accuracy = (output.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy


if __name__ == "__main__":
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x_train, y_train = make_data(256, generator)
    x_test, y_test = make_data(128, generator.manual_seed(1))  # the same teacher, its first draws
    model = Net()
    print("model.share_memory() returns the model:", model.share_memory() is model)
    print("every parameter shared:", all(p.is_shared() for p in model.parameters()))
    before = [p.detach().clone() for p in model.parameters()]
    loss_before, _ = evaluate(model, x_test, y_test)

    results = mp.Queue()
    processes = []
    for rank in range(N_PROCESSES):
        p = mp.Process(target=train, args=(rank, model, x_train, y_train, results))
        p.start()
        processes.append(p)
    reports = sorted((results.get(timeout=300) for _ in processes), key=lambda report: report[0])
    for p in processes:
        p.join()
    print("exit codes:", [p.exitcode for p in processes])
    for rank, steps, last_loss in reports:
        print(f"rank {rank}: {steps} steps, last loss finite:", last_loss == last_loss and abs(last_loss) < float("inf"))

    changed = [not torch.equal(old, new) for old, new in zip(before, model.parameters())]
    print("parameters changed in the parent:", changed)
    print("shapes:", [tuple(p.shape) for p in model.parameters()])
    loss_after, accuracy = evaluate(model, x_test, y_test)
    print("test loss fell:", loss_after < loss_before)
    print("test loss below 0.6:", loss_after < 0.6)
    print("test accuracy above 75%:", accuracy > 0.75)
