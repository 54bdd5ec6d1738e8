"""The benchmark suite's smoke mode: it runs, writes valid JSON, and every section is there.

Benchmarks are not unit tests: no figure is asserted to meet its target here (that is what
``make bench`` and benchmarks/RESULTS.md are for). This checks the suite itself works, so
``make bench`` does not rot: every section either reports figures or says why it skipped,
no section crashed, each figure with a target carries a pass/miss marker, and the hooks
compiled-out build used by section 6 leaves the library's behaviour unchanged.
"""
import json
import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed

from benchmarks import run  # noqa: E402
from benchmarks.compiled_out import CompiledOut  # noqa: E402

SECTION_KEYS = ["small_ops", "inplace_large", "outofplace_large", "training", "memory",
                "instrumentation", "renderers", "gpu"]


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "smoke.json"
    rc = run.main(["--smoke", "--json", str(out), "--keep-openblas-env"])
    with open(out) as f:
        d = json.load(f)
    d["_rc"] = rc
    return d


def test_every_section_present_and_none_crashed(doc):
    assert doc["_rc"] == 0
    assert [s["key"] for s in doc["sections"]] == SECTION_KEYS
    assert [s["id"] for s in doc["sections"]] == list(range(1, 9))
    for s in doc["sections"]:
        assert s["error"] is None, (s["key"], s["error"])
        assert s["results"] or s["skipped"], s["key"]


def test_results_are_well_formed(doc):
    for s in doc["sections"]:
        for r in s["results"]:
            assert isinstance(r["value"], (int, float)) and math.isfinite(r["value"]), r
            assert r["op"] in ("<=", "==")
            if r["target"] is None:
                assert r["passed"] is None
            else:
                want = r["value"] == r["target"] if r["op"] == "==" else \
                    r["value"] <= r["target"]
                assert r["passed"] is want, r


def test_core_sections_measured_something(doc):
    by = {s["key"]: s for s in doc["sections"]}
    names = [r["name"] for r in by["small_ops"]["results"]]
    assert any("forward: inplace_lab / torch" in n for n in names)
    assert any("forward+backward: inplace_lab / torch" in n for n in names)
    assert len(by["inplace_large"]["results"]) == 6  # add_, mul_, relu_: time and bytes
    lesson = [r for r in by["memory"]["results"] if "tracked peak - expected" in r["name"]]
    assert [r["value"] for r in lesson] == [0, 0]  # tracked accounting is exact to the byte
    assert by["instrumentation"]["results"]


def test_meta_and_profile(doc):
    meta = doc["meta"]
    for k in ("date", "command", "cpu", "cores", "numpy", "torch", "openblas_env_before_run"):
        assert k in meta
    assert meta["mode"] == "smoke"
    prof = doc["profile"]
    assert set(prof) == {"forward", "forward+backward"}
    for p in prof.values():
        assert p["profiled_us_per_op"] > 0 and p["top"] and p["areas"]
        assert abs(sum(a["share"] for a in p["areas"].values()) - 1) < 0.01


def test_compiled_out_build_keeps_semantics():
    import inplace_lab as il

    def program():
        x = il.ones(3, requires_grad=True)
        y = (x * 2).tanh()
        y.sum().backward()
        z = il.zeros(2)
        z.add_(1)
        return x.grad.tolist(), z._version, type(y.grad_fn).__name__

    seen = []
    expected = program()
    comp = CompiledOut()
    assert any(n.endswith("dispatch.call") for n in comp.names)
    with comp:
        h = il.hooks.subscribe(seen.append)
        try:
            assert program() == expected
        finally:
            il.hooks.unsubscribe(h)
    assert not any(e.event == "op" and e.op == "add" for e in seen)  # the op events are gone
    seen.clear()
    h = il.hooks.subscribe(seen.append)
    try:
        program()
    finally:
        il.hooks.unsubscribe(h)
    assert any(e.event == "op" and e.op == "add" for e in seen)  # and back after the block


def test_a_skipped_gpu_section_shows_the_last_gpu_runs_figures(doc):
    """RESULTS.md on a machine without a GPU carries section 8 from results_gpu.json, marked
    as another machine's and left out of the totals."""
    from benchmarks import report

    gpu_meta = dict(doc["meta"], gpu="NVIDIA H200", cpu="Some Xeon", date="2026-12-04")
    row = {"name": "add_ on 10 float32", "value": 1.25, "unit": "x", "target": 1.1, "op": "<=",
           "detail": {}, "note": "", "passed": False}
    gpu_doc = {"meta": gpu_meta, "sections": [{"id": 8, "key": "gpu", "title": "GPU",
                                               "skipped": None, "error": None, "notes": [],
                                               "seconds": 1.0, "results": [row]}]}
    assert next(s for s in doc["sections"] if s["key"] == "gpu")["skipped"]
    md = report.markdown(doc, None, gpu_doc)
    part = md.split("## 8.")[1]
    assert "Measured on another machine, the last one with a GPU: NVIDIA H200, Some Xeon" in part
    assert "| add_ on 10 float32 | 1.250x | <= 1.100x | MISS |" in part
    assert md.split("## 8.")[0] == report.markdown(doc, None).split("## 8.")[0]  # totals as before
    assert "1.250x" not in report.markdown(doc, None)
