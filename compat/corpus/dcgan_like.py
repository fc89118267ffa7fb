# A tiny GAN in the DCGAN manner: ConvTranspose2d generator with BatchNorm2d, a convolutional
# discriminator with LeakyReLU, BCELoss against label tensors from torch.full, fake.detach() for the
# discriminator step, two Adam optimisers with betas, and weights_init applied by class name.
import torch
import torch.nn as nn
import torch.optim as optim

from _fixed import wave

torch.set_default_dtype(torch.float64)
nz, ngf, ndf = 4, 4, 4


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        with torch.no_grad():
            m.weight.copy_(wave(*m.weight.shape, freq=0.37, scale=0.2))
    elif classname.find("BatchNorm") != -1:
        nn.init.constant_(m.weight, 1.0)
        nn.init.constant_(m.bias, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, 1, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG = Generator()
netG.apply(weights_init)
netD = Discriminator()
netD.apply(weights_init)
print(netG)
print(netD)
criterion = nn.BCELoss()
fixed_noise = wave(2, nz, 1, 1, freq=1.0, phase=1.5)
real_label, fake_label = 1.0, 0.0
optimizerD = optim.Adam(netD.parameters(), lr=0.01, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.01, betas=(0.5, 0.999))
real = wave(4, 1, 8, 8, freq=0.2)

for i in range(6):
    netD.zero_grad()
    b_size = real.size(0)
    label = torch.full((b_size,), real_label, dtype=torch.float64)
    output = netD(real).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = wave(b_size, nz, 1, 1, freq=i + 1.0)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    print("[%d/%d]\tLoss_D: %.6f\tLoss_G: %.6f\tD(x): %.6f\tD(G(z)): %.6f / %.6f"
          % (i, 6, errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

with torch.no_grad():
    fake = netG(fixed_noise).detach().cpu()
print(fake.shape, fake[0, 0, :2])
print(netG.main[1].running_mean)
