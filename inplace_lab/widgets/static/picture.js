// Front end of inplace_lab.widgets.PictureView (an anywidget ES module).
//
// Shows one picture (SVG or HTML from inplace_lab.viz) and makes it clickable: an
// element carrying data-tensor="<label>" selects that tensor; the label goes back to
// Python in the `selected` traitlet, Python hands it to the other pictures, and each
// picture outlines its own elements with that label and dims the rest.
//
// A graph drawn without the `dot` executable arrives as <div class="il-graph"
// data-dot="...">: it is laid out here by the WASM Graphviz bundled with inplace_lab
// (sent once by Python in `viz_js`), never fetched from a network.

function loadViz(model) {
  if (window.Viz) return true;
  const js = model.get("viz_js");
  if (!js) return false;
  const s = document.createElement("script");
  s.setAttribute("data-inplace-lab", "viz");
  s.textContent = js;  // defines window.Viz (UMD build, wasm inlined)
  document.head.appendChild(s);
  return !!window.Viz;
}

function layoutGraphs(model, box) {
  const pending = box.querySelectorAll(".il-graph[data-dot]:not([data-done])");
  if (!pending.length) return;
  if (!loadViz(model)) return;  // laid out when viz_js arrives
  window.Viz.instance().then((viz) => {
    pending.forEach((g) => {
      if (g.getAttribute("data-done")) return;
      g.setAttribute("data-done", "1");
      g.textContent = "";
      try {
        g.appendChild(viz.renderSVGElement(g.getAttribute("data-dot")));
        annotate(model, g);
      } catch (e) {
        g.textContent = "graph layout failed: " + e;
      }
    });
    applySelection(model, box);
  });
}

function annotate(model, root) {
  // Graphviz output cannot carry data-* attributes: Python sends element id -> tensor
  // label for the graph's tensor boxes, and they get data-tensor here.
  const ids = model.get("tensor_ids") || {};
  for (const [id, label] of Object.entries(ids)) {
    const node = root.querySelector('[id="' + CSS.escape(id) + '"]');
    if (node) node.setAttribute("data-tensor", label);
  }
}

function tensorOf(el) {
  return el.getAttribute ? el.getAttribute("data-tensor") : null;
}

function applySelection(model, box) {
  const sel = model.get("selected");
  let found = false;
  box.querySelectorAll("[data-tensor]").forEach((el) => {
    const on = !!sel && tensorOf(el) === sel;
    el.classList.toggle("il-selected", on);
    found = found || on;
  });
  // dim the others only where the selected tensor is drawn: a picture without it stays as is
  box.classList.toggle("il-has-selection", found);
  box.setAttribute("data-selected", sel || "");
}

function render({ model, el }) {
  el.classList.add("il-picture-view");
  const box = document.createElement("div");
  box.className = "il-picture";
  el.appendChild(box);

  const draw = () => {
    box.setAttribute("data-kind", model.get("kind"));
    box.setAttribute("data-step", String(model.get("step")));
    box.innerHTML = model.get("html");
    annotate(model, box);
    layoutGraphs(model, box);
    applySelection(model, box);
  };
  box.addEventListener("click", (ev) => {
    let t = ev.target;
    while (t && t !== box && tensorOf(t) === null) t = t.parentNode;
    if (!t || t === box) return;
    const label = tensorOf(t);
    model.set("selected", model.get("selected") === label ? "" : label);
    model.save_changes();
  });
  const handlers = {
    "change:html": draw,
    // the same picture can stand for several steps (a free changes no layout)
    "change:step": () => box.setAttribute("data-step", String(model.get("step"))),
    "change:viz_js": () => layoutGraphs(model, box),
    "change:selected": () => applySelection(model, box),
  };
  for (const [ev, fn] of Object.entries(handlers)) model.on(ev, fn);
  draw();
  return () => {
    for (const [ev, fn] of Object.entries(handlers)) model.off(ev, fn);
  };
}

export default { render };
