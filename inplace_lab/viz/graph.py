"""The backward graph as Graphviz DOT: grad_fn nodes, AccumulateGrad sinks, saved tensors.

    pic = inplace_lab.viz.graph(loss)           # or an error, a grad_fn, a list of tensors
    pic.model.highlighted                        # node ids drawn in the error colour
    pic.to_svg()                                 # via the `dot` executable
    pic.save("graph.html")                       # laid out in the browser when dot is missing

Edges point the way gradients flow: from the output down to the leaves. Saved
tensors hang off the node that saved them with the version it recorded and the
version now (red when they differ, which is what backward will refuse); a saved
tensor that is a leaf is drawn once, as the leaf. Views point to their base with a
dotted edge. Long linear chains collapse into one box, so a 1,000-node graph stays
readable and lays out in well under a second.

For an error, ``graph(error)`` draws the graph the error is about and highlights:

- a leaf in-place error: the leaf, its AccumulateGrad node and every node that saved
  the leaf, with one sentence saying why the write is forbidden;
- a saved-tensor error: the saved tensor, the node that saved it, and the in-place op
  that modified it (from the error's trace when it was recorded, else from the live
  tensors that share the saved tensor's version counter).

Layout is Graphviz's (the ``graphviz`` package builds the DOT); there is no
hand-written layout here.
"""
from __future__ import annotations

import gc
import html
import shutil
from dataclasses import dataclass, field

from ..autograd.node import AccumulateGrad, Node
from ..autograd.saved import SavedTensor
from ..errors import InplaceLabError, LeafInplaceError, SavedTensorModifiedError
from ..tensor import Tensor
from .svg import Picture
from .theme import FONT, ROLE, TINT

AUTO_COLLAPSE = 60  # graphs with more op nodes than this collapse their linear chains
MIN_CHAIN = 3  # shortest run of nodes worth collapsing
MAX_OPS = 40  # a collapsed graph draws at most this many op boxes; one box stands for the rest


@dataclass
class GraphModel:
    """What was drawn: for tests, widgets and ``explain``."""

    nodes: dict = field(default_factory=dict)  # id -> {"label", "kind", "name"}
    edges: list = field(default_factory=list)  # (from id, to id, kind)
    highlighted: list = field(default_factory=list)  # ids drawn in the error colour
    sentence: str = ""  # the one-sentence explanation (errors)
    collapsed: int = 0  # op nodes hidden inside collapsed chains
    modifier: str = ""  # the in-place op that modified a saved tensor, if known

    def ids_of(self, kind: str) -> list:
        return [i for i, n in self.nodes.items() if n["kind"] == kind]

    def names_of(self, ids) -> list:
        return [self.nodes[i]["name"] for i in ids]


def graph(obj, show_saved: bool = True, *, names: dict | None = None, collapse=None,
          trace=None, layout: str = "auto") -> Picture:
    """Draw the backward graph of a tensor, tensors, grad_fn node or inplace_lab error.

    ``names``: {tensor: label} (defaults: the caller's variable names, then
    ``tensor.name``). ``collapse``: ``True``/``False`` or ``None`` for automatic
    (graphs with more than ``AUTO_COLLAPSE`` op nodes). ``layout``: ``"auto"`` (the
    ``dot`` executable when present), ``"dot"`` or ``"browser"`` (HTML only).
    """
    b = _Builder(show_saved, _names(names))
    err = obj if isinstance(obj, InplaceLabError) else None
    trace = trace if trace is not None else getattr(err, "trace", None)
    if err is not None:
        roots = b.from_error(err, trace)
    else:
        roots = b.from_objects(obj)
    b.walk(roots, collapse)  # collapse=False draws every node (dot may then take long)
    dot = b.dot()
    svg = None
    if layout == "dot" or (layout == "auto" and has_dot()):
        svg = _strip_xml_header(dot.pipe(format="svg", encoding="utf-8"))
    return Picture(svg, "graph", b.model, dot=dot.source, title="backward graph")


def has_dot() -> bool:
    """Is Graphviz's ``dot`` executable on PATH (server-side SVG)?"""
    return shutil.which("dot") is not None


# ---- building -------------------------------------------------------------------------------

