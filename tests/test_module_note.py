"""Every example of PyTorch's "Modules" note, written as it appears there with ``import minitorch as torch``.

Only what needs a GPU is left out (the note's ``device='cuda'`` lines); random values differ
from the note's, so the checks are on names, shapes, structure and relations between values.
The long SGD loop of the note is shortened (fewer steps, a larger learning rate).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import nn


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = F.relu(x)
        x = self.l1(x)
        return x


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList(
            [MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({
            'relu': nn.ReLU(),
            'lrelu': nn.LeakyReLU()
        })
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
        x = self.activations[act](x)
        x = self.final(x)
        return x


class ModalModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if self.training:
            # Add a constant only in training mode.
            return x + 1.
        else:
            return x


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer('mean', torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


class StatefulModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.param1 = nn.Parameter(torch.randn(2))
        self.register_parameter('param2', nn.Parameter(torch.randn(3)))
        self.register_parameter('param3', None)
        self.param_list = nn.ParameterList([nn.Parameter(torch.randn(2)) for i in range(3)])
        self.param_dict = nn.ParameterDict({
            'foo': nn.Parameter(torch.randn(3)),
            'bar': nn.Parameter(torch.randn(4))
        })
        self.register_buffer('buffer1', torch.randn(4), persistent=True)
        self.register_buffer('buffer2', torch.randn(5), persistent=False)
        self.register_buffer('buffer3', None)
        self.linear = nn.Linear(2, 3)


@pytest.mark.task("4.1")
def test_a_simple_custom_module() -> None:
    m = MyLinear(4, 3)
    sample_input = torch.randn(4)
    out = m(sample_input)
    assert out.shape == (3,) and out.grad_fn is not None
    expected = sample_input.numpy() @ m.weight.detach().numpy() + m.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    names = [name for name, _ in m.named_parameters()]
    assert names == ["weight", "bias"]
    assert repr(list(m.named_parameters())[1][1]).startswith("Parameter containing:\ntensor([")


@pytest.mark.task("4.5")
def test_modules_as_building_blocks_sequential() -> None:
    net = nn.Sequential(
        MyLinear(4, 3),
        nn.ReLU(),
        MyLinear(3, 1)
    )
    sample_input = torch.randn(4)
    out = net(sample_input)
    hidden = np.maximum(sample_input.numpy() @ net[0].weight.detach().numpy() + net[0].bias.detach().numpy(), 0)
    expected = hidden @ net[2].weight.detach().numpy() + net[2].bias.detach().numpy()
    assert out.shape == (1,)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.task("4.2")
def test_named_children_of_net() -> None:
    net = Net()
    children = [f"{child}" for child in net.named_children()]
    assert children == ["('l0', MyLinear())", "('l1', MyLinear())"]


@pytest.mark.task("4.2")
def test_named_modules_of_big_net_prints_as_in_the_note() -> None:
    big_net = BigNet()
    printed = "\n".join(str(module) for module in big_net.named_modules())
    assert printed == (
        "('', BigNet(\n"
        "  (l1): MyLinear()\n"
        "  (net): Net(\n"
        "    (l0): MyLinear()\n"
        "    (l1): MyLinear()\n"
        "  )\n"
        "))\n"
        "('l1', MyLinear())\n"
        "('net', Net(\n"
        "  (l0): MyLinear()\n"
        "  (l1): MyLinear()\n"
        "))\n"
        "('net.l0', MyLinear())\n"
        "('net.l1', MyLinear())"
    )


@pytest.mark.task("4.2")
def test_dynamic_net_parameters_to_and_apply() -> None:
    dynamic_net = DynamicNet(3)
    sample_input = torch.randn(4)
    output = dynamic_net(sample_input, 'relu')
    assert output.shape == (1,)
    assert [name for name, _ in dynamic_net.named_parameters()] == [
        "linears.0.weight", "linears.0.bias", "linears.1.weight", "linears.1.bias",
        "linears.2.weight", "linears.2.bias", "final.weight", "final.bias",
    ]

    # Change precision of all parameters
    before = list(dynamic_net.parameters())
    dynamic_net.to(dtype=torch.float64)
    out = dynamic_net(torch.randn(4, dtype=torch.float64), 'lrelu')
    assert out.dtype == torch.float64
    assert all(p is q and p.dtype == torch.float64 for p, q in zip(before, dynamic_net.parameters()))

    # Define a function to initialize Linear weights.
    @torch.no_grad()
    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight)
            m.bias.fill_(0.0)

    # Apply the function recursively on the module and its submodules.
    assert dynamic_net.apply(init_weights) is dynamic_net  # no nn.Linear inside: nothing changes
    with_linear = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
    with_linear.apply(init_weights)
    assert float(with_linear[0].bias.abs().sum()) == 0.0 and float(with_linear[2].bias.abs().sum()) == 0.0
    assert not with_linear[0].weight.grad_fn and with_linear[0].weight.requires_grad


@pytest.mark.task("4.3")
def test_training_loop_drives_the_output_to_zero() -> None:
    net = Net()
    steps, lr = 300, 1e-2  # the note: 10000 steps with lr=1e-4
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, weight_decay=1e-2, momentum=0.9)
    probe = torch.randn(64, 4)
    start = float(torch.abs(net(probe)).mean())
    for _ in range(steps):
        input = torch.randn(4)
        output = net(input)
        loss = torch.abs(output)
        net.zero_grad()
        loss.backward()
        optimizer.step()
    net.eval()
    assert not net.training and not net.l1.training
    with torch.no_grad():
        end = float(torch.abs(net(probe)).mean())
    assert end < 0.1 * start  # float32, any CPU: 0.025 * start on the host and a generic x86-64


@pytest.mark.task("4.3")
def test_modal_module() -> None:
    m = ModalModule()
    x = torch.randn(4)
    trained = m(x)
    np.testing.assert_allclose(trained.numpy(), x.numpy() + 1.0, rtol=1e-6)
    m.eval()
    assert m(x) is x


@pytest.mark.task("4.4")
def test_save_and_load_the_state_dict(tmp_path: Path) -> None:
    net = Net()
    torch.save(net.state_dict(), tmp_path / 'net.pt')
    new_net = Net()
    result = new_net.load_state_dict(torch.load(tmp_path / 'net.pt'))
    assert repr(result) == "<All keys matched successfully>"
    for (name, a), (_, b) in zip(net.state_dict().items(), new_net.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


@pytest.mark.task("4.4")
def test_running_mean_buffer_survives_save_and_load(tmp_path: Path) -> None:
    m = RunningMean(4)
    for _ in range(10):
        input = torch.randn(4)
        m(input)
    assert list(m.state_dict()) == ["mean"]
    torch.save(m.state_dict(), tmp_path / 'mean.pt')
    m_loaded = RunningMean(4)
    m_loaded.load_state_dict(torch.load(tmp_path / 'mean.pt'))
    assert (torch.all(m.mean == m_loaded.mean))
    assert [name for name, _ in m.named_buffers()] == ["mean"]


@pytest.mark.task("4.4")
def test_stateful_module_state_dict_keys(tmp_path: Path) -> None:
    m = StatefulModule()
    torch.save(m.state_dict(), tmp_path / 'state.pt')
    m_loaded = StatefulModule()
    m_loaded.load_state_dict(torch.load(tmp_path / 'state.pt'))
    assert list(m_loaded.state_dict()) == [
        "param1", "param2", "buffer1", "param_list.0", "param_list.1", "param_list.2",
        "param_dict.bar", "param_dict.foo", "linear.weight", "linear.bias",
    ]
    np.testing.assert_array_equal(m_loaded.buffer1.numpy(), m.buffer1.numpy())
    np.testing.assert_array_equal(m_loaded.param_dict["foo"].detach().numpy(), m.param_dict["foo"].detach().numpy())


@pytest.mark.task("4.6")
def test_module_initialization_options() -> None:
    # Initialize module with 16-bit floating point parameters.
    m = nn.Linear(5, 3, dtype=torch.half)
    assert m.weight.dtype == torch.float16 and m.bias.dtype == torch.float16
    # Skip default parameter initialization and perform custom (e.g. orthogonal) initialization.
    m = torch.nn.utils.skip_init(nn.Linear, 5, 3)
    nn.init.orthogonal_(m.weight)
    w = m.weight.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-5)
    m = nn.BatchNorm2d(3, dtype=torch.half)
    assert m.running_mean.dtype == torch.float16
    assert m.running_mean.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.task("7.1")
def test_module_hooks_example(torch_ref: Any) -> None:
    """The note's hooks example, line by line, with the same weights in both libraries."""

    def run(lib: Any) -> list[Any]:
        lib.manual_seed(1)

        def forward_pre_hook(m, inputs):
            input = inputs[0]
            return input + 1.

        def forward_hook(m, inputs, output):
            return output + inputs[0]

        def backward_hook(m, grad_inputs, grad_outputs):
            new_grad_inputs = [lib.ones_like(gi) * 42. for gi in grad_inputs]
            return new_grad_inputs

        m = lib.nn.Linear(3, 3)
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[0.3, -0.2, 0.1], [0.5, 0.4, -0.6], [-0.1, 0.2, 0.7]]))
            m.bias.copy_(lib.tensor([0.05, -0.05, 0.0]))
        x = lib.tensor([[0.2, -1.1, 0.4], [1.3, 0.6, -0.7]], requires_grad=True)
        record = [m(x).detach().numpy().copy()]
        forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
        record.append(m(x).detach().numpy().copy())
        forward_hook_handle = m.register_forward_hook(forward_hook)
        record.append(m(x).detach().numpy().copy())
        forward_pre_hook_handle.remove()
        forward_hook_handle.remove()
        record.append(m(x).detach().numpy().copy())
        m(x).sum().backward()
        record.append(x.grad.numpy().copy())
        m.zero_grad()
        x.grad.zero_()
        m.register_full_backward_hook(backward_hook)
        m(x).sum().backward()
        record.append(x.grad.numpy().copy())
        return record

    ours, theirs = run(torch), run(torch_ref)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ours[0], ours[3])  # removing the hooks restores the output
    assert not np.allclose(ours[0], ours[1]) and not np.allclose(ours[1], ours[2])
    np.testing.assert_array_equal(ours[5], np.full((2, 3), 42.0))


@pytest.mark.task("4.3")
def test_freezing_and_per_group_learning_rates() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
    model[0].requires_grad_(False)
    frozen = model[0].weight.detach().numpy().copy()
    optimizer = torch.optim.SGD([
        {"params": model[2].weight, "lr": 0.1},
        {"params": model[2].bias},
    ], lr=0.0)
    bias_before = model[2].bias.detach().numpy().copy()
    weight_before = model[2].weight.detach().numpy().copy()
    model(torch.randn(8, 3)).sum().backward()
    assert model[0].weight.grad is None
    optimizer.step()
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), frozen)
    np.testing.assert_array_equal(model[2].bias.detach().numpy(), bias_before)  # lr 0 for this group
    assert not np.array_equal(model[2].weight.detach().numpy(), weight_before)
