# An adversarial-example attack in the FGSM manner: gradients with respect to the input
# (data.requires_grad = True), data.grad.data, sign(), clamp to the valid range, and accuracy under
# growing epsilon.
import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 12)
        self.fc2 = nn.Linear(12, 3)

    def forward(self, x):
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


model = Net()
init_fixed(model, scale=0.5, freq=0.91)
model.eval()


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


images = (torch.stack([wave(1, 4, 4, freq=0.2 + 0.2 * i) for i in range(9)]) + 1) / 2
with torch.no_grad():
    targets = model(images).argmax(dim=1)
print(targets)

for epsilon in [0, 0.05, 0.1, 0.3]:
    correct = 0
    examples = []
    for data, target in zip(images, targets):
        data = data.unsqueeze(0)
        target = target.unsqueeze(0)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        perturbed_data = fgsm_attack(data, epsilon, data_grad)
        output = model(perturbed_data)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
        elif len(examples) < 2:
            adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
            examples.append((init_pred.item(), final_pred.item(), adv_ex.shape))
    final_acc = correct / float(len(images))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(images)} = {final_acc}", examples)
