# Sequence-to-sequence "translation" with nn.Transformer, in the manner of the translation
# tutorial, on a toy task: each source letter has its own target letter, and the target sentence
# reads the translated letters with the first moved to the end.
# Token embeddings scaled by sqrt(d_model), a sinusoidal PositionalEncoding buffer, special
# symbols, pad_sequence collation, causal and key-padding masks, CrossEntropyLoss with
# ignore_index, Adam with betas/eps, and greedy decoding with torch.cat and max(dim=1).
import math

import numpy as np
import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import Transformer
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

torch.set_default_dtype(torch.float64)
DEVICE = torch.device("cpu")

UNK_IDX, PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2, 3
special_symbols = ["<unk>", "<pad>", "<bos>", "<eos>"]
src_words = special_symbols + list("abcdefgh")
tgt_words = special_symbols + ["A", "B", "C", "D", "E", "F", "G", "H"]
SRC_VOCAB_SIZE, TGT_VOCAB_SIZE = len(src_words), len(tgt_words)
src_index = {w: i for i, w in enumerate(src_words)}


lexicon = dict(zip("abcdefgh", "CHAEGBFD"))


def make_pair(sentence):
    """A source sentence and its translation: word for word, the first word moved last."""
    words = [lexicon[ch] for ch in sentence]
    return sentence, "".join(words[1:] + words[:1])


data_rng = np.random.default_rng(11)
pairs = []
for n in range(104):
    length = int(data_rng.integers(3, 7))
    pairs.append(make_pair("".join(data_rng.choice(list("abcdefgh"), size=length))))
train_pairs, val_pairs = pairs[:96], pairs[96:]
print(len(train_pairs), len(val_pairs), train_pairs[:3])


def tensor_transform(token_ids):
    return torch.cat((torch.tensor([BOS_IDX]), torch.tensor(token_ids), torch.tensor([EOS_IDX])))


def src_transform(sentence):
    return tensor_transform([src_index.get(ch, UNK_IDX) for ch in sentence])


def tgt_transform(sentence):
    return tensor_transform([tgt_words.index(ch) for ch in sentence])


def collate_fn(batch):
    src_batch, tgt_batch = [], []
    for src_sample, tgt_sample in batch:
        src_batch.append(src_transform(src_sample.rstrip("\n")))
        tgt_batch.append(tgt_transform(tgt_sample.rstrip("\n")))
    src_batch = pad_sequence(src_batch, padding_value=PAD_IDX)
    tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX)
    return src_batch, tgt_batch


src, tgt = collate_fn(train_pairs[:3])
print(src.shape, src.dtype, src.t().tolist(), tgt[:, 0].tolist())


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 64):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super(TokenEmbedding, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size,
                 tgt_vocab_size, dim_feedforward=512, dropout=0.1):
        super(Seq2SeqTransformer, self).__init__()
        self.transformer = Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=num_encoder_layers,
                                       num_decoder_layers=num_decoder_layers, dim_feedforward=dim_feedforward,
                                       dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src: Tensor, src_mask: Tensor):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))
    return mask


def create_mask(src, tgt):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


print(generate_square_subsequent_mask(3))
print(torch.equal(generate_square_subsequent_mask(5), Transformer.generate_square_subsequent_mask(5)))
src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt[:-1, :])
print(src_mask.dtype, src_mask.any().item(), tgt_mask.shape, src_padding_mask.tolist())

EMB_SIZE, NHEAD, FFN_HID_DIM = 16, 2, 32
transformer = Seq2SeqTransformer(1, 1, EMB_SIZE, NHEAD, SRC_VOCAB_SIZE, TGT_VOCAB_SIZE, FFN_HID_DIM, dropout=0.0)
# the tutorial's xavier_uniform_ draws from torch's generator; the same bound from numpy here
init_rng = np.random.default_rng(3)
with torch.no_grad():
    for name, p in transformer.named_parameters():
        if p.dim() > 1:
            bound = math.sqrt(6.0 / (p.shape[0] + p.shape[1]))
            p.copy_(torch.from_numpy(init_rng.uniform(-bound, bound, size=tuple(p.shape))))
        elif "norm" not in name:
            p.copy_(torch.from_numpy(init_rng.uniform(-0.1, 0.1, size=tuple(p.shape))))
transformer = transformer.to(DEVICE)
print(sum(p.numel() for p in transformer.parameters()), len(list(transformer.buffers())),
      [name for name, _ in transformer.named_parameters()][:5])

loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
optimizer = torch.optim.Adam(transformer.parameters(), lr=0.01, betas=(0.9, 0.98), eps=1e-9)
BATCH_SIZE = 24
print(transformer.transformer.decoder.layers[0])
print(optimizer)


def train_epoch(model, optimizer):
    model.train()
    losses = 0
    train_dataloader = DataLoader(train_pairs, batch_size=BATCH_SIZE, collate_fn=collate_fn)
    for src, tgt in train_dataloader:
        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        optimizer.zero_grad()
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        losses += loss.item()
    return losses / len(list(train_dataloader))


def evaluate(model):
    model.eval()
    losses = 0
    val_dataloader = DataLoader(val_pairs, batch_size=BATCH_SIZE, collate_fn=collate_fn)
    with torch.no_grad():
        for src, tgt in val_dataloader:
            tgt_input = tgt[:-1, :]
            src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
            logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
            tgt_out = tgt[1:, :]
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            losses += loss.item()
    return losses / len(list(val_dataloader))


NUM_EPOCHS = 16
for epoch in range(1, NUM_EPOCHS + 1):
    train_loss = train_epoch(transformer, optimizer)
    val_loss = evaluate(transformer)
    if epoch % 4 == 0:
        print(f"Epoch: {epoch}, Train loss: {train_loss:.6f}, Val loss: {val_loss:.6f}")


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    src = src.to(DEVICE)
    src_mask = src_mask.to(DEVICE)
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
    for i in range(max_len - 1):
        memory = memory.to(DEVICE)
        tgt_mask = (generate_square_subsequent_mask(ys.size(0)).type(torch.bool)).to(DEVICE)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


def translate(model: torch.nn.Module, src_sentence: str):
    model.eval()
    src = src_transform(src_sentence).view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    tgt_tokens = greedy_decode(model, src, src_mask, max_len=num_tokens + 5, start_symbol=BOS_IDX).flatten()
    return " ".join(tgt_words[int(t)] for t in tgt_tokens).replace("<bos>", "").replace("<eos>", "")


with torch.no_grad():
    for sentence, reference in val_pairs[:4]:
        print(sentence, "->", repr(translate(transformer, sentence)), "reference", reference)
    src = src_transform("abcd").view(-1, 1)
    memory = transformer.encode(src, torch.zeros(6, 6).type(torch.bool))
    ys = torch.tensor([[BOS_IDX]])
    out = transformer.decode(ys, memory, generate_square_subsequent_mask(1).type(torch.bool))
    print(memory.shape, out.shape, torch.softmax(transformer.generator(out[-1]), dim=-1).max(dim=1))