class _Builder:
    def __init__(self, show_saved, names):
        self.show_saved = show_saved
        self.names = names
        self.model = GraphModel()
        self.ids: dict[int, str] = {}  # id(node or tensor) -> dot id
        self.keep: list = []  # objects whose id() we used (keep them alive while building)
        self.hi: set = set()  # objects to highlight
        self.outputs: list = []  # tensors drawn at the top
        self.saved_bad: set = set()  # id(SavedTensor) of the saved tensor an error is about
        self.freed_numbers = False  # the error is the freed-graph one (numbers freed too)
        self.lines: list = []  # (kind, args) collected, emitted in dot()
        self.pending_saved: list = []  # (node id, name, SavedTensor)

    # -- where to start -----------------------------------------------------------------------
    def from_objects(self, obj) -> list:
        items = obj if isinstance(obj, (list, tuple)) else [obj]
        roots = []
        for it in items:
            if isinstance(it, Tensor):
                self.outputs.append(it)
                node = _sink(it)
                if node is not None:
                    roots.append(node)
            elif isinstance(it, Node):
                roots.append(it)
            else:
                raise TypeError(f"graph(): expected a Tensor, a grad_fn node or an inplace_lab "
                                f"error, got {type(it).__name__}")
        return roots

    def from_error(self, err, trace) -> list:
        if isinstance(err, LeafInplaceError):
            return self._leaf_error(err)
        if isinstance(err, SavedTensorModifiedError):
            return self._saved_error(err, trace)
        t = err.info.get("tensor")
        roots = list(err.info.get("roots") or [])
        node = err.info.get("node")
        if isinstance(node, Node):  # (the freed-graph error: the node whose saved values are gone)
            self.hi.add(id(node))
            self.saved_bad.update(id(s) for s in node.saved_tensors_info().values())
            self.freed_numbers = True
        if isinstance(t, Tensor):
            self.hi.add(id(t))
            self.outputs.append(t)
            node = _sink(t)
            if node is not None:
                roots.append(node)
        self.model.sentence = _first_sentence(err.why) or str(err)
        return roots

    def _leaf_error(self, err) -> list:
        t = err.info.get("tensor")
        leaf = err.info.get("leaf")
        leaf = t if leaf is None else leaf
        acc = _sink(leaf)
        savers = _savers_of([x for x in {id(leaf): leaf, id(t): t}.values()])
        users = _consumers_of(acc) if acc is not None else []
        self.hi.update({id(leaf), id(t)} | ({id(acc)} if acc is not None else set()))
        self.hi.update(id(n) for n in savers)
        self.leaf_error = leaf
        roots = _uniq(savers + users + ([acc] if acc is not None else []))
        roots = _climb(roots)
        lname = self.name_of(leaf)
        which = _and([n.name() for n in savers])
        saved_part = (f" and {which} saved its value for backward" if savers else "")
        self.model.sentence = (
            f"{lname} is a leaf that requires grad: its AccumulateGrad node adds the gradient "
            f"into {lname}.grad{saved_part}, so overwriting it in place would destroy the value "
            f"backward needs, with no earlier node to send the gradient to.")
        if t is not leaf:
            self.model.sentence = (f"{self.name_of(t)} is a view of the leaf {lname}: writing "
                                   f"into it writes into {lname}. ") + self.model.sentence
        return roots

    def _saved_error(self, err, trace) -> list:
        saved = err.info.get("saved")
        failing = err.info.get("grad_fn")
        roots = list(err.info.get("roots") or [])
        if failing is not None:
            roots.append(failing)
            self.hi.add(id(failing))
        if saved is not None:
            self.saved_bad.add(id(saved))
            mod_node, mod_text = _modifier(saved, failing, trace)
            if mod_node is not None:
                self.hi.add(id(mod_node))
                roots.append(mod_node)
            self.model.modifier = mod_text
            who = failing.name() if failing is not None else saved.node_name
            by = f" by {mod_text}" if mod_text else " by an in-place op"
            self.model.sentence = (
                f"{who} saved {saved.name} at version {saved.version} for its backward formula, "
                f"but it was modified{by} and is now at version {saved.current_version}, so "
                f"backward would read the wrong values.")
        return _uniq(roots)

    # -- walking ------------------------------------------------------------------------------
    def walk(self, roots, collapse) -> None:
        """Draw every reachable node, or for a big graph: linear chains as one box each,
        then at most ``MAX_OPS`` op boxes (breadth first from the output, highlighted
        ones always) and one box standing for all the rest."""
        order, children = _reachable(roots)
        ops = [n for n in order if not isinstance(n, AccumulateGrad)]
        if collapse is None:
            collapse = len(ops) > AUTO_COLLAPSE
        chains = _chains(order, children, self.hi, self.saved_bad) if collapse else {}
        rep = {}  # id(node) -> the key of the box that shows it
        for head, chain in chains.items():
            for n in chain:
                rep[id(n)] = head
        heads = [n for n in order if id(n) not in rep or rep[id(n)] == id(n)]
        kept, rest, n_ops = [], [], 0
        for n in heads:
            is_op = not isinstance(n, AccumulateGrad)
            if collapse and is_op and n_ops >= MAX_OPS and id(n) not in self.hi:
                rest.append(n)
                continue
            n_ops += is_op
            kept.append(n)
        self.model.collapsed = sum(len(c) for c in chains.values())
        if rest:
            hidden = [m for n in rest for m in chains.get(id(n), [n])]
            self.model.collapsed += len(hidden)
            for m in hidden:
                rep[id(m)] = "rest"
        for node in kept:
            chain = chains.get(id(node))
            if chain is not None:
                self.add_chain(chain)
            else:
                self.add_node(node)
        for args in self.pending_saved:
            self.add_saved(*args)
        if rest:
            self.add_group("rest", hidden)
        for t in self.outputs:
            self.add_output(t)
        seen = set()

        def link(src_key, nxt):
            key = rep.get(id(nxt), id(nxt))
            dst = self.ids.get(key if key != "rest" else id("rest"))
            if dst is not None and dst != self.ids[src_key] and (src_key, dst) not in seen:
                seen.add((src_key, dst))
                self.edge(self.ids[src_key], dst, "grad")

        for node in kept:
            for inner in chains.get(id(node), [node]):
                for nxt, _ in inner.next_functions:
                    if nxt is not None:
                        link(id(node), nxt)
        if rest:
            for m in hidden:
                for nxt, _ in m.next_functions:
                    if nxt is not None and rep.get(id(nxt)) != "rest":
                        link(id("rest"), nxt)

    # -- elements -----------------------------------------------------------------------------
    def new_id(self, obj, prefix) -> str:
        key = id(obj)
        if key not in self.ids:
            self.ids[key] = f"{prefix}{len(self.ids)}"
            self.keep.append(obj)
        return self.ids[key]

    def add_node(self, node) -> None:
        nid = self.new_id(node, "n")
        hi = id(node) in self.hi
        if isinstance(node, AccumulateGrad):
            name = "AccumulateGrad" if node.name().startswith("torch") else node.name()
            self.add(nid, _html_label(name, ""), "accumulate", name, hi,  # (Paddle's:
                     fill=TINT["leaf"])                                  # GradNodeAccumulation)
            leaf = node.variable
            lid = self.add_tensor(leaf, "leaf")
            self.edge(nid, lid, "accumulates")
        else:
            self.add(nid, _html_label(node.name(), ""), "node", node.name(), hi, fill=ROLE["node"])
        if self.show_saved or id(node) in self.hi:  # drawn after every node: leaves merge
            self.pending_saved.extend((nid, k, s) for k, s in node.saved_tensors_info().items())
            self.add_saved_numbers(nid, node)

    def add_saved_numbers(self, nid, node) -> None:
        """The Python numbers PyTorch wrapped in a 0-dim tensor and saved (``x * 2`` keeps
        other=2): freed by backward like any saved tensor, so a second backward fails there."""
        keeps = getattr(node, "_keeps_wrapped_numbers", None)
        if keeps is None or not keeps():
            return
        for k in node.spec.saves:
            if k not in node.params or k not in node.spec.args:
                continue
            freed = node._released
            bad = freed and id(node) in self.hi and self.freed_numbers
            sid = f"{nid}_{k}"
            title = f"{k} = {node.params[k]!r}"
            self.add(sid, _html_label(title, "wrapped number · " + ("freed" if freed else "saved")),
                     "saved", title, bad, fill=TINT["error"] if bad else TINT["saved"],
                     style="filled", bad=bad)
            self.edge(nid, sid, "saved", bad=bad)

    def add_chain(self, chain) -> None:
        counts: dict[str, int] = {}
        for n in chain:
            counts[n.name()] = counts.get(n.name(), 0) + 1
        what = ", ".join(f"{k} ×{v}" for k, v in counts.items())
        nid = self.new_id(chain[0], "c")
        self.add(nid, _html_label(f"⋯ {len(chain)} nodes", what), "collapsed",
                 f"{len(chain)} nodes", False, fill=ROLE["paper"], style="rounded,dashed")

    def add_group(self, key, nodes) -> None:
        counts: dict[str, int] = {}
        for n in nodes:
            counts[n.name()] = counts.get(n.name(), 0) + 1
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:4]
        what = ", ".join(f"{k} ×{v}" for k, v in top) + (" …" if len(counts) > 4 else "")
        nid = self.new_id(key, "x")
        self.ids[id(key)] = nid
        self.add(nid, _html_label(f"⋯ {len(nodes)} more nodes", what), "collapsed",
                 f"{len(nodes)} more nodes", False, fill=ROLE["paper"], style="rounded,dashed")

    def add_tensor(self, t, kind) -> str:
        key = id(t)
        if key in self.ids:
            return self.ids[key]
        tid = self.new_id(t, "t")
        fill = {"leaf": TINT["leaf"], "output": TINT["nonleaf"]}.get(kind, TINT["view"])
        sub = f"{_shape(t)} · v{t._vc.version}"
        self.add(tid, _html_label(self.name_of(t), sub), kind, self.name_of(t), key in self.hi,
                 fill=fill, shape="box", style="filled")
        base = t._base
        if base is not None:
            bid = self.add_tensor(base, "base")
            self.edge(tid, bid, "view")
        return tid

    def add_output(self, t) -> None:
        tid = self.add_tensor(t, "output")
        node = _sink(t)
        if node is not None and id(node) in self.ids:
            self.edge(tid, self.ids[id(node)], "grad")

    def add_saved(self, nid, name, s: SavedTensor) -> None:
        t = s._tensor
        bad = s.current_version != s.version and not s.freed
        hi = id(s) in self.saved_bad
        ver = f"saved v{s.version}" + (f", now v{s.current_version}" if not s.freed else ", freed")
        if t is not None and t.is_leaf and t._requires_grad and id(t) in self.ids:
            # a saved leaf merges with the leaf's own box
            self.edge(nid, self.ids[id(t)], "saved", label=f"{name}: {ver}", bad=bad or hi)
            return
        sid = self.new_id(s, "s")
        label = name
        if t is not None and not s.is_output:
            label = self.names.get(id(t)) or getattr(t, "name", None) or name
        if hi and s.is_output:  # name the result after a live tensor sharing its counter
            label = next((self.names[id(r)] for r in gc.get_referrers(s._vc)
                          if isinstance(r, Tensor) and id(r) in self.names), label)
        shape = _shape(t) if t is not None else ""
        title = name if label == name else f"{name} = {label}"
        self.add(sid, _html_label(title, f"{shape} · {ver}".strip(" ·")), "saved", title, hi, fill=TINT["error"] if bad else TINT["saved"], shape="box",
                 style="filled", bad=bad)
        self.edge(nid, sid, "saved", bad=bad or hi)
        if t is not None and t._base is not None and not s.is_output:
            self.edge(sid, self.add_tensor(t._base, "base"), "view")

    def add(self, nid, label, kind, name, hi, *, fill, shape="box", style="rounded,filled",
            bad=False) -> None:
        self.model.nodes[nid] = {"label": name, "kind": kind, "name": name}
        if hi:
            self.model.highlighted.append(nid)
        colour = ROLE["error"] if (hi or bad) else ROLE["grid"]
        attrs = dict(label=label, shape=shape, style=style, fillcolor=fill, color=colour,
                     penwidth="2.5" if hi else "1.2", id=nid,
                     **{"class": f"{kind}{' highlight' if hi else ''}"})
        if hi and kind in ("node", "accumulate"):
            attrs["fillcolor"] = TINT["error"]
        self.lines.append(("node", nid, attrs))

    def edge(self, a, b, kind, label="", bad=False) -> None:
        self.model.edges.append((a, b, kind))
        style = {"grad": dict(color="#6B7280"),
                 "accumulates": dict(color=ROLE["leaf"], style="dashed", arrowhead="none"),
                 "saved": dict(color=ROLE["error"] if bad else ROLE["saved"], style="dashed",
                               arrowhead="odot", penwidth="1.6"),
                 "view": dict(color=ROLE["view"], style="dotted", label="view of",
                              fontcolor=ROLE["view"], penwidth="1.6")}[kind]
        if label:
            style = dict(style, label=label, fontcolor=ROLE["error"] if bad else "#92400E")
        self.lines.append(("edge", (a, b), style))

    def name_of(self, t) -> str:
        if t is None:
            return "?"
        return self.names.get(id(t)) or getattr(t, "name", None) or f"tensor {_shape(t)}"

    def dot(self):
        import graphviz

        g = graphviz.Digraph("backward", graph_attr=dict(
            rankdir="TB", bgcolor=ROLE["paper"], fontname=FONT, nodesep="0.3", ranksep="0.35",
            label=_html_label(self.model.sentence, "", wrap=True) if self.model.sentence else "",
            labelloc="t", fontsize="12"),
            node_attr=dict(fontname=FONT, fontsize="11", margin="0.12,0.05", height="0.3"),
            edge_attr=dict(fontname=FONT, fontsize="9", arrowsize="0.7"))
        for kind, key, attrs in self.lines:
            if kind == "node":
                g.node(key, **attrs)
            else:
                g.edge(*key, **attrs)
        return g


