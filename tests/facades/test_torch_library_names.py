"""The torch facade reaches the whole library under PyTorch's module names."""
import numpy as np
import pytest

torch_ref = pytest.importorskip("torch")

import inplace_lab.torch as torch  # noqa: E402


def _step(T, F, optim, w0, b0, x, y):
    lin = T.nn.Linear(3, 2)
    with T.no_grad():
        lin.weight.copy_(T.tensor(w0))
        lin.bias.copy_(T.tensor(b0))
    opt = optim.SGD(lin.parameters(), lr=0.5, momentum=0.9)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(lin(T.tensor(x)), T.tensor(y))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, lin.weight.detach().numpy().copy(), lin.weight._version


def test_training_step_through_the_facade_matches_torch():
    rng = np.random.default_rng(0)
    w0, b0 = rng.standard_normal((2, 3)).astype("f4"), rng.standard_normal(2).astype("f4")
    x, y = rng.standard_normal((8, 3)).astype("f4"), rng.integers(0, 2, 8)
    import inplace_lab.torch.nn.functional as F
    import inplace_lab.torch.optim as optim

    ref = _step(torch_ref, torch_ref.nn.functional, torch_ref.optim, w0, b0, x, y)
    got = _step(torch, F, optim, w0, b0, x, y)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-5, atol=1e-6)
    assert got[2] == ref[2]


def test_module_names_resolve_like_torch():
    from inplace_lab.torch.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(torch.arange(6.), torch.arange(6))
    assert [b[1].tolist() for b in DataLoader(ds, batch_size=4)] == [[0, 1, 2, 3], [4, 5]]
    assert callable(torch.save) and callable(torch.load)
    assert torch.cuda.memory_allocated is __import__("inplace_lab").cuda.memory_allocated
    import inplace_lab.torch.nn.functional as F

    assert F.conv2d is __import__("inplace_lab").nn.functional.conv2d


def test_torch_trace_is_the_matrix_trace_not_the_recorder():
    assert torch.trace(torch.eye(3)).item() == torch_ref.trace(torch_ref.eye(3)).item() == 3.0


def test_like_factories_and_optimizer_state_stay_in_the_facade():
    import inplace_lab as il

    x = torch.ones(2)
    for f in (il.zeros_like, il.ones_like, il.empty_like, il.rand_like, il.randn_like):
        assert str(f(x).dtype) == "torch.float32"
    assert str(il.zeros_like(il.ones(2)).dtype) == "inplace_lab.float32"
    lin = torch.nn.Linear(2, 2)
    opt = torch.optim.Adam(lin.parameters())
    lin(torch.ones(1, 2)).sum().backward()
    opt.step()
    assert str(opt.state[lin.weight]["exp_avg"].dtype) == "torch.float32"
