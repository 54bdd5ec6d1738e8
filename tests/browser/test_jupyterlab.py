"""The widgets in a real JupyterLab 4 and Chromium: run ``notebooks/tests/inspector.ipynb``
and check what a student would see. Screenshots land in ``test-artifacts/browser/``.

Cells of the notebook, in order (the markdown cell is index 0):
1 setup (%load_ext), 2 %%inplace_trace, 3 il.inspect(a), 4 a later write into a,
5 a graph laid out by the bundled WASM Graphviz, 6 %%inplace_trace with a leaf
in-place error, 7 the same error without the magic.
"""
from __future__ import annotations

import importlib.util

import pytest

from tests.browser.conftest import ARTIFACTS, _missing

TRACE, LIVE, LIVE_WRITE, WASM, MAGIC_ERROR, PLAIN_ERROR = 2, 3, 4, 5, 6, 7
TIMEOUT = 30_000  # ms


@pytest.fixture(scope="module")
def page(lab, browser):
    """The test notebook, opened in JupyterLab and run to the end."""
    base, token, _ = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    pg = ctx.new_page()
    watch(pg, base)
    pg.goto(f"{base}/lab/tree/inspector.ipynb?token={token}")
    pg.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    pg.wait_for_selector("#jp-main-statusbar >> text=Idle", timeout=60_000)
    run_all(pg)
    pg.wait_for_selector("#jp-main-statusbar >> text=Idle", timeout=TIMEOUT)
    yield pg
    pg.screenshot(path=str(ARTIFACTS / "notebook-end.png"), full_page=True)
    ctx.close()


def watch(pg, base: str) -> None:
    """Collect the page's script errors and every request that leaves the server (offline)."""
    pg.page_errors, pg.outside = [], []
    pg.on("pageerror", lambda e: pg.page_errors.append(str(e)))
    pg.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:"))
          else pg.outside.append(r.url))


def run_all(pg) -> None:
    pg.click(".lm-MenuBar-itemLabel:text-is('Run')")
    pg.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    # the last cell's output: the explanation shown by the custom exception handler
    cell(pg, PLAIN_ERROR).locator(".il-explained").wait_for(timeout=60_000)


def cell(pg, i: int):
    return pg.locator(".jp-Notebook .jp-Cell").nth(i)


def shot(locator, name: str) -> None:
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def storage_view(c):
    return c.locator(".il-inspector .il-picture[data-kind='storage']")


def test_notebook_runs_without_page_errors_or_network(page):
    assert page.page_errors == []
    assert page.outside == []  # nothing fetched from a CDN or anywhere but the server
    assert cell(page, TRACE).locator(".il-inspector").count() == 1


def test_storage_tab_draws_the_cells_of_the_storage(page):
    c = cell(page, TRACE)
    pic = storage_view(c)
    pic.locator("svg rect.cell").first.wait_for(timeout=TIMEOUT)
    assert pic.locator("svg rect.cell").count() >= 6  # x's six floats, at least
    assert pic.locator("svg [data-tensor]").count() >= 1
    shot(c.locator(".il-inspector"), "inspector-storage")


def test_slider_moves_the_step_and_the_picture_follows(page):
    c = cell(page, TRACE)
    pic = storage_view(c)
    summary = c.locator(".il-step-summary")
    before_step, before_html = pic.get_attribute("data-step"), pic.inner_html()
    handle = c.locator(".widget-slider .noUi-handle").first
    handle.focus()
    page.keyboard.press("Home")  # noUiSlider's keyboard support: to the first step
    assert before_step != "0"
    wait_step(page, pic, 0)
    assert summary.inner_text().startswith("1/")
    assert pic.inner_html() != before_html
    for k in (1, 2, 3):  # one step at a time, as a student clicks through
        handle.focus()
        page.keyboard.press("ArrowRight")
        wait_step(page, pic, k)
    assert summary.inner_text().startswith("4/")
    assert c.locator(".il-source-line").count() == 1
    shot(c.locator(".il-inspector"), "inspector-step-3")


def wait_step(page, pic, k: int) -> None:
    page.wait_for_function("([el, k]) => el.getAttribute('data-step') === k",
                           arg=[pic.element_handle(), str(k)], timeout=TIMEOUT)


def test_play_button_advances_the_step(page):
    c = cell(page, TRACE)
    pic = storage_view(c)
    start = int(pic.get_attribute("data-step"))
    c.locator(".widget-play button").first.click()  # play
    page.wait_for_function(f"el => Number(el.getAttribute('data-step')) >= {start + 2}",
                           arg=pic.element_handle(), timeout=TIMEOUT)
    c.locator(".widget-play button").first.click()  # the same button pauses


def test_graph_tab_shows_the_backward_graph_svg(page):
    c = cell(page, TRACE)
    c.locator(".widget-slider .noUi-handle").first.focus()
    page.keyboard.press("End")  # the last step: y = (w * x).sum() has a graph
    c.locator(".lm-TabBar-tab:has-text('Graph')").click()
    graph = c.locator(".il-picture[data-kind='graph']")
    graph.locator("svg g.node").first.wait_for(timeout=TIMEOUT)
    assert graph.locator("svg g.node").count() >= 2
    shot(c.locator(".il-inspector"), "inspector-graph")


