"""``paddle.save`` / ``paddle.load`` (and Layer.state_dict / set_state_dict) vs Paddle 3.3.1.

Each program runs on real paddle and on ``inplace_lab.paddle`` with its own temporary
folder; what it observes (types, dtypes, shapes, values, stop_gradient, names, versions,
errors) must agree. The files themselves differ (inplace_lab writes its own safe format),
so a file is only ever read back by the library that wrote it.
"""
from __future__ import annotations

import io
import os
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import inplace_lab.paddle as ilp
from tests.differential.harness import Raised, assert_same, observe

real = pytest.importorskip("paddle")


def both(prog, tmp_path, *, prefix=None):
    """Run ``prog(P, folder)`` on paddle and on inplace_lab.paddle; assert the same observations."""
    out = []
    for name, P in (("paddle", real), ("inplace_lab", ilp)):
        folder = tmp_path / name
        folder.mkdir()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(observe(prog(P, str(folder))))
            except Exception as exc:  # noqa: BLE001 - the error is the observation
                out.append(Raised.of(exc))
    assert_same(out[0], out[1], prefix=prefix, ref_name="paddle")
    return out[0]


def kind(v):
    """What a loaded object is, in words both libraries share."""
    if isinstance(v, np.ndarray):
        return "ndarray"
    if isinstance(v, (real.Tensor, ilp.Tensor)):
        return "Tensor"
    return type(v).__name__


def test_a_single_tensor_comes_back_a_paddle_tensor_without_grad(tmp_path):
    def prog(P, d):
        x = P.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        x.stop_gradient = False
        p = os.path.join(d, "x.pdtensor")
        P.save(x, p)
        y = P.load(p)
        return {"kind": kind(y), "y": y, "dtype": str(y.dtype), "shape": list(y.shape),
                "sg": y.stop_gradient, "same_name": y.name == x.name, "v": y.inplace_version,
                "x_v": x.inplace_version, "leaf": y.is_leaf}

    both(prog, tmp_path)


def test_an_op_result_saves_its_values_only(tmp_path):
    def prog(P, d):
        x = P.to_tensor([1.0, 2.0])
        x.stop_gradient = False
        z = x * 2
        P.save(z, os.path.join(d, "z"))
        y = P.load(os.path.join(d, "z"))
        return {"y": y, "sg": y.stop_gradient, "leaf": y.is_leaf}

    both(prog, tmp_path)


def test_a_state_dict_comes_back_a_plain_dict_of_tensors(tmp_path):
    def prog(P, d):
        net = P.nn.Sequential(P.nn.Linear(2, 3), P.nn.ReLU(), P.nn.Linear(3, 1))
        sd = net.state_dict()
        fixed = {k: P.to_tensor(np.arange(np.prod(v.shape), dtype="float32").reshape(v.shape) / 10)
                 for k, v in sd.items()}
        result = net.set_state_dict(fixed)
        p = os.path.join(d, "m.pdparams")
        P.save(net.state_dict(), p)
        loaded = P.load(p)
        fresh = P.nn.Sequential(P.nn.Linear(2, 3), P.nn.ReLU(), P.nn.Linear(3, 1))
        w = fresh[0].weight
        back = fresh.set_state_dict(loaded)
        x = P.to_tensor([[1.0, -2.0], [0.5, 3.0]])
        return {"sd_type": type(sd).__name__, "sd_is_param": sd["0.weight"] is net[0].weight,
                "set": [list(r) for r in result], "type": type(loaded).__name__,
                "keys": list(loaded), "kinds": [kind(v) for v in loaded.values()],
                "sg": [v.stop_gradient for v in loaded.values()],
                "names_kept": [loaded[k].name == sd[k].name for k in sd],
                "values": list(loaded.values()), "back": [list(r) for r in back],
                "same_param": fresh[0].weight is w, "param_v": w.inplace_version,
                "param_sg": w.stop_gradient, "out": fresh(x), "ref_out": net(x)}

    both(prog, tmp_path)


