"""The recorded in-place API names are what torch 2.13 and paddle 3.3.1 really export."""
from __future__ import annotations

import pytest

from scripts import snapshot_framework_api as snap


def test_torch_names_match_torch():
    pytest.importorskip("torch")
    from inplace_lab.torch import api_names

    for key, vals in snap.torch_names().items():
        assert tuple(vals) == getattr(api_names, key), key


def test_paddle_names_match_paddle():
    pytest.importorskip("paddle")
    from inplace_lab.paddle import api_names

    for key, vals in snap.paddle_names().items():
        want = getattr(api_names, key)
        assert (vals if isinstance(vals, dict) else tuple(vals)) == want, key


def test_paddle_has_no_module_level_add_inplace():
    from inplace_lab.paddle import api_names

    assert "add_" in api_names.TENSOR_INPLACE and "add_" not in api_names.MODULE_INPLACE
    assert len(api_names.TENSOR_INPLACE) == 123
