# A convolution and a batch norm fused into one custom autograd Function, in the manner of the
# "fusing convolution and batch norm using custom Function" tutorial: the backward of each piece
# written by hand (the convolution's by a convolution and a transposed convolution, the batch
# norm's from the normalized values), each piece checked with gradcheck, then one Function that
# keeps only the convolution's input and recomputes the rest in backward, checked with gradcheck
# at a stride and a padding (torch.nn.grad's helpers), and a tiny classifier trained with it next
# to the same classifier built from nn.Conv2d and nn.BatchNorm2d.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function, gradcheck

from _fixed import wave

torch.set_default_dtype(torch.float64)


def close(a, b, tol=1e-10):
    return (a - b).abs().max().item() < tol


def per_channel(values):
    """(C,) seen as (1, C, 1, 1), to broadcast over a batch of feature maps."""
    return values[None, :, None, None]


# ---- the convolution alone: stride 1, no padding, no bias ----
def conv_grads(grad_out, x, weight):
    # dL/dW: correlate the input with the output gradient, batch and channels swapped
    grad_weight = F.conv2d(x.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
    # dL/dX: the transposed convolution spreads each output gradient back over its window
    grad_x = F.conv_transpose2d(grad_out, weight)
    return grad_x, grad_weight


class Conv2D(Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return F.conv2d(x, weight)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        return conv_grads(grad_out, x, weight)


# ---- the batch norm alone: batch statistics, no affine part ----
def batch_stats(x, eps):
    mean = x.mean(dim=(0, 2, 3))
    var = x.var(dim=(0, 2, 3), unbiased=False)
    return mean, var, torch.rsqrt(var + eps)


def batch_norm_grad(grad_out, x_hat, inv_std):
    # y = (x - mean) * inv_std over the N*H*W values of each channel:
    # dL/dx = inv_std * (g - mean(g) - x_hat * mean(g * x_hat))
    mean_g = grad_out.mean(dim=(0, 2, 3))
    mean_gx = (grad_out * x_hat).mean(dim=(0, 2, 3))
    return per_channel(inv_std) * (grad_out - per_channel(mean_g) - x_hat * per_channel(mean_gx))


class BatchNorm(Function):
    @staticmethod
    def forward(ctx, x, eps=1e-3):
        mean, _, inv_std = batch_stats(x, eps)
        x_hat = (x - per_channel(mean)) * per_channel(inv_std)
        ctx.save_for_backward(x_hat, inv_std)
        return x_hat

    @staticmethod
    def backward(ctx, grad_out):
        x_hat, inv_std = ctx.saved_tensors
        return batch_norm_grad(grad_out, x_hat, inv_std), None


x = wave(2, 3, 6, 6, freq=0.37, scale=1.5).requires_grad_()
w = wave(4, 3, 3, 3, freq=0.81, phase=0.3, scale=0.4).requires_grad_()
print("Conv2D output", tuple(Conv2D.apply(x, w).shape), close(Conv2D.apply(x, w), F.conv2d(x, w)))
print("gradcheck Conv2D:", gradcheck(Conv2D.apply, (x, w)))
h = wave(3, 2, 4, 5, freq=1.13, phase=0.5).requires_grad_()
print("gradcheck BatchNorm:", gradcheck(BatchNorm.apply, (h,)))
reference = F.batch_norm(h, None, None, training=True, eps=1e-3)
print("BatchNorm agrees with F.batch_norm:", close(BatchNorm.apply(h), reference))
print("same input gradient:", close(torch.autograd.grad((BatchNorm.apply(h) * h.cos()).sum(), h)[0],
                                    torch.autograd.grad((reference * h.cos()).sum(), h)[0]))


# ---- both in one Function; the convolution's output is recomputed in backward ----
class ConvBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, x, conv_weight, bn_weight, bn_bias, stride=1, padding=0, eps=1e-3):
        conv_out = F.conv2d(x, conv_weight, stride=stride, padding=padding)
        mean, var, inv_std = batch_stats(conv_out, eps)
        # only x, the weights and two per-channel vectors are kept: no feature-map-sized activation
        ctx.save_for_backward(x, conv_weight, bn_weight, mean, inv_std)
        ctx.stride, ctx.padding = stride, padding
        out = (conv_out - per_channel(mean)) * per_channel(inv_std * bn_weight) + per_channel(bn_bias)
        ctx.mark_non_differentiable(mean, var)
        return out, mean, var

    @staticmethod
    def backward(ctx, grad_out, _grad_mean, _grad_var):
        x, conv_weight, bn_weight, mean, inv_std = ctx.saved_tensors
        conv_out = F.conv2d(x, conv_weight, stride=ctx.stride, padding=ctx.padding)
        x_hat = (conv_out - per_channel(mean)) * per_channel(inv_std)
        grad_bn_weight = (grad_out * x_hat).sum(dim=(0, 2, 3))
        grad_bn_bias = grad_out.sum(dim=(0, 2, 3))
        grad_conv = batch_norm_grad(grad_out * per_channel(bn_weight), x_hat, inv_std)
        grad_x = grad_conv_weight = None
        if ctx.needs_input_grad[0]:
            grad_x = torch.nn.grad.conv2d_input(x.shape, conv_weight, grad_conv, stride=ctx.stride, padding=ctx.padding)
        if ctx.needs_input_grad[1]:
            grad_conv_weight = torch.nn.grad.conv2d_weight(x, conv_weight.shape, grad_conv,
                                                           stride=ctx.stride, padding=ctx.padding)
        return grad_x, grad_conv_weight, grad_bn_weight, grad_bn_bias, None, None, None


gamma = wave(4, freq=0.9, phase=1.0, scale=0.5).add(1.0).requires_grad_()
beta = wave(4, freq=1.7, phase=0.2, scale=0.3).requires_grad_()
x_odd = wave(2, 3, 7, 6, freq=0.53, phase=0.1).requires_grad_()
for stride, padding in [(1, 0), (2, 1), ((1, 2), (2, 0))]:
    fused = lambda *t, s=stride, p=padding: ConvBatchNormFunction.apply(*t, s, p)[0]
    out, mean, var = ConvBatchNormFunction.apply(x_odd, w, gamma, beta, stride, padding)
    print(f"stride {stride} padding {padding}: output {tuple(out.shape)}, statistics need grad "
          f"{mean.requires_grad} {var.requires_grad}, gradcheck {gradcheck(fused, (x_odd, w, gamma, beta))}")

# the input gradient alone, as the helpers give it, against autograd through F.conv2d
grad_y = wave(2, 4, 4, 3, freq=0.29, phase=0.7)
conv_out = F.conv2d(x_odd, w, stride=2, padding=1)
auto_x, auto_w = torch.autograd.grad(conv_out, (x_odd, w), grad_y)
print("conv2d_input agrees:", close(torch.nn.grad.conv2d_input(x_odd.shape, w, grad_y, stride=2, padding=1), auto_x))
print("conv2d_weight agrees:", close(torch.nn.grad.conv2d_weight(x_odd, w.shape, grad_y, stride=2, padding=1), auto_w))
print("F.grad is torch.nn.grad:", F.grad is torch.nn.grad)


# ---- as modules: the fused block and the usual pair ----
class FusedConvBatchNorm2d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, eps=1e-3, momentum=0.1):
        super().__init__()
        self.stride, self.padding, self.eps, self.momentum = stride, padding, eps, momentum
        self.conv_weight = nn.Parameter(torch.empty(out_channels, in_channels, kernel_size, kernel_size))
        self.bn_weight = nn.Parameter(torch.ones(out_channels))
        self.bn_bias = nn.Parameter(torch.zeros(out_channels))
        self.register_buffer("running_mean", torch.zeros(out_channels))
        self.register_buffer("running_var", torch.ones(out_channels))

    def forward(self, x):
        if not self.training:
            conv_out = F.conv2d(x, self.conv_weight, stride=self.stride, padding=self.padding)
            return F.batch_norm(conv_out, self.running_mean, self.running_var, self.bn_weight, self.bn_bias,
                                training=False, eps=self.eps)
        out, mean, var = ConvBatchNormFunction.apply(x, self.conv_weight, self.bn_weight, self.bn_bias,
                                                     self.stride, self.padding, self.eps)
        count = out.numel() / out.shape[1]
        with torch.no_grad():  # running variance is unbiased, as nn.BatchNorm2d keeps it
            self.running_mean.lerp_(mean, self.momentum)
            self.running_var.lerp_(var * count / (count - 1), self.momentum)
        return out


