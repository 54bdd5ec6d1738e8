"""Draw README's picture: three views over one storage, from real inplace_lab tensors.

``x`` (2x3), ``x.t()`` and ``x[:, 1]`` are made by the library, one in-place write goes
through the slice, and everything drawn (values, shape, strides, offset, the storage
cells each view covers, the shared version counter) is read back from those tensors,
so the picture cannot drift from what the library does.

Run ``python assets/make_assets.py`` (needs graphviz's ``dot`` executable) to rewrite
``assets/storage.png`` and ``assets/storage.svg``.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run from a checkout without installing

import inplace_lab as il  # noqa: E402
from inplace_lab.layout import cells  # noqa: E402

# One colour per view: (strong, light). Storage is neutral grey; the counter is purple.
PALETTE = [("#1d4ed8", "#dbeafe"), ("#c2410c", "#ffedd5"), ("#15803d", "#dcfce7")]
GREY, LIGHT_GREY, PURPLE = "#374151", "#f3f4f6", "#7c3aed"
FONT = "DejaVu Sans"
CODE = ["x = il.tensor([[1., 2., 3.], [4., 5., 6.]])",
        "views = x, x.t(), x[:, 1]",
        "x[:, 1].mul_(10)     # one write through the slice"]


def make_views():
    """The tensors the picture shows, after one in-place write through the slice."""
    x = il.tensor([[1., 2., 3.], [4., 5., 6.]])
    views = [("x", x), ("x.t()", x.t()), ("x[:, 1]", x[:, 1])]
    views[2][1].mul_(10)
    return views


def geometry(t) -> tuple:
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


def covered(t) -> dict[int, tuple]:
    """Storage position -> the multi-index of ``t`` that reads it (row-major order)."""
    shape = tuple(t.shape)
    out = {}
    for k, pos in enumerate(cells(*geometry(t))):
        idx, rest = [], k
        for n in reversed(shape):
            idx.append(rest % n)
            rest //= n
        out[pos] = tuple(reversed(idx))
    return out


def _num(v) -> str:
    return f"{v:g}"


def _index(ix: tuple) -> str:
    return "[" + ",".join(str(i) for i in ix) + "]"


def card(name: str, t, base_name: str, strong: str, light: str) -> str:
    """HTML label of one tensor: its metadata and its elements, each tagged with its cell."""
    shape, strides, offset = geometry(t)
    rows = t.tolist() if len(shape) == 2 else [t.tolist()]
    pos = cells(shape, strides, offset)
    ncols = len(rows[0])
    grid = []
    for r, row in enumerate(rows):
        tds = "".join(
            f'<TD BGCOLOR="{light}" WIDTH="46">{_num(v)}<BR/>'
            f'<FONT POINT-SIZE="9" COLOR="{GREY}">cell {pos[r * ncols + c]}</FONT></TD>'
            for c, v in enumerate(row))
        grid.append(f"<TR>{tds}</TR>")
    meta = (f'shape {tuple(shape)}<BR ALIGN="LEFT"/>strides {strides}<BR ALIGN="LEFT"/>'
            f'offset {offset}<BR ALIGN="LEFT"/>cells {pos}<BR ALIGN="LEFT"/>'
            f'_base {base_name}<BR ALIGN="LEFT"/>')
    return (f'<<TABLE BORDER="1" COLOR="{strong}" CELLBORDER="1" CELLSPACING="0" CELLPADDING="5">'
            f'<TR><TD COLSPAN="{ncols}" BGCOLOR="{strong}"><FONT COLOR="white"><B>{name}</B></FONT></TD></TR>'
            f'<TR><TD COLSPAN="{ncols}" BORDER="0" ALIGN="LEFT"><FONT FACE="DejaVu Sans Mono" POINT-SIZE="10">'
            f'{meta}</FONT></TD></TR>'
            + "".join(grid) + "</TABLE>>")


def strip(views) -> str:
    """HTML label of the one storage: positions, values, and which element of each view reads each cell."""
    base = views[0][1]
    st = base.untyped_storage()
    n, values = st.size(), il.backend.to_numpy(st.data).tolist()
    head = (f'<TR><TD COLSPAN="{n + 1}" BGCOLOR="{GREY}"><FONT COLOR="white"><B>one storage</B>'
            f'  ·  {n} × {st.dtype.name}  ·  {st.nbytes()} bytes  ·  shared by all three'
            f'</FONT></TD></TR>')
    idx = '<TR><TD BORDER="0"></TD>' + "".join(
        f'<TD BORDER="0"><FONT POINT-SIZE="10" COLOR="{GREY}">cell {i}</FONT></TD>' for i in range(n)) + "</TR>"
    written = covered(views[-1][1])  # the picture's one write went through the last view
    w_strong, w_light = PALETTE[len(views) - 1]
    vals = (f'<TR><TD ALIGN="RIGHT" BORDER="0"><B>value</B></TD>'
            + "".join(f'<TD BGCOLOR="{w_light if i in written else LIGHT_GREY}" WIDTH="58" HEIGHT="30">'
                      f'<FONT COLOR="{w_strong if i in written else "black"}"><B>{_num(v)}</B></FONT></TD>'
                      for i, v in enumerate(values)) + "</TR>")
    rows = []
    for (name, t), (strong, light) in zip(views, PALETTE):
        cov = covered(t)
        tds = "".join(
            f'<TD BGCOLOR="{light}"><FONT COLOR="{strong}">{_index(cov[i])}</FONT></TD>' if i in cov
            else '<TD BORDER="0"> </TD>' for i in range(n))
        rows.append(f'<TR><TD ALIGN="RIGHT" BORDER="0" PORT="{_port(name)}">'
                    f'<FONT COLOR="{strong}"><B>{name}</B></FONT></TD>{tds}</TR>')
    return (f'<<TABLE BORDER="1" COLOR="{GREY}" CELLBORDER="1" CELLSPACING="2" CELLPADDING="5">'
            + head + idx + vals + "".join(rows)
            + f'<TR><TD COLSPAN="{n + 1}" BORDER="0"><FONT POINT-SIZE="10" COLOR="{GREY}">'
              "each coloured row: which element of that view lives in each cell</FONT></TD></TR>"
            + "</TABLE>>")


def _port(name: str) -> str:
    return "p" + "".join(ch for ch in name if ch.isalnum())


def storage_dot(views=None) -> str:
    """DOT source of the whole picture."""
    views = views or make_views()
    x = views[0][1]
    code = '<BR ALIGN="LEFT"/>'.join(CODE)
    lines = [
        "digraph storage {",
        f'  graph [rankdir=TB, bgcolor="white", nodesep=0.45, ranksep=0.55, pad=0.3,'
        f' fontname="{FONT}", fontsize=12, labelloc=t, labeljust=l,'
        f' label=<<FONT FACE="DejaVu Sans Mono" POINT-SIZE="12">{code}'
        f'<BR ALIGN="LEFT"/> <BR/></FONT>>];',
        f'  node [shape=plain, fontname="{FONT}", fontsize=12];',
        f'  edge [arrowsize=0.7, penwidth=1.6, fontname="{FONT}", fontsize=10];',
    ]
    for i, ((name, t), (strong, light)) in enumerate(zip(views, PALETTE)):
        base_name = next((n for n, v in views if v is t._base), "None")
        lines.append(f"  v{i} [label={card(name, t, base_name, strong, light)}];")
    lines.append(f"  storage [label={strip(views)}];")
    counter = (f'<<TABLE BORDER="1" COLOR="{PURPLE}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="6">'
               f'<TR><TD BGCOLOR="{PURPLE}"><FONT COLOR="white"><B>version counter</B></FONT></TD></TR>'
               f'<TR><TD><FONT POINT-SIZE="20" COLOR="{PURPLE}"><B>_version = {x._version}</B></FONT></TD></TR>'
               f'<TR><TD><FONT POINT-SIZE="10" COLOR="{GREY}">one counter, shared by every view:<BR/>'
               f'the write through x[:, 1] bumped it<BR/>for x and x.t() too</FONT></TD></TR></TABLE>>')
    lines.append(f"  counter [label={counter}];")
    lines.append("  { rank=same; " + "; ".join(f"v{i}" for i in range(len(views))) + "; }")
    lines.append("  " + " -> ".join(f"v{i}" for i in range(len(views))) + " [style=invis];")
    for i, ((name, _), (strong, _)) in enumerate(zip(views, PALETTE)):
        lines.append(f'  counter -> v{i} [color="{PURPLE}", style=dashed, arrowhead=none, penwidth=1.2];')
        lines.append(f'  v{i} -> storage:n [color="{strong}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot_source: str, out_stem: Path) -> list[Path]:
    """Run graphviz's ``dot`` to write ``out_stem``.png and .svg."""
    outs = []
    for fmt, extra in (("png", ["-Gdpi=144"]), ("svg", [])):
        out = out_stem.with_suffix("." + fmt)
        subprocess.run(["dot", f"-T{fmt}", *extra, "-o", str(out)], input=dot_source.encode(),
                       check=True)
        outs.append(out)
    return outs


def main() -> None:
    for path in render(storage_dot(), HERE / "storage"):
        print("wrote", path.relative_to(HERE.parent))


if __name__ == "__main__":
    main()
