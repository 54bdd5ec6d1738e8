"""Data augmentation on image batches (NCHW) or single images (CHW), in place or not.

The in-place forms (``random_horizontal_flip_``, ``random_crop_``, ``color_jitter_``)
write into the batch the DataLoader just made: no second batch-sized allocation, and
each write is one in-place op on the batch (its ``_version`` bumps; a trace shows
them). They must not be applied to a tensor autograd saved for backward, nor to a
``TensorDataset`` sample (a view of the dataset: the dataset itself would change).
The out-of-place forms clone first and leave the input untouched.

Randomness comes from the global generator (``inplace_lab.manual_seed``).
"""
from __future__ import annotations

import inplace_lab as il
from ... import creation
from ...autograd import no_grad


def _batched(x):
    if x.dim() == 3:
        return x.unsqueeze(0)
    if x.dim() != 4:
        raise ValueError(f"expected a CHW image or an NCHW batch, got {x.dim()} dims")
    return x


def random_horizontal_flip_(x, p: float = 0.5):
    """Flip each image left-right with probability ``p``, writing into ``x`` (one copy_)."""
    b = _batched(x)
    flip = creation.rand(b.shape[0]) < p
    with no_grad():
        mixed = b.flip(-1).where(flip.reshape(-1, 1, 1, 1).to(b.device), b)
        b.copy_(mixed)
    return x


def random_horizontal_flip(x, p: float = 0.5):
    return random_horizontal_flip_(x.clone(), p)


def _crop_origins(n, h, w, size, padding):
    th, tw = size
    hp, wp = h + 2 * padding, w + 2 * padding
    if th > hp or tw > wp:
        raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(hp, wp)}")
    i = creation.randint(0, hp - th + 1, (n,)).tolist()
    j = creation.randint(0, wp - tw + 1, (n,)).tolist()
    return i, j


def _padded(b, padding, fill):
    if not padding:
        return b
    n, c, h, w = b.shape
    out = creation.full((n, c, h + 2 * padding, w + 2 * padding), fill, dtype=b._dtype,
                        device=b.device)
    out[:, :, padding:padding + h, padding:padding + w] = b
    return out


def random_crop(x, size, padding: int = 0, fill: float = 0.0):
    """A random ``size`` crop of each (zero-padded) image, as a new tensor."""
    size = (size, size) if isinstance(size, int) else tuple(size)
    b = _batched(x)
    n, c, h, w = b.shape
    i, j = _crop_origins(n, h, w, size, padding)
    with no_grad():
        src = _padded(b, padding, fill)
        out = il.stack([src[k, :, i[k]:i[k] + size[0], j[k]:j[k] + size[1]]
                              for k in range(n)])
    return out if x.dim() == 4 else out[0]


def random_crop_(x, padding: int = 4, fill: float = 0.0):
    """Pad-and-crop back to the same size (the CIFAR recipe), written into ``x`` (one copy_)."""
    b = _batched(x)
    with no_grad():
        b.copy_(_batched(random_crop(b, tuple(b.shape[-2:]), padding, fill)))
    return x


def _factors(n, amount, device):
    if amount is None or amount == 0:
        return None
    lo, hi = (max(0.0, 1 - amount), 1 + amount) if not isinstance(amount, (tuple, list)) \
        else tuple(amount)
    return (creation.rand(n) * (hi - lo) + lo).reshape(n, 1, 1, 1).to(device)


def color_jitter_(x, brightness=0.0, contrast=0.0, saturation=0.0):
    """Random brightness, contrast and saturation per image, each one in-place op on ``x``
    (``mul_``, ``lerp_``, ``lerp_``), then ``clamp_(0, 1)``: float images in [0, 1]."""
    if not x.is_floating_point():
        raise TypeError("color_jitter_ expects a float image tensor in [0, 1]")
    b = _batched(x)
    n = b.shape[0]
    with no_grad():
        f = _factors(n, brightness, b.device)
        if f is not None:
            b.mul_(f)
        f = _factors(n, contrast, b.device)
        if f is not None:
            mean = _gray(b).mean((1, 2, 3), keepdim=True)
            b.lerp_(mean.expand_as(b), 1 - f)
        f = _factors(n, saturation, b.device)
        if f is not None:
            b.lerp_(_gray(b).expand_as(b), 1 - f)
        b.clamp_(0.0, 1.0)
    return x


def color_jitter(x, brightness=0.0, contrast=0.0, saturation=0.0):
    return color_jitter_(x.clone(), brightness, contrast, saturation)


def _gray(b):
    if b.shape[1] == 3:
        return (b[:, 0:1] * 0.2989 + b[:, 1:2] * 0.587 + b[:, 2:3] * 0.114)
    return b.mean(1, keepdim=True)


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class RandomHorizontalFlip:
    def __init__(self, p: float = 0.5, inplace: bool = False):
        self.p, self.inplace = p, inplace

    def __call__(self, x):
        return (random_horizontal_flip_ if self.inplace else random_horizontal_flip)(x, self.p)


class RandomCrop:
    def __init__(self, size, padding: int = 0, fill: float = 0.0, inplace: bool = False):
        self.size, self.padding, self.fill, self.inplace = size, padding, fill, inplace

    def __call__(self, x):
        if self.inplace:
            want = (self.size, self.size) if isinstance(self.size, int) else tuple(self.size)
            if want != tuple(x.shape[-2:]):
                raise ValueError("an in-place crop must keep the image size; use inplace=False")
            return random_crop_(x, self.padding, self.fill)
        return random_crop(x, self.size, self.padding, self.fill)


class ColorJitter:
    def __init__(self, brightness=0.0, contrast=0.0, saturation=0.0, inplace: bool = False):
        self.args, self.inplace = (brightness, contrast, saturation), inplace

    def __call__(self, x):
        return (color_jitter_ if self.inplace else color_jitter)(x, *self.args)