# ---- graph maths (pure functions over nodes) ---------------------------------------------------

def _sink(t):
    """The node a gradient for ``t`` enters by: its grad_fn, or its AccumulateGrad."""
    from ..autograd.node import accumulator_of

    if t._grad_fn is not None:
        return t._grad_fn
    if t._requires_grad and t._base is None:
        return accumulator_of(t)
    return None


def _reachable(roots):
    """Nodes reachable from ``roots`` (breadth first) and each node's children."""
    order, seen, children = [], set(), {}
    queue = [r for r in roots if r is not None]
    while queue:
        nxt = []
        for n in queue:
            if id(n) in seen:
                continue
            seen.add(id(n))
            order.append(n)
            kids = [c for c, _ in n.next_functions if c is not None]
            children[id(n)] = kids
            nxt.extend(kids)
        queue = nxt
    return order, children


def _chains(order, children, keep, keep_saved):
    """Maximal linear runs (one parent, one op child; side edges to AccumulateGrad allowed)
    of at least ``MIN_CHAIN`` op nodes: head id -> [nodes]. Highlighted nodes stay visible."""
    parents: dict[int, int] = {}
    for n in order:
        for c in set(map(id, children[id(n)])):
            parents[c] = parents.get(c, 0) + 1

    def op_kids(n):
        return [c for c in children[id(n)] if not isinstance(c, AccumulateGrad)]

    def linkable(n):
        return not isinstance(n, AccumulateGrad) and id(n) not in keep and \
            not any(id(s) in keep_saved for s in n.saved_tensors_info().values())

    chains, used = {}, set()
    for n in order:
        if id(n) in used or not linkable(n):
            continue
        run = [n]
        cur = n
        while True:
            kids = op_kids(cur)
            if len(kids) != 1:
                break
            k = kids[0]
            if parents.get(id(k), 0) != 1 or not linkable(k) or id(k) in used:
                break
            run.append(k)
            cur = k
        if len(run) >= MIN_CHAIN:
            chains[id(n)] = run
            used.update(id(x) for x in run)
    return chains


