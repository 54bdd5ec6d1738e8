"""The README's main command, ``make lab``, serves JupyterLab opening the first lesson."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from tests.notebooks.runner import ROOT

FIRST_LESSON = "01_tour.ipynb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = 5.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode("utf-8", "replace")


def test_readme_and_makefile_point_at_the_first_lesson():
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"^make lab\b.*first lesson", readme, re.M)
    assert f"--LabApp.default_url=/lab/tree/{FIRST_LESSON}" in (ROOT / "Makefile").read_text()
    assert (ROOT / "notebooks" / FIRST_LESSON).exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lab_serves_jupyterlab_on_the_first_lesson():
    port = _free_port()
    env = dict(os.environ, LAB_ARGS=f"--no-browser --port {port} --ServerApp.token='' "
                                    "--ServerApp.password=''")
    proc = subprocess.Popen(["make", "lab"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, page = _get(f"{base}/lab/tree/{FIRST_LESSON}")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read().decode("utf-8", "replace") if proc.poll() is not None else ""
                    pytest.fail(f"JupyterLab did not come up on port {port}:\n{out[-3000:]}")
                time.sleep(0.5)
        assert status == 200 and "JupyterLab" in page
        status, body = _get(f"{base}/api/contents/{FIRST_LESSON}")
        model = json.loads(body)
        assert status == 200 and model["type"] == "notebook"
        assert model["content"]["cells"][0]["source"].startswith("# Lesson 1")
        # the server's root (what `make lab` opens in a browser) redirects to the first lesson
        with urllib.request.urlopen(f"{base}/", timeout=5) as r:
            assert r.geturl() == f"{base}/lab/tree/{FIRST_LESSON}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
