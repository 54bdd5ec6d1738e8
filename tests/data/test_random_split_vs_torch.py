"""random_split against torch 2.13: sizes from ints and fractions (round-robin remainder),
disjoint and covering subsets, seeded reproducibility, warnings and errors."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402


@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (10, [0.5, 0.5]), (11, [0.3, 0.3, 0.4]),
                                       (7, [0.1, 0.2, 0.7]), (5, [5]), (13, [0.25] * 4),
                                       (100, [0.8, 0.1, 0.1])])
def test_sizes_disjoint_and_cover(n, lengths):
    tds = torch.utils.data.TensorDataset(torch.arange(n))
    ds = il.utils.data.TensorDataset(il.arange(n))
    ref = torch.utils.data.random_split(tds, lengths)
    got = il.utils.data.random_split(ds, lengths, generator=il.Generator().manual_seed(3))
    assert [len(s) for s in got] == [len(s) for s in ref]
    assert all(isinstance(s, il.utils.data.Subset) for s in got)
    idx = [i for s in got for i in s.indices]
    assert sorted(idx) == list(range(n))
    assert [int(s[j][0]) for s in got for j in range(len(s))] == idx


def test_seeded_generator_repeats_and_differs_by_seed():
    ds = il.utils.data.TensorDataset(il.arange(50))

    def split(seed):
        return [s.indices for s in il.utils.data.random_split(
            ds, [0.6, 0.4], generator=il.Generator().manual_seed(seed))]

    assert split(42) == split(42)
    assert split(42) != split(43)
    unseeded = il.utils.data.random_split(ds, [20, 30])
    assert sorted(unseeded[0].indices + unseeded[1].indices) == list(range(50))


def test_errors_and_warnings_match_torch():
    for lib in (torch, il):
        ds = lib.utils.data.TensorDataset(lib.arange(4))
        with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length "
                                             "of the input dataset!$"):
            lib.utils.data.random_split(ds, [1, 2])
        with pytest.raises(ValueError, match="^Fraction at index 0 is not between 0 and 1$"):
            lib.utils.data.random_split(ds, [-0.5, 1.5])
        with pytest.warns(UserWarning, match="^Length of split at index 2 is 0. This might "
                                             "result in an empty dataset.$"):
            parts = lib.utils.data.random_split(ds, [0.5, 0.5, 0.0])
        assert [len(p) for p in parts] == [2, 2, 0]


def test_import_forms():
    from inplace_lab.torch.utils.data import random_split

    assert random_split is il.utils.data.random_split
    assert il.Generator().manual_seed(5).initial_seed() == 5
