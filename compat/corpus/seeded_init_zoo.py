# Seed once, then build one of each common layer and print its starting weights, as a reader
# does when checking that a model "is the same" across runs; then every nn.init scheme on
# fresh tensors and the *_like / in-place / generator= random functions. Each layer draws from
# the one global stream, so the order of the calls inside every constructor matters.
import torch
from torch import nn


def summary(t):
    flat = t.detach().flatten()
    head = [round(v, 4) for v in flat[:3].tolist()]
    return f"{tuple(t.shape)} {head} abs-sum {flat.double().abs().sum().item():.4f}"


def show(name, module):
    print(name)
    for pname, p in module.named_parameters():
        print(f"  {pname} {summary(p)}")
    for bname, b in module.named_buffers():
        if b.is_floating_point():
            print(f"  [buffer] {bname} {summary(b)}")


torch.manual_seed(0)

# ---- layers, all from the one stream
show("Linear", nn.Linear(5, 3))
show("Linear no bias", nn.Linear(4, 2, bias=False))
show("Bilinear", nn.Bilinear(3, 4, 2))
show("Conv1d", nn.Conv1d(2, 3, 3))
show("Conv2d", nn.Conv2d(3, 4, (3, 2), stride=2, groups=1))
show("Conv2d groups", nn.Conv2d(4, 6, 3, groups=2))
show("Conv3d", nn.Conv3d(2, 2, 2))
show("ConvTranspose2d", nn.ConvTranspose2d(3, 2, 3, stride=2))
show("Embedding", nn.Embedding(6, 4, padding_idx=1))
show("EmbeddingBag", nn.EmbeddingBag(7, 3, mode="mean"))
show("RNN", nn.RNN(4, 5, num_layers=2, bidirectional=True))
show("GRU", nn.GRU(3, 4, num_layers=2, batch_first=True))
show("LSTM", nn.LSTM(3, 4, num_layers=2, bidirectional=True))
show("LSTM proj", nn.LSTM(3, 5, num_layers=2, proj_size=2))
show("RNNCell", nn.RNNCell(3, 4, nonlinearity="relu"))
show("GRUCell", nn.GRUCell(3, 4))
show("LSTMCell", nn.LSTMCell(3, 4))
show("MultiheadAttention", nn.MultiheadAttention(8, 2))
show("MultiheadAttention kdim/vdim", nn.MultiheadAttention(8, 2, kdim=5, vdim=6, bias=True, add_bias_kv=True))
show("TransformerEncoderLayer", nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16))
show("Transformer", nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=12, batch_first=True))
show("BatchNorm2d", nn.BatchNorm2d(3))
show("LayerNorm", nn.LayerNorm(4))
show("PReLU", nn.PReLU(3))
lazy = nn.LazyLinear(3)
lazy(torch.randn(2, 6))
show("LazyLinear", lazy)
show("Sequential MLP", nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
show("Linear float64", nn.Linear(3, 2, dtype=torch.float64))
show("Bilinear no bias", nn.Bilinear(2, 2, 3, bias=False))
show("Conv1d circular", nn.Conv1d(2, 2, 3, padding=1, padding_mode="circular", bias=False))
show("ConvTranspose1d", nn.ConvTranspose1d(2, 4, 3, groups=2))
show("ConvTranspose3d", nn.ConvTranspose3d(2, 1, 2))
show("GroupNorm", nn.GroupNorm(2, 4))
show("InstanceNorm1d affine", nn.InstanceNorm1d(3, affine=True))
show("Embedding max_norm", nn.Embedding(5, 3, max_norm=1.0))
show("EmbeddingBag padding", nn.EmbeddingBag(6, 2, mode="sum", padding_idx=0))
show("RNN relu no bias", nn.RNN(3, 3, nonlinearity="relu", bias=False))
show("GRU bidirectional", nn.GRU(2, 3, bidirectional=True))
show("LSTM proj bidirectional", nn.LSTM(2, 4, proj_size=3, bidirectional=True, batch_first=True))
show("MultiheadAttention batch_first no bias", nn.MultiheadAttention(6, 3, bias=False, batch_first=True))
show("TransformerDecoderLayer", nn.TransformerDecoderLayer(8, 2, dim_feedforward=10, norm_first=True))
lazy_conv = nn.Sequential(nn.LazyConv2d(2, 3), nn.LazyBatchNorm2d(), nn.Flatten(), nn.LazyLinear(2))
lazy_conv(torch.randn(1, 3, 5, 5))
show("Lazy conv net", lazy_conv)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)
    elif isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")


net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))
net.apply(init_weights)
show("apply(init_weights)", net)
net[3].reset_parameters()
show("reset_parameters", net[3])

