# Neural style transfer in the manner of the tutorial: a frozen convolutional feature extractor,
# content and style losses as transparent modules holding detached targets (gram matrices via
# view/mm/div), a normalisation module, the network rebuilt layer by layer with the losses
# inserted and trimmed after the last one, and the input image itself optimised by L-BFGS with a
# closure that clamps it to [0, 1].
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.set_default_dtype(torch.float64)
size = 12
rng = np.random.default_rng(7)

# two "images" from numpy: smooth stripes for the style, a soft blob for the content
yy, xx = np.meshgrid(np.linspace(0, 1, size), np.linspace(0, 1, size), indexing="ij")
style_np = np.stack([0.5 + 0.4 * np.sin(9 * xx + 3 * c) * np.cos(4 * yy) for c in range(3)])
content_np = np.stack([np.exp(-((xx - 0.5) ** 2 + (yy - 0.4 + 0.1 * c) ** 2) * 6) for c in range(3)])
style_img = torch.from_numpy(style_np).unsqueeze(0)
content_img = torch.tensor(content_np).unsqueeze(0).to(torch.float64)
assert style_img.size() == content_img.size(), "style and content images must be the same size"
print(style_img.shape, content_img.dtype, f"{style_img.mean().item():.8f} {content_img.max().item():.8f}")

# a tiny stand-in for vgg19.features: conv/relu/pool blocks with fixed weights
cnn = nn.Sequential(
    nn.Conv2d(3, 6, kernel_size=3, padding=1),
    nn.ReLU(inplace=True),
    nn.Conv2d(6, 6, kernel_size=3, padding=1),
    nn.ReLU(inplace=True),
    nn.MaxPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 8, kernel_size=3, padding=1),
    nn.ReLU(inplace=True),
    nn.Conv2d(8, 8, kernel_size=3, padding=1),
    nn.ReLU(inplace=True),
    nn.MaxPool2d(kernel_size=2, stride=2),
    nn.Conv2d(8, 8, kernel_size=3, padding=1),
)
with torch.no_grad():
    for layer in cnn:
        if isinstance(layer, nn.Conv2d):
            fan_in = layer.in_channels * 9
            layer.weight.copy_(torch.from_numpy(rng.normal(0, (2 / fan_in) ** 0.5, layer.weight.shape)))
            layer.bias.copy_(torch.from_numpy(rng.uniform(-0.05, 0.05, layer.bias.shape)))
cnn = cnn.eval()
cnn.requires_grad_(False)
print(sum(p.numel() for p in cnn.parameters()), any(p.requires_grad for p in cnn.parameters()))

cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])


class ContentLoss(nn.Module):
    def __init__(self, target):
        super(ContentLoss, self).__init__()
        # detached: the target is a fixed value, not part of the graph
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


content_layers_default = ["conv_3"]
style_layers_default = ["conv_1", "conv_2", "conv_3", "conv_4"]


def get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img,
                               content_layers=content_layers_default, style_layers=style_layers_default):
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)

    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = "conv_{}".format(i)
        elif isinstance(layer, nn.ReLU):
            name = "relu_{}".format(i)
            # the in-place version does not play well with the losses inserted after it
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = "pool_{}".format(i)
        else:
            raise RuntimeError("Unrecognized layer: {}".format(layer.__class__.__name__))
        model.add_module(name, layer)

        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)

        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)

    # trim the layers after the last content and style losses
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break
    model = model[:(i + 1)]
    return model, style_losses, content_losses


# the frozen network's own in-place ReLUs are harmless on their own ...
probe_img = content_img.clone().requires_grad_(True)
features = cnn[:4](probe_img)
print(type(features.grad_fn).__name__, features.requires_grad, f"{features.sum().item():.8f}")
features.sum().backward()
print(f"{probe_img.grad.abs().sum().item():.8f}")
# ... but not after a transparent loss module, whose backward reads the tensor they overwrite
conv_target = cnn[0](content_img).detach()
probe = nn.Sequential(cnn[0], ContentLoss(conv_target * 0.5), cnn[1])
probe(probe_img)
try:
    probe[1].loss.backward()
except RuntimeError as err:
    print("RuntimeError:", err)

model, style_losses, content_losses = get_style_model_and_losses(
    cnn, cnn_normalization_mean, cnn_normalization_std, style_img, content_img)
print(model)
print([name for name, _ in model.named_children()][-3:], len(style_losses), len(content_losses))
print([tuple(sl.target.shape) for sl in style_losses], f"{style_losses[0].target.trace().item():.8f}")


def get_input_optimizer(input_img):
    optimizer = optim.LBFGS([input_img])
    return optimizer


def run_style_transfer(cnn, normalization_mean, normalization_std, content_img, style_img, input_img,
                       num_steps=4, style_weight=1000, content_weight=1):
    print("Building the style transfer model..")
    model, style_losses, content_losses = get_style_model_and_losses(
        cnn, normalization_mean, normalization_std, style_img, content_img)
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = get_input_optimizer(input_img)

    print("Optimizing..")
    run = [0]
    while run[0] <= num_steps:

        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            if run[0] % 5 == 0:
                print("run {}:".format(run))
                print("Style Loss : {:6e} Content Loss: {:6e}".format(style_score.item(), content_score.item()))
            return style_score + content_score

        loss = optimizer.step(closure)
        print("step", run[0], f"{loss.item():.6e}", f"{input_img.grad.norm().item():.6e}")

    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img


input_img = content_img.clone()
output = run_style_transfer(cnn, cnn_normalization_mean, cnn_normalization_std, content_img, style_img,
                            input_img, num_steps=20)
print(output.requires_grad, output.is_leaf, output.shape)
print(f"{output.min().item():.6f} {output.max().item():.6f} {output.mean().item():.6f}")
print(f"{(output - content_img).abs().max().item():.6f}")

# the same again with the .data idiom of older versions and a fixed step budget
input_img = content_img.clone().requires_grad_(True)
model.requires_grad_(False)
optimizer = optim.LBFGS([input_img], max_iter=5)
for step in range(3):

    def closure():
        input_img.data.clamp_(0, 1)
        optimizer.zero_grad()
        model(input_img)
        style_score = sum(sl.loss for sl in style_losses) * 1000
        content_score = sum(cl.loss for cl in content_losses)
        loss = style_score + content_score
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    input_img.data.clamp_(0, 1)
    st = optimizer.state[input_img]
    print(step, f"{loss.item():.6e}", st["func_evals"], st["n_iter"], len(st["old_dirs"]),
          f"{input_img.detach().sum().item():.6f}")