def make_net(fused):
    block = FusedConvBatchNorm2d(2, 4, 3, stride=2, padding=1) if fused else nn.Sequential(
        nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(4, eps=1e-3))
    net = nn.Sequential(block, nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 3))
    # the same starting weights in both: the conv kernel, gamma, beta, then the linear layer
    with torch.no_grad():
        params = list(net.parameters())
        for k, p in enumerate(params):
            p.copy_(wave(*p.shape, freq=0.63, phase=float(k), scale=0.4))
        params[1].add_(1.0)
    return net


# what each block keeps for backward, counted as it is saved (the tutorial measures the memory)
def saved_elements(block, x):
    count = [0]

    def pack(tensor):
        count[0] += tensor.numel()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        block(x)
    return count[0]


probe = wave(8, 2, 16, 16, freq=0.17).requires_grad_()
fused_kept = saved_elements(make_net(True)[0], probe)
pair_kept = saved_elements(make_net(False)[0], probe)
print("fused block keeps", fused_kept, "elements; the pair keeps more:", pair_kept > fused_kept,
      "at least its convolution's output too:", pair_kept >= fused_kept + 8 * 4 * 8 * 8)

images = wave(6, 2, 8, 8, freq=0.41) + 0.5 * wave(6, 2, 8, 8, freq=2.3, phase=0.6)
labels = torch.tensor([0, 1, 2, 1, 0, 2])
fused_net, plain_net = make_net(True), make_net(False)
print(fused_net)
print("parameters:", [tuple(p.shape) for p in fused_net.parameters()] == [tuple(p.shape) for p in plain_net.parameters()])
optimizers = [torch.optim.SGD(n.parameters(), lr=0.2, momentum=0.9) for n in (fused_net, plain_net)]
for step in range(5):
    losses = []
    for net, optimizer in zip((fused_net, plain_net), optimizers):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    print(f"step {step}: fused {losses[0].item():.8f} plain {losses[1].item():.8f} "
          f"same {abs(losses[0].item() - losses[1].item()) < 1e-10}")

print("same weights:", all(close(a, b) for a, b in zip(fused_net.parameters(), plain_net.parameters())))
print("same running stats:", close(fused_net[0].running_mean, plain_net[0][1].running_mean),
      close(fused_net[0].running_var, plain_net[0][1].running_var))
print("conv kernel grad norm", round(fused_net[0].conv_weight.grad.norm().item(), 8))
print("running mean", [round(v, 8) for v in fused_net[0].running_mean.tolist()])

fused_net.eval()
plain_net.eval()
print("eval outputs agree:", close(fused_net(images), plain_net(images)))
folded = torch.nn.utils.fusion.fuse_conv_bn_eval(plain_net[0][0], plain_net[0][1])
print("folded conv has a bias:", folded.bias is not None, close(folded(images), plain_net[0](images)))
print(F.softmax(fused_net(images[:2]), dim=1))
