# A tiny denoising diffusion model (DDPM) on 2-D points, in the manner of the minimal diffusion
# tutorials: a linear beta schedule with its cumulative products, q_sample that picks each
# sample's schedule entry by timestep with gather, a sinusoidal timestep embedding, an MLP that
# predicts the noise, an MSE training loop, and the reverse sampling loop under no_grad.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)
sqrt_recip_alphas = torch.sqrt(1.0 / alphas)
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)
print("schedule:", alphas_cumprod.shape, round(alphas_cumprod[-1].item(), 6),
      round(posterior_variance[1].item(), 8), alphas_cumprod_prev[:2].tolist())


def extract(a, t, x_shape):
    batch_size = t.shape[0]
    out = a.gather(-1, t)
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1)))


def q_sample(x_start, t, noise=None):
    if noise is None:
        noise = torch.randn_like(x_start)
    return extract(sqrt_alphas_cumprod, t, x_start.shape) * x_start + \
        extract(sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise


class SinusoidalPositionEmbeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, time):
        half_dim = self.dim // 2
        embeddings = math.log(10000) / (half_dim - 1)
        embeddings = torch.exp(torch.arange(half_dim) * -embeddings)
        embeddings = time[:, None] * embeddings[None, :]
        return torch.cat((embeddings.sin(), embeddings.cos()), dim=-1)


class NoisePredictor(nn.Module):
    def __init__(self, dim=2, time_dim=16, hidden=64):
        super().__init__()
        self.time_mlp = nn.Sequential(SinusoidalPositionEmbeddings(time_dim),
                                      nn.Linear(time_dim, hidden), nn.GELU())
        self.inp = nn.Linear(dim, hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.net(self.inp(x) + self.time_mlp(t.to(x.dtype)))


emb = SinusoidalPositionEmbeddings(8)(torch.tensor([0, 1, 10]))
print("embedding:", emb.shape, [round(v, 6) for v in emb[2].tolist()])

# data: two interleaved rings of points
n = 256
angle = torch.rand(n) * 2 * math.pi
radius = torch.where(torch.arange(n) % 2 == 0, torch.tensor(1.0), torch.tensor(0.5))
data = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)], dim=1)
data = data + 0.02 * torch.randn_like(data)
print("data:", data.shape, round(data.norm(dim=1).mean().item(), 6))

model = NoisePredictor()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
batch_size = 64
for step in range(150):
    idx = torch.randint(0, n, (batch_size,))
    x_start = data[idx]
    t = torch.randint(0, T, (batch_size,), dtype=torch.long)
    noise = torch.randn_like(x_start)
    x_noisy = q_sample(x_start, t, noise=noise)
    predicted_noise = model(x_noisy, t)
    loss = F.mse_loss(noise, predicted_noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 30 == 0 or step == 149:
        print(f"step {step:3d} loss {loss.item():.6f}")


@torch.no_grad()
def p_sample(model, x, t, t_index):
    betas_t = extract(betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip_alphas_t = extract(sqrt_recip_alphas, t, x.shape)
    model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t)
    if t_index == 0:
        return model_mean
    posterior_variance_t = extract(posterior_variance, t, x.shape)
    noise = torch.randn_like(x)
    return model_mean + torch.sqrt(posterior_variance_t) * noise


@torch.no_grad()
def p_sample_loop(model, shape):
    b = shape[0]
    img = torch.randn(shape)
    imgs = []
    for i in reversed(range(0, T)):
        img = p_sample(model, img, torch.full((b,), i, dtype=torch.long), i)
        imgs.append(img)
    return imgs


model.eval()
samples = p_sample_loop(model, shape=(128, 2))
final = samples[-1]
print("samples:", len(samples), final.shape, final.requires_grad, torch.isfinite(final).all().item())
print("sample radius mean/std:", round(final.norm(dim=1).mean().item(), 5),
      round(final.norm(dim=1).std().item(), 5))
print("first samples:", [[round(v, 5) for v in row] for row in final[:3].tolist()])
