"""Error magnitudes ("scales") of float32 computations, propagated to first order in float64.

A correct float32 computation of a value v errs by about rtol * S, where S is v's scale. A
Tracked holds a value and its scale, and its operations follow the spec's rules, so a case's
scale is written as the same maths as its result, on Tracked inputs:

    exact input x:   s = 0                      a @ b:     |a| @ |b| + s_a @ |b| + |a| @ s_b
    sum(x, dim):     sum of |x| + s_x           a +- b:    |a +- b| + s_a + s_b
    a * b:           |a b| + s_a |b| + |a| s_b  n / d:     |q| + (s_n + |q| s_d) / |d|
    exp(x):          exp(x) (1 + s_x)           amax(x):   s_x at the argmax (no rounding)
    softmax(x, dim): composed: e = exp(x - amax(x, dim)), e / sum(e, dim)

Every result but a max is rounded at least once, so S >= |v| for every stored result.
"""

import torch


class Tracked:
    """A float64 value with the error scale of computing it in float32."""

    def __init__(self, value, scale):
        self.value, self.scale = value, scale

    @classmethod
    def exact(cls, tensor):
        """An input: stored exactly, so it carries no error."""
        value = torch.as_tensor(tensor, dtype=torch.float64)
        return cls(value, torch.zeros_like(value))

    @staticmethod
    def of(operand):
        return operand if isinstance(operand, Tracked) else Tracked.exact(operand)

    @property
    def shape(self):
        return self.value.shape

    @property
    def T(self):
        return Tracked(self.value.T, self.scale.T)

    def __getitem__(self, index):
        return Tracked(self.value[index], self.scale[index])

    def __matmul__(self, other):
        other = Tracked.of(other)
        magnitudes = self.value.abs() @ other.value.abs()
        return Tracked(self.value @ other.value, magnitudes + self.scale @ other.value.abs()
                       + self.value.abs() @ other.scale)

    def __add__(self, other):
        other = Tracked.of(other)
        value = self.value + other.value
        return Tracked(value, value.abs() + self.scale + other.scale)

    def __sub__(self, other):
        other = Tracked.of(other)
        value = self.value - other.value
        return Tracked(value, value.abs() + self.scale + other.scale)

    def __mul__(self, other):
        other = Tracked.of(other)
        value = self.value * other.value
        return Tracked(value, value.abs() + self.scale * other.value.abs()
                       + self.value.abs() * other.scale)

    def __truediv__(self, other):
        other = Tracked.of(other)
        quotient = self.value / other.value
        return Tracked(quotient, quotient.abs()
                       + (self.scale + quotient.abs() * other.scale) / other.value.abs())

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return Tracked.of(other) - self

    def __rtruediv__(self, other):
        return Tracked.of(other) / self

    def exp(self):
        value = self.value.exp()
        return Tracked(value, value * (1 + self.scale))

    def sum(self, dim=None, keepdim=False):
        terms = self.value.abs() + self.scale
        if dim is None:
            return Tracked(self.value.sum(), terms.sum())
        return Tracked(self.value.sum(dim, keepdim), terms.sum(dim, keepdim))

    def amax(self, dim, keepdim=False):
        value, index = self.value.max(dim, keepdim=True)
        scale = self.scale.gather(dim, index)  # picking a value rounds nothing
        if not keepdim:
            value, scale = value.squeeze(dim), scale.squeeze(dim)
        return Tracked(value, scale)

    def softmax(self, dim):
        exps = (self - self.amax(dim, keepdim=True)).exp()
        return exps / exps.sum(dim, keepdim=True)
