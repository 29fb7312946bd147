#!/usr/bin/env python3
"""Table (markdown, stdout) and plot of an iso_vs_vtk.sh run: extraction rate
in M cells/s against grid size for pyramarch's HistoPyramid (soup and shared
vertices) and scan and for
VTK's vtkFlyingEdges3D, all from the same run on the same machine.

    tests/bench/plot_iso.py RUN.json [--png OUT.png]

Without --png only the table is printed (no matplotlib needed)."""
import argparse
import json
import sys


def load(path):
    run = json.load(open(path))
    peer = {}
    for record in run["peer"]:
        if record.get("impl") != "vtk_flying_edges":
            continue
        cells = round(record["cells"] ** (1 / 3))
        peer[cells] = {"mcells": record["cells_per_s"] / 1e6, "ms": record["extract_ms_median"],
                       "triangles": record["triangles"]}
    ours = {}
    for result in run["pyramarch"]["results"]:
        if result.get("group") != "iso" or result.get("source") != "volume":
            continue
        cells = result["cells"][0]
        normals = result.get("normals", "central")
        ours.setdefault(f'{result["strategy"]} {normals}', {})[cells] = {
            "mcells": result["mcellsPerSecond"], "ms": result["extractionMs"]["median"],
            "triangles": result["triangles"], "memory": result["memoryBytes"].get("total"),
            "normals": result.get("normals", "central")}
    if not peer or not any(s.startswith("histopyramid") for s in ours):
        sys.exit(f"{path}: needs vtk_flying_edges peer records and pyramarch histopyramid results")
    return run, peer, ours


def table(run, peer, ours):
    strategies = sorted(ours, key=lambda s: (not s.startswith("histopyramid"), s))
    head = ["cells", "vtkFlyingEdges3D 2T ms", "M cells/s"]
    for s in strategies:
        head += [f"{s} normals ms", "M cells/s", "x VTK"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for cells in sorted(peer):
        row = [f"{cells}^3", f"{peer[cells]['ms']:.1f}", f"{peer[cells]['mcells']:.0f}"]
        for s in strategies:
            r = ours[s].get(cells)
            if r is None:
                row += ["-", "-", "-"]
                continue
            if r["triangles"] != peer[cells]["triangles"]:
                sys.exit(f"{cells}^3 {s}: {r['triangles']} triangles, VTK {peer[cells]['triangles']}: not the same surface")
            row += [f"{r['ms']:.1f}", f"{r['mcells']:.0f}", f"{r['mcells'] / peer[cells]['mcells']:.3f}"]
        print("| " + " | ".join(row) + " |")
    device = run["pyramarch"].get("device", "?")
    print(f"\n(pyramarch on {device}; command: {run['command']})")


def plot(peer, ours, out, device):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    fig, ax = plt.subplots(figsize=(6.4, 5.0), dpi=120)
    sizes = sorted(peer)
    ax.plot(sizes, [peer[c]["mcells"] for c in sizes], "o-", color="0.3", label="vtkFlyingEdges3D, 2 CPU threads (no normals)")
    style = {"histopyramid none": ("s-", "tab:blue", "pyramarch HistoPyramid, no normals"),
             "histopyramid central": ("s:", "tab:blue", "pyramarch HistoPyramid, central-difference normals"),
             "histopyramid-indexed none": ("D-", "tab:green", "pyramarch HistoPyramid, shared vertices, no normals"),
             "histopyramid-indexed central": ("D:", "tab:green", "pyramarch HistoPyramid, shared vertices, central normals"),
             "scan none": ("^-", "tab:orange", "pyramarch scan, no normals"),
             "scan central": ("^:", "tab:orange", "pyramarch scan, central-difference normals")}
    for s, points in ours.items():
        if s not in style:
            continue
        xs = sorted(points)
        marker, colour, label = style[s]
        ax.plot(xs, [points[c]["mcells"] for c in xs], marker, color=colour, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xticks(sizes)
    ax.set_xticklabels([f"{c}^3" for c in sizes])
    ax.set_xlabel("cells (Cayley surface from a float32 volume)")
    ax.set_ylabel("extraction, M cells/s (higher is better)")
    ax.set_title(f"Iso-surface extraction on {device.split(' (')[0]}, same run, same 2 cores", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1)
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run")
    parser.add_argument("--png")
    args = parser.parse_args()
    run, peer, ours = load(args.run)
    table(run, peer, ours)
    if args.png:
        plot(peer, ours, args.png, run["pyramarch"].get("device", "?"))


if __name__ == "__main__":
    main()
