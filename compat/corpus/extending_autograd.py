# Custom autograd Functions as the "Extending torch.autograd" note and the forward-mode AD
# tutorial write them: both ways of setting up ctx, a non-tensor argument, a non-differentiable
# output, an in-place Function, once_differentiable, gradcheck, a custom jvp, and a module
# wrapping a Function trained for a few steps.
import torch
import torch.autograd.forward_ad as fwAD
from torch import nn
from torch.autograd import Function
from torch.autograd.function import FunctionCtx, once_differentiable

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
seen = {}  # what the Functions below were given (gradcheck calls them many times: print once)


# --- a linear map, ctx set up inside forward ---------------------------------------------------
class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        seen["ctx is a FunctionCtx"] = isinstance(ctx, FunctionCtx)
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


# --- the same map with a separate setup_context --------------------------------------------------
class LinearFunctionSplit(Function):
    @staticmethod
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        seen["inputs given to setup_context"] = len(inputs)
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_bias = grad_output.sum(0) if bias is not None and ctx.needs_input_grad[2] else None
        return grad_output.mm(weight), grad_output.t().mm(input), grad_bias


x = wave(4, 3, freq=0.9).requires_grad_()
w = wave(2, 3, freq=0.4, phase=1.0).requires_grad_()
b = wave(2, freq=1.3, phase=0.5).requires_grad_()

print("combined style")
y = LinearFunction.apply(x, w, b)
print(y)
print(type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
y.pow(2).sum().backward()
grads_combined = [t.grad.clone() for t in (x, w, b)]
for t in (x, w, b):
    t.grad = None

print("separate style")
y2 = LinearFunctionSplit.apply(x, w, b)
print(type(y2.grad_fn).__name__, torch.allclose(y, y2))
y2.pow(2).sum().backward()
print([torch.allclose(g, t.grad) for g, t in zip(grads_combined, (x, w, b))])
print(w.grad)
print(seen)
print("no bias:", LinearFunctionSplit.apply(x, w).shape)
print("bias as keyword:", LinearFunctionSplit.apply(x, w, bias=b).shape)
with torch.no_grad():
    print("under no_grad:", LinearFunctionSplit.apply(x, w, b).requires_grad)


# --- a non-tensor argument ------------------------------------------------------------------------
class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # one gradient per forward input: None for the constant
        return grad_output * ctx.constant, None


v = wave(5, freq=0.3).requires_grad_()
out = MulConstant.apply(v, 2.5)
out.sum().backward()
print("MulConstant", out, v.grad)


# --- a non-differentiable output ---------------------------------------------------------------
class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_values, grad_indices):
        # the indices' gradient still arrives: zeros of their shape and dtype
        seen["grad for the indices"] = grad_indices
        (indices,) = ctx.saved_tensors
        grad_input = torch.zeros_like(grad_values)
        grad_input.index_add_(0, indices, grad_values)
        return grad_input


u = wave(6, freq=2.1).requires_grad_()
values, indices = SortWithIndices.apply(u)
print(values, indices)
print("requires_grad:", values.requires_grad, indices.requires_grad, indices.grad_fn)
(values * torch.arange(6.0)).sum().backward()
print("sort gradient", u.grad)
print("indices' gradient:", seen["grad for the indices"], seen["grad for the indices"].dtype)


# --- a Function that works in place -----------------------------------------------------------------
class ScaleInplace(Function):
    @staticmethod
    def forward(ctx, x, factor):
        x.mul_(factor)
        ctx.mark_dirty(x)
        ctx.factor = factor
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor, None


leaf = wave(3, freq=0.8).requires_grad_()
h = leaf.clone()
print("version before", h._version)
returned = ScaleInplace.apply(h, 3.0)
print("same tensor:", returned is h, "version after", h._version, type(h.grad_fn).__name__)
(h * h).sum().backward()
print("in-place gradient", leaf.grad)

try:
    ScaleInplace.apply(wave(3).requires_grad_(), 2.0)
except RuntimeError as error:
    print("leaf:", error)

a = wave(3, freq=1.1).requires_grad_().clone()
squared = a * a
ScaleInplace.apply(a, 2.0)
try:
    squared.sum().backward()
except RuntimeError as error:
    print("saved then modified:", str(error).split(". Hint")[0])


class ForgetsToReturn(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


try:
    ForgetsToReturn.apply(wave(2).requires_grad_().clone())
except RuntimeError as error:
    print("not returned:", error)


# --- once_differentiable ---------------------------------------------------------------------------
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2


c = wave(3, freq=0.6, phase=0.2).requires_grad_()
(first,) = torch.autograd.grad(Cube.apply(c).pow(2).sum(), c, create_graph=True)
print("first derivative", first, type(first.grad_fn).__name__)
try:
    first.sum().backward()
except RuntimeError as error:
    print("second:", error)


# --- gradcheck on all of them ---------------------------------------------------------------------
print("gradcheck Linear", torch.autograd.gradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4))
print("gradcheck LinearSplit", torch.autograd.gradcheck(LinearFunctionSplit.apply, (x, w, b)))
print("gradcheck MulConstant", torch.autograd.gradcheck(lambda t: MulConstant.apply(t, -1.5), (v,)))
print("gradcheck Sort", torch.autograd.gradcheck(lambda t: SortWithIndices.apply(t)[0], (u,)))
print("gradcheck Cube", torch.autograd.gradcheck(Cube.apply, (c,)))


# --- a custom jvp, used through forward-mode AD ---------------------------------------------------
class Exp(Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.save_for_backward(result)
        ctx.result = result
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result

    @staticmethod
    def jvp(ctx, grad_input):
        grad_output = grad_input * ctx.result
        del ctx.result
        return grad_output


primal = wave(3, 3, freq=0.5)
tangent = wave(3, 3, freq=0.2, phase=1.0)
with fwAD.dual_level():
    dual_output = Exp.apply(fwAD.make_dual(primal, tangent))
    jvp = fwAD.unpack_dual(dual_output).tangent
print("jvp", jvp)
print("jvp agrees:", torch.allclose(jvp, tangent * primal.exp()))
print("gradcheck forward AD", torch.autograd.gradcheck(Exp.apply, (primal.clone().requires_grad_(),),
                                                       check_forward_ad=True, check_backward_ad=False,
                                                       check_undefined_grad=False, check_batched_grad=False))


class ExpSplit(Function):
    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result

    @staticmethod
    def jvp(ctx, grad_input):
        (result,) = ctx.saved_tensors
        return grad_input * result


with fwAD.dual_level():
    dual_output = ExpSplit.apply(fwAD.make_dual(primal, tangent))
    print("save_for_forward jvp agrees:", torch.allclose(fwAD.unpack_dual(dual_output).tangent, jvp))


# --- a module around a Function, trained a few steps ---------------------------------------------
class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunctionSplit.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"input_features={self.input_features}, output_features={self.output_features}, "
                f"bias={self.bias is not None}")


model = nn.Sequential(Linear(3, 4), nn.Tanh(), Linear(4, 1))
init_fixed(model)
print(model)
inputs = wave(8, 3, freq=0.35)
targets = wave(8, 1, freq=0.9, phase=0.3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    optimizer.zero_grad()
    loss = ((model(inputs) - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(step, f"{loss.item():.8f}")
print(model[0].weight)
