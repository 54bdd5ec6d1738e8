"""Safe save/load: values, sharing (storage, strides, offsets, _base), state dicts, rejection."""
from __future__ import annotations

import io as _io
import json
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.nn as nn
import inplace_lab.optim as optim
from inplace_lab.io import LoadError


def _roundtrip(obj, tmp_path):
    p = tmp_path / "obj.il"
    il.save(obj, p)
    return il.load(p)


def test_two_views_of_one_storage_load_as_two_views_of_one_new_storage(tmp_path):
    x = il.arange(12.0).reshape(3, 4)
    col, row = x[:, 1], x[2]
    d = _roundtrip({"col": col, "row": row}, tmp_path)
    assert d["col"].untyped_storage() is d["row"].untyped_storage()
    assert d["col"].untyped_storage() is not x.untyped_storage()
    for k, t in (("col", col), ("row", row)):
        assert d[k].stride() == t.stride() and d[k].storage_offset() == t.storage_offset()
        assert d[k].tolist() == t.tolist()
    d["row"][1] = -1.0  # they really alias: the write shows through the other view
    assert d["col"][2].item() == -1.0
    assert d["col"]._version == d["row"]._version == 1  # and share one version counter


def test_a_view_whose_base_was_saved_gets_its_base_back(tmp_path):
    x = il.arange(6.0)
    v = x[1:4]
    d = _roundtrip([v, x], tmp_path)
    assert d[0]._base is d[1] and d[0]._is_view()
    lone = _roundtrip(x.clone(), tmp_path)
    assert lone._base is None and lone.tolist() == x.tolist()


def test_the_same_tensor_twice_loads_as_one_object(tmp_path):
    t = il.ones(2)
    a, b = _roundtrip((t, t), tmp_path)
    assert a is b


def test_model_and_optimizer_state_dicts_round_trip(tmp_path):
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    opt = optim.Adam(m.parameters(), lr=0.1)
    m(il.randn(5, 3)).sum().backward()
    opt.step()
    d = _roundtrip({"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 3}, tmp_path)
    assert isinstance(d["model"], OrderedDict) and list(d["model"]) == list(m.state_dict())
    m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    m2.load_state_dict(d["model"])
    for (k, a), b in zip(m.state_dict().items(), m2.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    assert d["model"]["1.num_batches_tracked"].dtype == il.int64
    opt2 = optim.Adam(m2.parameters(), lr=0.1)
    opt2.load_state_dict(d["opt"])
    assert opt2.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    assert d["epoch"] == 3 and list(d["opt"]["state"]) == [0, 1, 2, 3]


def test_parameters_requires_grad_dtypes_and_scalars_survive(tmp_path):
    obj = {"p": nn.Parameter(il.ones(2)), "g": il.ones(2, requires_grad=True),
           "i": il.tensor([1, 2], dtype=il.int32), "b": il.tensor([True]),
           "h": il.ones(2, dtype=il.float16), "nums": [1, 2.5, None, "s", True, (3,)]}
    d = _roundtrip(obj, tmp_path)
    assert isinstance(d["p"], nn.Parameter) and d["p"].requires_grad
    assert d["g"].requires_grad and d["g"].is_leaf
    assert [d[k].dtype for k in "ibh"] == [il.int32, il.bool, il.float16]
    assert d["nums"] == [1, 2.5, None, "s", True, (3,)]


def test_unsupported_objects_are_refused_at_save(tmp_path):
    with pytest.raises(TypeError, match="cannot store an object of type object"):
        il.save({"x": object()}, tmp_path / "x.il")


def _tamper(path, edit):
    with zipfile.ZipFile(path) as z:
        files = {n: z.read(n) for n in z.namelist()}
    man = np.load(_io.BytesIO(files["manifest.npy"]), allow_pickle=False)
    m = json.loads(bytes(man).decode())
    edit(m, files)
    buf = _io.BytesIO()
    np.save(buf, np.frombuffer(json.dumps(m).encode(), dtype=np.uint8))
    files["manifest.npy"] = buf.getvalue()
    with zipfile.ZipFile(path, "w") as z:
        for n, b in files.items():
            z.writestr(n, b)


@pytest.mark.parametrize("edit,msg", [
    (lambda m, f: m["tensors"][0].update(offset=100), "reaches past the end of storage"),
    (lambda m, f: m["tensors"][0].update(dtype="object"), "does not match its storage"),
    (lambda m, f: m["tensors"][0].update(shape=[-1]), "size must be an integer >= 0"),
    (lambda m, f: m.update(format="pickle"), "unknown format"),
    (lambda m, f: m["root"].update(t="eval"), "unknown node type 'eval'"),
    (lambda m, f: m["tensors"][0].update(storage=5), "storage 5 does not exist"),
])
def test_crafted_files_are_rejected_with_a_clear_error(tmp_path, edit, msg):
    p = tmp_path / "t.il"
    il.save(il.arange(4.0), p)
    _tamper(p, edit)
    with pytest.raises(LoadError, match=msg):
        il.load(p)


def test_pickled_arrays_and_garbage_are_rejected_without_running_code(tmp_path):
    p = tmp_path / "evil.npz"
    np.savez(p, manifest=np.array([object()], dtype=object))
    with pytest.raises(LoadError, match="corrupted or unsafe file"):
        il.load(p)
    g = tmp_path / "garbage.il"
    g.write_bytes(b"not a zip at all")
    with pytest.raises(LoadError):
        il.load(g)
    truncated = tmp_path / "trunc.il"
    il.save(il.ones(100), truncated)
    truncated.write_bytes(truncated.read_bytes()[:200])
    with pytest.raises(LoadError):
        il.load(truncated)


def test_save_to_a_file_object(tmp_path):
    buf = _io.BytesIO()
    il.save([il.ones(2)], buf)
    buf.seek(0)
    assert il.load(buf)[0].tolist() == [1.0, 1.0]