def test_clicking_a_tensor_selects_it_in_the_other_pictures(page):
    c = cell(page, TRACE)
    c.locator(".lm-TabBar-tab:has-text('Graph')").click()
    graph = c.locator(".il-picture[data-kind='graph']")
    label = "y"  # drawn in the graph (the output) and in the storage picture of the last step
    node = graph.locator(f"[data-tensor='{label}']").first
    node.wait_for(timeout=TIMEOUT)
    node.click()
    page.wait_for_function("el => el.classList.contains('il-selected')", arg=node.element_handle(),
                           timeout=TIMEOUT)
    # the storage picture learns of it through Python (its `selected` traitlet)
    c.locator(".lm-TabBar-tab:has-text('Storage')").click()
    page.wait_for_function(
        "([el, l]) => el.classList.contains('il-has-selection') && "
        "el.getAttribute('data-selected') === l", arg=[storage_view(c).element_handle(), label],
        timeout=TIMEOUT)
    assert storage_view(c).locator(f"[data-tensor='{label}'].il-selected").count() >= 1
    # clicking it again clears the selection everywhere
    storage_view(c).locator(f"[data-tensor='{label}']").first.click()
    page.wait_for_function("el => el.getAttribute('data-selected') === ''",
                           arg=storage_view(c).element_handle(), timeout=TIMEOUT)
    page.wait_for_function("el => el.getAttribute('data-selected') === ''",
                           arg=graph.element_handle(), timeout=TIMEOUT)
    assert graph.locator(".il-selected").count() == 0
    shot(c.locator(".il-inspector"), "inspector-selected")


def test_live_inspector_redraws_after_a_later_cell_writes(page):
    c = cell(page, LIVE)
    pic = storage_view(c)
    # cell 4 ran a[1:3].add_(5): the live picture shows the new values and the new view
    page.wait_for_function("el => el.textContent.includes('5.')", arg=pic.element_handle(),
                           timeout=TIMEOUT)
    assert pic.locator("rect.cell.changed").count() == 2
    shot(c.locator(".il-inspector"), "live-inspector")


def test_graph_without_dot_is_laid_out_by_the_bundled_wasm_graphviz(page):
    c = cell(page, WASM)
    box = c.locator(".il-graph[data-done] svg")
    box.wait_for(timeout=TIMEOUT)
    assert c.locator(".il-graph svg g.node").count() >= 2
    assert page.evaluate("typeof window.Viz") == "object"
    shot(c.locator(".il-picture"), "graph-wasm")


def test_leaf_inplace_error_in_the_magic_shows_the_explanation_not_a_traceback(page):
    c = cell(page, MAGIC_ERROR)
    panel = c.locator(".il-explained[data-error='LeafInplaceError']")
    panel.wait_for(timeout=TIMEOUT)
    assert "Why it is forbidden" in panel.inner_text()
    assert "How to fix it" in panel.inner_text()
    assert panel.locator("svg").count() >= 1  # its pictures (the graph, the storage)
    assert c.locator("[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    details = panel.locator("details.il-traceback")
    assert details.get_attribute("open") is None  # the traceback is one click away
    details.locator("summary").click()
    assert "LeafInplaceError" in details.locator("pre").inner_text()
    assert c.locator(".il-inspector .lm-TabBar-tab:has-text('Error')").count() == 1
    shot(c.locator(".jp-Cell-outputWrapper"), "magic-error")


def test_inplace_lab_error_outside_the_magic_is_explained_too(page):
    c = cell(page, PLAIN_ERROR)
    panel = c.locator(".il-explained[data-error='LeafInplaceError']")
    panel.wait_for(timeout=TIMEOUT)
    assert c.locator("[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    assert c.locator(".il-inspector").count() == 0
    shot(c.locator(".jp-Cell-outputWrapper"), "plain-error")


def test_dark_theme_keeps_the_pictures_readable(page):
    page.click(".lm-MenuBar-itemLabel:text-is('Settings')")
    page.click(".lm-Menu-itemLabel:text-is('Theme')")
    page.click(".lm-Menu-itemLabel:text-is('JupyterLab Dark')")
    page.wait_for_function("document.body.dataset.jpThemeLight === 'false'", timeout=TIMEOUT)
    c = cell(page, TRACE)
    c.locator(".lm-TabBar-tab:has-text('Storage')").click()
    pic = storage_view(c)
    # the picture paints its own paper: white behind dark ink whatever the theme
    assert pic.locator("svg > rect").first.get_attribute("fill").upper() == "#FFFFFF"
    shot(c.locator(".il-inspector"), "inspector-dark")
    shot(cell(page, MAGIC_ERROR).locator(".jp-Cell-outputWrapper"), "magic-error-dark")


def test_notebook_7_shows_the_same_widgets(lab, browser):
    if importlib.util.find_spec("notebook") is None:
        _missing("Notebook 7 is not installed (pip install -e '.[dev]')")
    base, token, _ = lab
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    pg = ctx.new_page()
    watch(pg, base)
    try:
        pg.goto(f"{base}/notebooks/inspector_nb7.ipynb?token={token}")
        pg.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        # the kernel's name shows once a session exists; then wait for it to be idle
        pg.wait_for_function("document.querySelector('[title=\"Python 3 (ipykernel)\"]') && "
                             "document.querySelector('.jp-Notebook-ExecutionIndicator"
                             "[data-status=idle]')", timeout=60_000)
        pg.page_errors.clear()  # Notebook 7.6 logs one settings-schema error of its own at start
        run_all(pg)
        storage = storage_view(cell(pg, TRACE))
        storage.locator("svg rect.cell").first.wait_for(timeout=TIMEOUT)
        cell(pg, WASM).locator(".il-graph[data-done] svg").wait_for(timeout=TIMEOUT)
        assert cell(pg, MAGIC_ERROR).locator(".il-explained[data-error='LeafInplaceError']").count() == 1
        assert pg.page_errors == [] and pg.outside == []
        pg.screenshot(path=str(ARTIFACTS / "notebook7.png"), full_page=True)
    finally:
        ctx.close()