def test_nested_containers_numbers_and_ordered_dicts(tmp_path):
    def prog(P, d):
        x = P.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        obj = {"a": [x, P.to_tensor([1, 2], dtype="int64")], "b": {"c": 3, "d": "s"},
               "e": (1.5, None), "f": OrderedDict(g=x), "h": np.arange(3), "i": True}
        p = os.path.join(d, "n.pd")
        P.save(obj, p)
        o = P.load(p)
        return {"types": [type(o[k]).__name__ for k in "abefhi"], "a": o["a"], "b": o["b"],
                "e": o["e"], "g": o["f"]["g"], "i": o["i"], "h": o["h"].tolist(),
                "kinds": [kind(t) for t in o["a"]], "names": [t.name == x.name for t in o["a"][:1]]}

    both(prog, tmp_path)


@pytest.mark.parametrize("return_numpy", [False, True])
def test_arrays_become_tensors_only_in_an_object_without_tensors(tmp_path, return_numpy):
    def prog(P, d):
        p, q = os.path.join(d, "a"), os.path.join(d, "b")
        P.save({"h": np.arange(3), "k": [np.ones(2, dtype="float32")]}, p)
        P.save({"h": np.arange(3), "t": P.to_tensor([1.0])}, q)
        a, b = P.load(p, return_numpy=return_numpy), P.load(q, return_numpy=return_numpy)
        return {"a": [kind(a["h"]), kind(a["k"][0]), a["h"].tolist()],
                "b": [kind(b["h"]), kind(b["t"]), type(b).__name__]}

    both(prog, tmp_path)


def test_state_dict_rules_for_ordered_dicts_and_the_name_table(tmp_path):
    def prog(P, d):
        x = P.to_tensor([1.0, 2.0])
        p, q, r = (os.path.join(d, n) for n in "pqr")
        P.save(OrderedDict(w=x, meta={"epoch": 3}), p)  # a state dict: loads as a dict
        P.save(OrderedDict(w=x, epoch=3), q)  # not a state dict (a number): stays ordered
        P.save({}, r)
        table = P.load(p, keep_name_table=True)["StructuredToParameterName@@"]
        return {"p": type(P.load(p)).__name__, "meta": P.load(p)["meta"],
                "q": type(P.load(q)).__name__, "r": P.load(r), "table": table == {"w": x.name}}

    both(prog, tmp_path)


def test_nothing_is_shared_after_load(tmp_path):
    def prog(P, d):
        base = P.arange(6, dtype="float32").reshape([2, 3])
        t = base.transpose([1, 0])
        p = os.path.join(d, "l.pd")
        P.save([base, base, t], p)
        a, b, c = P.load(p)
        a.add_(P.to_tensor(1.0))
        return {"distinct": a is b, "b": b, "c": c, "contig": c.is_contiguous(),
                "versions": [a.inplace_version, b.inplace_version]}

    both(prog, tmp_path)


@pytest.mark.parametrize("dtype", ["bool", "float16", "float32", "float64", "uint8", "int8",
                                   "int16", "int32", "int64", "complex64"])
def test_every_dtype_round_trips(tmp_path, dtype):
    def prog(P, d):
        p = os.path.join(d, "t")
        P.save(P.to_tensor(np.array([[0, 1, 2]]).astype(dtype)), p)
        y = P.load(p)
        return {"y": y, "dtype": str(y.dtype)}

    both(prog, tmp_path)


def test_a_zero_dim_tensor_round_trips(tmp_path):
    def prog(P, d):
        p = os.path.join(d, "s")
        P.save(P.to_tensor(3.0), p)
        y = P.load(p)
        return {"y": y, "shape": list(y.shape)}

    both(prog, tmp_path)