# ---- nn.init on fresh tensors
torch.manual_seed(1)
w = torch.empty(3, 5)
print("uniform_", summary(nn.init.uniform_(w, -0.5, 0.5)))
print("normal_", summary(nn.init.normal_(w, mean=1.0, std=0.1)))
print("trunc_normal_", summary(nn.init.trunc_normal_(torch.empty(4, 6), std=0.5, a=-0.4, b=0.4)))
print("trunc_normal_ default", summary(nn.init.trunc_normal_(torch.empty(20))))
print("trunc_normal_ vit", summary(nn.init.trunc_normal_(torch.empty(16, 24), std=0.02)))
print("trunc_normal_ tail", summary(nn.init.trunc_normal_(torch.empty(5, 7), mean=0.0, std=1.0, a=1.0, b=2.5)))
print("trunc_normal_ narrow", summary(nn.init.trunc_normal_(torch.empty(40), mean=0.5, std=2.0, a=-0.1, b=0.2)))
print("trunc_normal_ float64", summary(nn.init.trunc_normal_(torch.empty(30, dtype=torch.float64), std=0.5, a=-0.6, b=0.6)))
print("xavier_uniform_", summary(nn.init.xavier_uniform_(torch.empty(3, 5))))
print("xavier_uniform_ gain", summary(nn.init.xavier_uniform_(torch.empty(3, 5), gain=nn.init.calculate_gain("relu"))))
print("xavier_normal_", summary(nn.init.xavier_normal_(torch.empty(6, 4))))
print("xavier_normal_ big", summary(nn.init.xavier_normal_(torch.empty(8, 5))))
print("kaiming_uniform_", summary(nn.init.kaiming_uniform_(torch.empty(4, 3))))
print("kaiming_uniform_ fan_out relu", summary(nn.init.kaiming_uniform_(torch.empty(4, 3, 2), mode="fan_out", nonlinearity="relu")))
print("kaiming_uniform_ a", summary(nn.init.kaiming_uniform_(torch.empty(5, 2), a=0.2)))
print("kaiming_normal_", summary(nn.init.kaiming_normal_(torch.empty(6, 4))))
print("kaiming_normal_ fan_out", summary(nn.init.kaiming_normal_(torch.empty(2, 3, 3, 3), mode="fan_out", nonlinearity="relu")))
print("orthogonal_", summary(nn.init.orthogonal_(torch.empty(3, 5))))
print("orthogonal_ tall gain", summary(nn.init.orthogonal_(torch.empty(6, 2), gain=2.0)))
print("orthogonal_ conv", summary(nn.init.orthogonal_(torch.empty(4, 2, 3))))
print("orthogonal_ square", summary(nn.init.orthogonal_(torch.empty(12, 12))))
print("sparse_", summary(nn.init.sparse_(torch.empty(6, 4), sparsity=0.5, std=0.02)))
print("sparse_ big", summary(nn.init.sparse_(torch.empty(10, 5), sparsity=0.25)))
print("eye_", summary(nn.init.eye_(torch.empty(3, 4))))
print("dirac_", summary(nn.init.dirac_(torch.empty(4, 2, 3, 3))))
print("dirac_ groups", summary(nn.init.dirac_(torch.empty(4, 2, 3), groups=2)))
print("constant_", summary(nn.init.constant_(torch.empty(2, 3), 0.3)))
print("after init:", torch.rand(2))

# ---- random functions shaped like other tensors, in place, with a generator
torch.manual_seed(2)
base = torch.zeros(2, 3)
print("randn_like", summary(torch.randn_like(base)))
print("rand_like", summary(torch.rand_like(base)))
print("randint_like", torch.randint_like(base, 10))
print("randint_like low/high", torch.randint_like(base, 3, 8))
print("random_ bounds", torch.empty(5, dtype=torch.int64).random_(2, 9))
print("random_ to", torch.empty(5, dtype=torch.int64).random_(4))
print("random_ float", torch.empty(4).random_(0, 100))
print("normal tensor,tensor", summary(torch.normal(torch.arange(4.0), torch.full((4,), 0.5))))
print("normal float,tensor", summary(torch.normal(2.0, torch.ones(3))))
print("normal tensor,float", summary(torch.normal(torch.zeros(2, 2), 3.0)))
print("normal float,float,size", summary(torch.normal(1.0, 2.0, size=(2, 3))))
g = torch.Generator().manual_seed(123)
print("rand generator=", summary(torch.rand(3, 2, generator=g)))
print("randn generator=", summary(torch.randn(20, generator=g)))
print("global untouched by g:", summary(torch.rand(3)))
print("init with generator=", summary(nn.init.kaiming_uniform_(torch.empty(3, 4), generator=g)),
      summary(nn.init.trunc_normal_(torch.empty(18), std=0.1, generator=g)),
      summary(nn.init.orthogonal_(torch.empty(2, 3), generator=g)))
print("global after generator= inits:", summary(torch.rand(3)))
