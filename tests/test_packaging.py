"""The newcomer's path works: README's example runs as written, the tour notebook executes,
the package installs every subpackage, and README's picture is drawn from real tensors."""
import doctest
import importlib.util
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _load_make_assets():
    spec = importlib.util.spec_from_file_location("make_assets", ROOT / "assets" / "make_assets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_python_example_runs_and_prints_what_it_shows():
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks, "README has no ```python block"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README.md[python block {i}]", "README.md", 0)
        assert test.examples, "README's python block has no >>> examples"
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0


def test_readme_gives_exactly_two_setup_commands_and_the_makefile_has_them():
    setup = README.split("## Set up", 1)[1].split("##", 1)[0]
    block = re.search(r"```\n(.*?)```", setup, flags=re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["make lab", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab:", makefile, flags=re.M) and re.search(r"^test:", makefile, flags=re.M)


def test_every_package_directory_is_a_regular_package_so_setuptools_ships_it():
    # setuptools' find (not find_namespace) skips a directory without __init__.py,
    # so a subpackage missing one would vanish from an installed wheel.
    pkg = ROOT / "inplace_lab"
    for d in [pkg, *(p for p in pkg.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        if any(d.glob("*.py")):
            assert (d / "__init__.py").exists(), f"{d.relative_to(ROOT)} has no __init__.py"


def test_oracle_extra_pins_exact_cpu_reference_versions():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    assert project["optional-dependencies"]["oracle"] == ["torch==2.13.0", "paddlepaddle==3.3.1"]


def test_storage_picture_shows_each_view_with_the_cells_it_covers():
    ma = _load_make_assets()
    views = ma.make_views()
    names = [n for n, _ in views]
    assert names == ["x", "x.t()", "x[:, 1]"]
    x = views[0][1]
    assert all(v.untyped_storage() is x.untyped_storage() for _, v in views)
    dot = ma.storage_dot(views)
    assert "cells [0, 1, 2, 3, 4, 5]" in dot
    assert "cells [0, 3, 1, 4, 2, 5]" in dot
    assert "cells [1, 4]" in dot
    assert "strides (1, 3)" in dot and "offset 1" in dot
    assert f"_version = {x._version}" in dot and x._version == 1
    # the transpose's element [1,0] lives in storage cell 1
    assert ma.covered(views[1][1])[1] == (1, 0)


def test_storage_picture_renders_to_png_and_svg(tmp_path):
    if shutil.which("dot") is None:
        if os.environ.get("CI"):
            pytest.fail("graphviz's dot is missing on CI: .ci/run should have installed it")
        pytest.skip("graphviz's dot executable not installed (apt-get install graphviz)")
    ma = _load_make_assets()
    png, svg = ma.render(ma.storage_dot(), tmp_path / "storage")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert "<svg" in text and "x.t()" in text and "_version = 1" in text


def test_committed_picture_exists():
    assert (ROOT / "assets" / "storage.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "assets/storage.png" in README


def test_tour_notebook_executes_top_to_bottom(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    # the kernel must import this checkout even when it is not pip-installed
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    path = ROOT / "notebooks" / "01_tour.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    html = "\n".join(o.get("data", {}).get("text/html", "") for c in nb.cells
                     if c.cell_type == "code" for o in c.outputs)
    # the leaf error cell (tagged raises-exception) shows its explanation panel
    assert "a leaf Variable that requires grad is being used in an in-place operation." in html
    assert "x._version = 1   t._version = 1   col._version = 1" in text
    assert "w is untouched: [1.0, 1.0, 1.0] version 0" in text
