# Adam written out by hand, as optimizer tutorials do (exp_avg.mul_().add_(), exp_avg_sq.mul_().addcmul_(),
# p.addcdiv_()), on a logistic regression whose loss is the stable logaddexp form; an exponential moving
# average of the weights with lerp_; a box constraint with tensor bounds (clamp); nan_to_num, isfinite,
# comparisons and logical ops for the report.
import math

import torch

from _fixed import wave

torch.set_default_dtype(torch.float64)

features = torch.stack([wave(24, freq=0.31), wave(24, freq=0.57, phase=1.0), torch.ones(24)], dim=1)
labels = (wave(24, freq=0.31) + 0.5 * wave(24, freq=0.57, phase=1.0) > 0.1).to(torch.float64)
print("positives:", int(labels.sum().item()), "of", labels.numel())


def logistic_loss(w):
    """mean of log(1 + exp(-y z)) with y in {-1, 1}: logaddexp(0, -y z) never overflows."""
    z = features @ w
    signs = 2 * labels - 1
    return torch.logaddexp(torch.zeros_like(z), -signs * z).mean()


w = torch.tensor([0.1, -0.2, 0.05], requires_grad=True)
low = torch.tensor([-2.0, -2.0, -0.5])
high = torch.tensor([2.0, 2.0, 0.5])
exp_avg = torch.zeros_like(w)
exp_avg_sq = torch.zeros_like(w)
ema = w.detach().clone()
beta1, beta2, lr, eps = 0.9, 0.999, 0.1, 1e-8

for step in range(1, 61):
    loss = logistic_loss(w)
    w.grad = None
    loss.backward()
    with torch.no_grad():
        grad = w.grad
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias1 = 1 - beta1**step
        bias2 = 1 - beta2**step
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias2)).add_(eps)
        w.addcdiv_(exp_avg, denom, value=-lr / bias1)
        w.copy_(torch.clamp(w, low, high))  # project back into the box
        ema.lerp_(w, 0.2)
    if step % 15 == 0:
        print(f"step {step:3d}  loss {loss.item():.6f}  w {w.detach().tolist()}")

print("final weights:", w)
print("ema weights:  ", ema)
print("at the box edge:", torch.logical_or(torch.eq(w, low), torch.eq(w, high)))

with torch.no_grad():
    probs = torch.sigmoid(features @ ema)
    predicted = torch.gt(probs, 0.5)
    correct = torch.logical_not(torch.logical_xor(predicted, labels.bool()))
    print("accuracy:", correct.sum().item() / labels.numel())
    # log-probabilities of hard 0/1 targets: -inf where a probability is exactly 0
    hard = torch.tensor([0.0, 0.25, 1.0])
    logs = torch.log(hard)
    print("log:", logs, "finite:", torch.isfinite(logs), "inf:", torch.isinf(logs))
    print("nan_to_num:", torch.nan_to_num(logs, neginf=-100.0))
    print("clamp_min:", torch.clamp_min(logs, -100.0), "reciprocal:", torch.reciprocal(hard[1:]))
    print("prod of margins:", torch.prod(torch.square(probs[:4] - 0.5) + 1))
    print("amax/amin:", torch.amax(probs), torch.amin(probs))
