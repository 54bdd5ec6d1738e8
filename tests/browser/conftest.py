"""A real JupyterLab and a real Chromium for the widget tests.

``lab``: a JupyterLab server on 127.0.0.1 (free port, random token, a temporary root
holding copies of ``notebooks/tests/*.ipynb``, its own config/runtime/settings dirs so
the developer's Jupyter setup cannot leak in). ``browser``: Debian's Chromium driven by
Playwright (``executable_path``; Playwright's own browser download is never used).

Outside CI the tests are skipped only when no Chromium (or no Playwright) is present;
with CI=true a missing browser is a failure, never a skip.
"""
from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def find_chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        path = shutil.which(name) if not os.path.isabs(name) else (name if os.path.exists(name) else None)
        if path:
            return path
    return None


def _missing(what: str):
    if _in_ci():
        pytest.fail(f"{what} (CI=true: the browser tests must run; .ci/run installs chromium)")
    pytest.skip(what)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path():
    path = find_chromium()
    if path is None:
        _missing("no Chromium on this machine (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[dev]')")
    return path


@pytest.fixture(scope="session")
def lab(tmp_path_factory, chromium_path):
    """(base url, token, root dir) of a running JupyterLab."""
    home = tmp_path_factory.mktemp("lab")
    root = home / "root"
    root.mkdir()
    for nb in (ROOT / "notebooks" / "tests").glob("*.ipynb"):
        shutil.copy(nb, root / nb.name)
        shutil.copy(nb, root / f"{nb.stem}_nb7.ipynb")  # Notebook 7 opens its own copy
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    _lab_settings(home / "settings")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.news_url=", "--ServerApp.open_browser=False"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(home / "server.log", "wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/api/status?token={token}", proc, home / "server.log")
        yield base, token, root
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(home / "server.log", ARTIFACTS / "jupyterlab-server.log")


def _lab_settings(settings: Path) -> None:
    """No news or update checks (offline), and no first-visit dialogs over the notebook."""
    d = settings / "@jupyterlab" / "apputils-extension"
    d.mkdir(parents=True, exist_ok=True)
    (d / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}')


def _wait_for(url: str, proc, logfile: Path, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited early:\n{logfile.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"JupyterLab did not answer in {timeout}s:\n{logfile.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
