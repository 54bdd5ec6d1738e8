"""torch.amp.GradScaler (vendored from torch 2.13) and autocast's disabled paths, against torch:
scale values, skipped steps on inf, growth and backoff, state_dict, errors and warnings."""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402


def _run(T):
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = T.amp.GradScaler("cuda")
        out.append((s.is_enabled(), s.get_scale(), s.state_dict()))
        s3 = T.amp.GradScaler("cpu")
        out.append((s3.is_enabled(), s3.get_scale(), s3.state_dict()))
        m = T.nn.Linear(2, 1)
        with T.no_grad():
            m.weight.fill_(0.5)
            m.bias.fill_(0.1)
        loss = m(T.ones(2)).sum()
        out.append(s.scale(loss) is loss)
        sc = s3.scale(m(T.ones(2)).sum())
        out.append((round(sc.item(), 3), sc.grad_fn.name()))
        try:
            T.amp.GradScaler("cpu").unscale_(T.optim.SGD([T.nn.Parameter(T.ones(1))], 0.1))
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
        s = T.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.SGD([p], 0.1)
        for i in range(5):
            (s.scale((p * (float("inf") if i == 2 else 1.0)).sum())).backward()
            if i == 3:
                s.unscale_(opt)
                try:
                    s.unscale_(opt)
                except RuntimeError as e:
                    out.append(str(e))
            s.step(opt)
            s.update()
            out.append((i, s.get_scale(), [round(v, 5) for v in p.tolist()]))
            opt.zero_grad()
        out.append(s.state_dict())
        with T.autocast("cuda"):
            out.append("autocast cuda block ran")
        with T.autocast("cpu", enabled=False):
            out.append("disabled block ran")
        try:
            T.amp.GradScaler("cpu", growth_factor=0.5)
        except AssertionError as e:
            out.append(str(e))
    out.append(sorted({str(x.message) for x in w}))
    return out


@pytest.mark.skipif(torch.cuda.is_available() or il.cuda.is_available(), reason="CPU-only view")
def test_grad_scaler_program_matches_torch():
    assert _run(il) == _run(torch)


def test_enabled_autocast_says_it_is_not_implemented():
    with pytest.raises(NotImplementedError, match="no mixed precision"):
        il.autocast("cpu")