def test_return_numpy_gives_arrays(tmp_path):
    def prog(P, d):
        p = os.path.join(d, "x")
        P.save({"w": P.to_tensor([1.0, 2.0]), "n": 3}, p)
        o = P.load(p, return_numpy=True)
        return {"kind": kind(o["w"]), "w": o["w"], "dtype": str(o["w"].dtype), "n": o["n"]}

    both(prog, tmp_path)


def test_file_objects_and_new_folders(tmp_path):
    def prog(P, d):
        buf = io.BytesIO()
        P.save(P.to_tensor([1.0, 2.0]), buf)
        buf.seek(0)
        y = P.load(buf)
        p = os.path.join(d, "a", "b", "x.pd")
        P.save(P.to_tensor([5.0]), p)
        return {"y": y, "kind": kind(y), "made": os.path.exists(p), "z": P.load(p)}

    both(prog, tmp_path)


@pytest.mark.parametrize("case", ["missing", "empty_name", "protocol", "save_config",
                                  "load_config", "foreign_file"])
def test_errors_match_paddle(tmp_path, case):
    def prog(P, d):
        x = P.to_tensor([1.0])
        if case == "missing":
            return P.load(os.path.join(d, "nope"))
        if case == "empty_name":
            return P.save(x, "")
        if case == "protocol":
            return P.save(x, os.path.join(d, "x"), protocol=1)
        if case == "save_config":
            return P.save(x, os.path.join(d, "x"), foo=1)
        if case == "load_config":
            P.save(x, os.path.join(d, "x"))
            return P.load(os.path.join(d, "x"), foo=1)
        with open(os.path.join(d, "junk"), "wb") as f:  # foreign_file
            f.write(b"hello")
        return P.load(os.path.join(d, "junk"))

    ref = both(prog, tmp_path, prefix=20)
    assert isinstance(ref, Raised)


def test_missing_path_message_names_the_path(tmp_path):
    p = str(tmp_path / "nope")
    with pytest.raises(ValueError, match=r"The ``path`` \(.*nope\) to load model not exists\."):
        ilp.load(p)


def test_set_state_dict_reports_missing_and_mismatched_keys_with_warnings():
    for P in (real, ilp):
        lin = P.nn.Linear(2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = lin.set_state_dict({"weight": P.ones([3, 3]), "extra": P.ones([1])})
        texts = [str(w.message) for w in caught if "Skip loading" in str(w.message)]
        assert [list(x) for x in r] == [["weight", "bias"], ["weight", "extra"]]
        assert texts == [("Skip loading for weight. weight receives a shape [3, 3], but the "
                          "expected shape is [2, 3]."),
                         "Skip loading for bias. bias is not found in the provided dict."]
        with pytest.raises(AssertionError, match="Variable dtype not match"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin.set_state_dict({"weight": P.ones([2, 3], dtype="float64")})


def test_an_inplace_lab_save_file_is_readable_by_paddle_load_too(tmp_path):
    """One format in the library: paddle.load reads what inplace_lab.save wrote (as paddle tensors)."""
    import inplace_lab as il

    p = str(tmp_path / "x")
    il.save({"w": il.arange(3.0, requires_grad=True)}, p)
    o = ilp.load(p)
    assert type(o["w"]) is ilp.Tensor and o["w"].stop_gradient and o["w"].tolist() == [0, 1, 2]


def test_a_crafted_name_field_is_rejected(tmp_path):
    import json

    import inplace_lab as il
    from inplace_lab.io import LoadError

    p = tmp_path / "x"
    il.save(ilp.to_tensor([1.0]), str(p))
    with np.load(str(p)) as z:
        arrays = {k: z[k] for k in z.files}
    manifest = json.loads(bytes(arrays["manifest"]).decode())
    assert manifest["tensors"][0]["name"].startswith("generated_tensor_")
    manifest["tensors"][0]["name"] = 5
    arrays["manifest"] = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
    with open(p, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(LoadError, match="name must be a string"):
        il.load(str(p))