def _savers_of(tensors) -> list:
    """Graph nodes holding one of ``tensors`` as a saved tensor (found through the garbage
    collector's referrer lists: a leaf does not know who saved it)."""
    want = {id(t) for t in tensors}
    saved = [r for r in gc.get_referrers(*tensors)
             if isinstance(r, SavedTensor) and id(r._tensor) in want]
    if not saved:
        return []
    dicts = [r for r in gc.get_referrers(*saved) if isinstance(r, dict)]
    if not dicts:
        return []
    out = []
    for n in gc.get_referrers(*dicts):
        if isinstance(n, Node) and any(n.saved_tensors_info() is d for d in dicts):
            out.append(n)
    return sorted(_uniq(out), key=lambda n: n.seq)


def _consumers_of(node) -> list:
    """Nodes with an edge to ``node`` (their ``next_functions`` mention it)."""
    edges = [r for r in gc.get_referrers(node) if isinstance(r, tuple) and len(r) == 2]
    if not edges:
        return []
    lists = [r for r in gc.get_referrers(*edges) if isinstance(r, tuple)]
    if not lists:
        return []
    return [n for n in gc.get_referrers(*lists)
            if isinstance(n, Node) and any(n.next_functions is lst for lst in lists)]


def _climb(nodes, levels: int = 3) -> list:
    """Extend ``nodes`` upwards (towards the output) a few levels, so the picture shows
    where the values flowed; return the topmost nodes as roots."""
    frontier = list(nodes)
    allnodes = {id(n): n for n in nodes}
    for _ in range(levels):
        up = []
        for n in frontier:
            for c in _consumers_of(n):
                if id(c) not in allnodes:
                    allnodes[id(c)] = c
                    up.append(c)
        if not up:
            break
        frontier = up
    return sorted(allnodes.values(), key=lambda n: -n.seq)


