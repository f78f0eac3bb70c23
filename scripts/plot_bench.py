#!/usr/bin/env python3
"""Draw the benchmark JSON files as one SVG bar chart (stdlib only, no plotting library needed).

Usage: python scripts/plot_bench.py out/bench_long-prefix.json out/bench_short-prompt.json -o docs/bench.svg
"""

from __future__ import annotations

import argparse
import json
from html import escape
from pathlib import Path

COLORS = {"reference": "#9aa0a6", "buckets": "#f6bf26", "prefix": "#7cb342", "prefix+buckets": "#039be5",
          "fast": "#d81b60"}
BAR, GAP, LEFT, WIDTH = 22, 6, 150, 460


def panel(data: dict, top: int) -> tuple[list[str], int]:
    modes = data["modes"]
    peak = max(m["items_per_s"] for m in modes.values())
    title = (f"{data['workload']}: {data['n']} tickets, {data['model'].split(' (')[0]}, "
             f"{data['dtype']} on {data['device']}")
    out = [f'<text x="10" y="{top + 16}" font-weight="bold">{escape(title)}</text>']
    y = top + 28
    for name, mode in modes.items():
        w = WIDTH * mode["items_per_s"] / peak
        out += [f'<text x="{LEFT - 8}" y="{y + 16}" text-anchor="end">{escape(name)}</text>',
                f'<rect x="{LEFT}" y="{y}" width="{w:.1f}" height="{BAR}" fill="{COLORS.get(name, "#555")}"/>',
                f'<text x="{LEFT + w + 6:.1f}" y="{y + 16}">{mode["items_per_s"]:.2f} items/s  '
                f'x{mode["speedup"]:.2f}  pad {100 * mode["padding_fraction"]:.1f}%  '
                f'agree {100 * mode["agreement"]:.0f}%</text>']
        y += BAR + GAP
    return out, y + 14


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    body, y = [], 0
    for path in args.inputs:
        lines, y = panel(json.loads(Path(path).read_text()), y)
        body += lines
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 330}" height="{y}" '
           f'font-family="sans-serif" font-size="13"><rect width="100%" height="100%" fill="white"/>'
           + "".join(body) + "</svg>\n")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(svg)


if __name__ == "__main__":
    main()
