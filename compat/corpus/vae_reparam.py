# A small variational autoencoder: encoder to mu/logvar, the reparameterisation trick with
# torch.randn_like replaced by a fixed noise tensor, sigmoid decoder, BCE + KL loss with Adam.
import torch
import torch.nn.functional as F
from torch import nn, optim

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 8)
        self.fc21 = nn.Linear(8, 2)
        self.fc22 = nn.Linear(8, 2)
        self.fc3 = nn.Linear(2, 8)
        self.fc4 = nn.Linear(8, 16)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar, eps):
        std = torch.exp(0.5 * logvar)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x, eps):
        mu, logvar = self.encode(x.view(-1, 16))
        z = self.reparameterize(mu, logvar, eps)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


model = VAE()
init_fixed(model, scale=0.3, freq=0.83)
optimizer = optim.Adam(model.parameters(), lr=1e-2)
data = (wave(12, 4, 4, freq=0.3) + 1) / 2
eps_noise = wave(12, 2, freq=1.0, phase=1.5, scale=0.5)
print(data.min() >= 0, data.max() <= 1, data.shape)
for epoch in range(1, 6):
    model.train()
    train_loss = 0
    for batch_idx in range(3):
        batch = data[batch_idx * 4:(batch_idx + 1) * 4]
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(batch, eps_noise[batch_idx * 4:(batch_idx + 1) * 4])
        loss = loss_function(recon_batch, batch, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print("====> Epoch: {} Average loss: {:.6f}".format(epoch, train_loss / len(data)))

model.eval()
with torch.no_grad():
    sample = model.decode(torch.tensor([[0.0, 0.0], [1.0, -1.0]]))
    print(sample.view(2, 1, 4, 4)[0, 0])
    recon, mu, logvar = model(data[:2], torch.zeros(2, 2))
    print(mu, logvar.exp())
    comparison = torch.cat([data[:2].view(2, 16), recon.view(2, 16)])
    print(comparison.shape)