def _modifier(saved, failing, trace):
    """(node, text) of the in-place op that moved a saved tensor's version on."""
    text = ""
    node_name = None
    if trace is not None:
        counter = None
        for st in trace.of("save"):
            if st.inputs and st.data.get("version") == saved.version and \
                    st.data.get("name") == saved.name and st.data.get("node") == saved.node_name:
                counter = st.inputs[0].counter
        for st in trace.of("bump"):
            if counter is not None and st.data.get("counter") == counter and \
                    st.data.get("after", 0) > saved.version:
                text = f"{st.op}_ ({st.line})" if st.line else f"{st.op}_"
                node_name = st.outputs[0].grad_fn if st.outputs else None
                break
    # the live tensors sharing the saved tensor's counter: the newest grad_fn is the modifier
    sharers = [r for r in gc.get_referrers(saved._vc) if isinstance(r, Tensor)]
    best = None
    floor = failing.seq if failing is not None else -1
    for t in sharers:
        gf = t._grad_fn
        if gf is not None and gf.seq > floor and (best is None or gf.seq > best.seq):
            if node_name is None or gf.name() == node_name:
                best = gf
    if best is not None and not text:
        text = best.name()
    return best, text


def _uniq(nodes) -> list:
    seen, out = set(), []
    for n in nodes:
        if n is not None and id(n) not in seen:
            seen.add(id(n))
            out.append(n)
    return out


