"""docs/coverage.md is the generator's output, and every Paddle in-place name is reachable."""
from __future__ import annotations

import inplace_lab.paddle as paddle
import inplace_lab.paddle.nn.functional as F
from inplace_lab import coverage
from inplace_lab.paddle import api_names
from inplace_lab.torch import api_names as torch_names


def test_committed_coverage_table_is_current():
    assert coverage.DOC.read_text() == coverage.render(), \
        "docs/coverage.md is stale: run `python -m inplace_lab.coverage` and commit it"


def test_every_paddle_inplace_name_exists_on_the_facade():
    missing = [n for n in api_names.TENSOR_INPLACE if not hasattr(paddle.Tensor, n)]
    missing += [f"paddle.{n}" for n in api_names.MODULE_INPLACE if not hasattr(paddle, n)]
    missing += [f"F.{n}" for n in api_names.FUNCTIONAL_INPLACE if not hasattr(F, n)]
    assert missing == []


def test_every_inplace_name_of_both_frameworks_is_in_the_table():
    text = coverage.render()
    for names in (api_names.TENSOR_INPLACE, api_names.MODULE_INPLACE,
                  api_names.FUNCTIONAL_INPLACE, torch_names.TENSOR_INPLACE,
                  torch_names.MODULE_INPLACE, torch_names.FUNCTIONAL_INPLACE):
        for n in names:
            assert f"| `{n}` |" in text, n


def test_table_rows_say_what_backward_saves():
    rows = {r.split(" | ")[0] + "|" + r.split(" | ")[1]: r for r in coverage.paddle_rows()}
    assert rows["| `exp_`|Tensor"].split(" | ")[5] == "result"
    assert rows["| `sin_`|Tensor"].split(" | ")[5] == "inputs"
    assert rows["| `add_`|Tensor"].split(" | ")[5] == "nothing"
    assert rows["| `scale_`|Tensor"].split(" | ")[2] == "yes"
