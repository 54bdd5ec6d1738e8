"""Renderer tests save every picture as PNG under test-artifacts/viz/ (gitignored), so a
person can look at what the assertions checked."""
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "viz"

EVIL = "<script>alert(1)</script>"


@pytest.fixture
def artifact():
    """``artifact(picture, "name")``: write name.png (and name.svg / name.html) and return it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def save(pic, name):
        if hasattr(pic, "svg") and pic.svg is not None:
            pic.save(ARTIFACTS / f"{name}.svg")
            try:
                pic.save(ARTIFACTS / f"{name}.png")
            except ImportError:  # cairosvg is in the dev extra
                pass
        else:
            pic.save(ARTIFACTS / f"{name}.html")
        return pic

    return save