# ---- text ------------------------------------------------------------------------------------

def _names(names) -> dict:
    """id(tensor) -> label: explicit names, then variable names in the calling code."""
    from .model import caller_names

    out = caller_names()
    if names:
        for t, n in names.items():
            out[id(t)] = str(n)
    return out


def _shape(t) -> str:
    if t is None:
        return ""
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def _html_label(title: str, sub: str, wrap: bool = False) -> str:
    """A Graphviz HTML-like label; every piece of text is escaped (user names included)."""
    t = html.escape(str(title), quote=False)
    if wrap:
        t = _wrap(t, 90)
        return f"<<font point-size=\"12\">{t}</font>>"
    s = html.escape(str(sub), quote=False)
    body = f"<b>{t}</b>" + (f"<br/><font point-size=\"9\" color=\"#4B5563\">{s}</font>" if s else "")
    return f"<{body}>"


def _wrap(text: str, width: int) -> str:
    words, lines, cur = text.split(" "), [], ""
    for w in words:
        if len(cur) + len(w) + 1 > width and cur:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    lines.append(cur)
    return "<br/>".join(lines)


def _and(words) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1] \
        if words else ""


def _first_sentence(text: str) -> str:
    return (text or "").split(". ")[0].rstrip(".") + "." if text else ""


def _strip_xml_header(svg: str) -> str:
    i = svg.find("<svg")
    return svg[i:] if i >= 0 else svg
