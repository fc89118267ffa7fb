# Variable-length sequences in the manner of the RNN classification tutorials: pad_sequence,
# pack_padded_sequence (enforce_sorted both ways), an LSTM over the packed batch,
# pad_packed_sequence, the last real hidden state per sequence, and a weighted sampler that
# balances the classes.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
lengths = [5, 2, 4, 3]
seqs = [wave(n, 3, freq=0.3 + 0.1 * i) for i, n in enumerate(lengths)]
padded = pad_sequence(seqs, batch_first=True)
print(padded.shape, padded[1, :, 0])

lstm = nn.LSTM(3, 6, batch_first=True, bidirectional=True)
init_fixed(lstm, scale=0.4, freq=0.63)
head = nn.Linear(12, 2)
init_fixed(head, scale=0.3)

packed = pack_padded_sequence(padded, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
out, (h, c) = lstm(packed)
unpacked, out_lengths = pad_packed_sequence(out, batch_first=True)
print(unpacked.shape, out_lengths, unpacked[1, 2:].abs().sum())
last = torch.cat([h[-2], h[-1]], dim=1)
print(head(last))

order = sorted(range(4), key=lambda i: -lengths[i])
sorted_pack = pack_padded_sequence(padded[order], [lengths[i] for i in order], batch_first=True)
out2, (h2, _) = lstm(sorted_pack)
print(torch.allclose(h2[:, [order.index(i) for i in range(4)]], h))

labels = torch.tensor([0, 0, 0, 1])
weights = 1.0 / torch.bincount(labels).double()
sampler = WeightedRandomSampler(weights[labels], num_samples=8, replacement=True)
loader = DataLoader(TensorDataset(torch.arange(4), labels), batch_size=4, sampler=sampler)
print(len(sampler), len(loader), [b[0].shape for b in loader])
loss = nn.functional.cross_entropy(head(last), labels)
loss.backward()
print(loss, lstm.weight_ih_l0.grad.abs().sum() > 0)
