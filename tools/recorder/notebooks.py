"""The seed notebooks' data, cells and classes, written the way the seeds write them.

Seeds: ../shared/seeds/001 (book chapter 3, §3.3-3.6) and 003 (step-by-step exercises).
Students have no seeds: a case's source, which they read in failures, cites the public cell
instead (ch03.ipynb of rasbt/LLMs-from-scratch, udlbook's 12_1_Self_Attention.ipynb), as
exercises.json's "notebook" does; the docstrings below give both where they differ.
Each function is one cell (named in its docstring), so a golden reproduces what the notebook
computes, loops and all. Nothing here names a dtype: the recorder re-runs a cell in float64
by changing torch's default dtype, and the cell follows.
"""

import torch
import torch.nn as nn


def journey_inputs():
    """001 §3.3.1, In [1] (ch03.ipynb's inputs): "Your journey starts with one step", one 3-D
    row per token."""
    inputs = torch.tensor(
        [
            [0.43, 0.15, 0.89],  # Your     (x^1)
            [0.55, 0.87, 0.66],  # journey  (x^2)
            [0.57, 0.85, 0.64],  # starts   (x^3)
            [0.22, 0.58, 0.33],  # with     (x^4)
            [0.77, 0.25, 0.10],  # one      (x^5)
            [0.05, 0.80, 0.55],
        ]  # step     (x^6)
    )
    return inputs


def attention_scores_for(inputs, query):
    """001 In [2] (and In [6]) = ch03.ipynb In [3]: one torch.dot of the query with each input
    row."""
    attention_scores = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attention_scores[i] = torch.dot(query, x_i)
    return attention_scores


def normalize_by_sum(attention_scores):
    """001 In [3] = ch03.ipynb In [5]: the naive weights, each score divided by the sum of all
    scores."""
    return attention_scores / attention_scores.sum()


def context_vector_of(inputs, attention_weights):
    """001 In [5] = ch03.ipynb In [8]: the inputs weighted by the attention weights, summed."""
    context_vec = torch.zeros(inputs.shape[1])
    for i, x_i in enumerate(inputs):
        context_vec += attention_weights[i] * x_i
    return context_vec


def context_vector_for_query(inputs, query_index):
    """001 In [6] = ch03.ipynb In [3], In [7], In [8]: scores, softmax, context vector for the
    token at query_index."""
    query = inputs[query_index]
    attn_scores = attention_scores_for(inputs, query)
    attn_weights = torch.softmax(attn_scores, dim=0)
    return context_vector_of(inputs, attn_weights)


def all_attention_scores(inputs):
    """001 §3.3.2, In [7] = ch03.ipynb In [9]: every pair of tokens, two loops."""
    attn_scores = torch.empty((inputs.shape[0], inputs.shape[0]))
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_j)
    return attn_scores


def all_context_vectors(inputs):
    """001 §3.3.2, In [8] to In [10] = ch03.ipynb In [10], In [11], In [13]: scores by matmul,
    row softmax, weights @ inputs."""
    attn_scores = inputs @ inputs.T
    attn_weights = torch.softmax(attn_scores, dim=-1)
    return attn_weights @ inputs


def softmax(items_in):
    """003 Exercise 3, In [19] (ch03.ipynb In [6], softmax_naive): the naive softmax (its max
    shift is commented out)."""
    if not isinstance(items_in, torch.Tensor):
        items_in = torch.Tensor(items_in)
    # Compute the exponential of the input
    exp_items = torch.exp(items_in)
    # Compute the softmax by dividing by the sum of exponentials
    items_out = exp_items / torch.sum(exp_items)
    return items_out


def softmax_cols(data_in):
    """003 In [28] (12_1_Self_Attention.ipynb softmax_cols): the naive softmax of each column
    (column convention)."""
    exp_values = torch.exp(data_in)
    denom = torch.sum(exp_values, dim=0)
    denom = denom.unsqueeze(0).expand_as(data_in)
    return exp_values / denom


class SelfAttention_v1(nn.Module):
    """001 §3.4.2, In [19]: weights as nn.Parameter of shape (d_in, d_out), x @ W."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    """001 §3.4.2, In [21]: nn.Linear layers (weight (d_out, d_in)), optional bias."""

    def __init__(self, d_in: int, d_out: int, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    """001 §3.5, In [33], with its bug corrected.

    001's forward softmaxes `masked`, a global left over from In [27], instead of its own
    masked attn_scores: every head then shares In [27]'s weights, so the outputs 001 prints
    in §3.6 and for Exercise 3.2 are wrong. The goldens come from this corrected forward.
    """

    def __init__(
        self, d_in: int, d_out: int, context_length: int, dropout: float, qkv_bias=False
    ):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1)
        )

    def forward(self, x):
        # [batch, num_tokens, d_in]
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # was: masked
        attn_weights_dropped = self.dropout(attn_weights)
        context_vec = attn_weights_dropped @ values
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    """001 §3.6, In [34]: num_heads CausalAttention heads, outputs concatenated."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias=False,
    ):
        super().__init__()
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                for _ in range(num_heads)
            ]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """001 §3.6.2, In [37]: one projection split into heads (view, transpose), out_proj."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias=False,
    ):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # To combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1)
        )

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        # Tensor shape (b, num_tokens, d_out)
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        # (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)  # dot product for each head
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # (b, num_tokens, n_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional linear projection
        return context_vec


class UnmaskedMultiHeadAttention(nn.Module):
    """000 (the exercise solutions) In [12], the book's Exercise 3.2 solved another way: one
    projection per Q/K/V split into heads (view, transpose), no mask, no bias, fc_out. 000
    names it MultiHeadAttentionWrapper; it is not 001's wrapper of heads, hence the name."""

    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.num_heads = num_heads
        self.d_k = d_out // num_heads

        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.fc_out = nn.Linear(d_out, d_out, bias=False)

    def forward(self, x):
        B, T, _ = x.shape  # Batch size, sequence length, d_in

        # Linear projections
        Q = self.W_query(x)  # (B, T, d_out)
        K = self.W_key(x)
        V = self.W_value(x)

        # Split into heads
        Q = Q.view(B, T, self.num_heads, self.d_k).transpose(1, 2)  # (B, num_heads, T, d_k)
        K = K.view(B, T, self.num_heads, self.d_k).transpose(1, 2)
        V = V.view(B, T, self.num_heads, self.d_k).transpose(1, 2)

        # Attention mechanism
        attn_scores = Q @ K.transpose(-2, -1) / (self.d_k ** 0.5)  # (B, num_heads, T, T)
        attn_weights = torch.softmax(attn_scores, dim=-1)  # (B, num_heads, T, T)
        context = attn_weights @ V  # (B, num_heads, T, d_k)

        # Concatenate heads
        context = context.transpose(1, 2).contiguous().view(B, T, self.num_heads * self.d_k)
        return self.fc_out(context)
