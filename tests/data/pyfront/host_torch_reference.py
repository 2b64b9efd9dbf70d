"""Torch reference computations: slicing, broadcasting, matmul operator, unpacking."""
import torch
import torch.nn.functional as F


def layernorm_ref(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + eps) * gamma[None, :] + beta[None, ...]


def attention_ref(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1) @ v


def tiles(x, rows):
    head, *body, last = x.split(rows)
    return head, body, last


def main():
    torch.manual_seed(0)
    x = torch.randn(5, 8)
    g, b = torch.ones(8), torch.zeros(8)
    y = layernorm_ref(x, g, b)
    assert torch.allclose(y.mean(-1), torch.zeros(5), atol=1e-5)
    q = k = v = torch.randn(2, 4, 16)
    out = attention_ref(q, k, v, mask=torch.ones(4, 4, dtype=torch.bool).tril())
    print(out.shape, y[:, ::2].shape, y[1:-1, 3].shape, x[..., -1].shape, x[None].shape)
    first, middle, tail = tiles(torch.arange(10), 3)
    a, (b0, b1), *c = 1, (2, 3), 4, 5
    print(first, len(middle), tail, a, b0, b1, c)
    x[0, :] = 0
    x[1:3, 2:4] += 1
    del x[0]


if __name__ == "__main__":
    main()
