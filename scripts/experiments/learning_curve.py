"""The learning curve on the stored language-model scores: tables, JSON, an SVG and a PNG.

Reads docs/learning/scores/<set>.npz (made once by scripts/experiments/lm_scores.py), runs
triage_app.learn.learning_curve on each and writes docs/learning/<set>.json, curve.md,
curve.svg and curve.png. The PNG is the SVG drawn by Qt offscreen (no plotting library).

Usage: .venv/bin/python scripts/experiments/learning_curve.py [SET ...]   (default: every stored set)
"""
from __future__ import annotations

import json
import os
import sys
import time
from html import escape
from pathlib import Path

import numpy as np

from triage_app.learn import learning_curve

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "learning"
DRAWS = 20
COLORS = {"zero_shot": "#9aa0a6", "learned": "#f29900", "combined": "#1a73e8"}
TITLES = {"zero_shot": "zero-shot (language model)", "learned": "learned only (TF-IDF + LR)",
          "combined": "combined (weights by cross-validation)"}
W, H, LEFT, TOP, PW, PH = 330, 300, 50, 40, 250, 200


def run(name: str) -> dict:
    data = np.load(DOCS / "scores" / f"{name}.npz")
    texts, gold, names = data["texts"].tolist(), data["gold"].tolist(), data["names"].tolist()
    start = time.perf_counter()
    curve = learning_curve(texts, gold, data["scores"], names, draws=DRAWS,
                           log=lambda line: print(f"{name} {line}", flush=True))
    out = dict(curve.to_dict(), set=name, n=len(texts), model=str(data["model"]),
               lm_seconds=float(data["seconds"]), curve_seconds=time.perf_counter() - start)
    (DOCS / f"{name}.json").write_text(json.dumps(out, indent=1) + "\n")
    out["table"] = curve.table()
    return out


def panel(result: dict, left: int) -> list[str]:
    ks = [p["k"] for p in result["points"]]
    x = lambda i: left + LEFT + PW * i / (len(ks) - 1)
    y = lambda v: TOP + PH * (1 - v)
    out = [f'<text x="{left + LEFT}" y="{TOP - 22}" font-weight="bold">{escape(result["set"])}: '
           f'{len(result["names"])} labels, {result["n_test"]} test tickets</text>']
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        out += [f'<line x1="{left + LEFT}" x2="{left + LEFT + PW}" y1="{y(v)}" y2="{y(v)}" stroke="#e0e0e0"/>',
                f'<text x="{left + LEFT - 6}" y="{y(v) + 4}" text-anchor="end">{100 * v:.0f}%</text>']
    for i, k in enumerate(ks):
        out.append(f'<text x="{x(i):.1f}" y="{TOP + PH + 18}" text-anchor="middle">{k}</text>')
    out.append(f'<text x="{left + LEFT + PW / 2}" y="{TOP + PH + 36}" text-anchor="middle">labels per label (k)</text>')
    for part, color in COLORS.items():
        points = [(x(i), y(p["mean"][part]["accuracy"])) for i, p in enumerate(result["points"])
                  if p["mean"][part]["accuracy"] is not None]
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2.5" points="'
                   + " ".join(f"{a:.1f},{b:.1f}" for a, b in points) + '"/>')
        out += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3.5" fill="{color}"/>' for a, b in points]
    return out


def svg(results: list[dict]) -> str:
    width, height = max(W * len(results) + 20, 800), H + 40
    body = [e for i, r in enumerate(results) for e in panel(r, 10 + W * i)]
    legend = [e for j, (part, color) in enumerate(COLORS.items())
              for e in (f'<rect x="{60 + 250 * j}" y="{H + 12}" width="14" height="4" fill="{color}"/>',
                        f'<text x="{80 + 250 * j}" y="{H + 18}">{escape(TITLES[part])}</text>')]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>'
            + "".join(body + legend) + "</svg>\n")


def png(svg_path: Path, png_path: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(QByteArray(svg_path.read_bytes()))
    size = renderer.defaultSize() * 2
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    image.save(str(png_path))
    del app


def main(sets: list[str]) -> None:
    results = [run(name) for name in sets]
    lines = ["# Learning curves", "",
             f"Accuracy (mean ± std over {DRAWS} seeded draws; macro-F1 in brackets) on the same test rows for every k.", ""]
    for r in results:
        lines += [f"## {r['set']} ({r['n']} tickets, {r['n_test']} test; labels: {', '.join(r['names'])})", "",
                  r["table"], "", "Targets: " + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in r["targets"].items()),
                  ""]
    (DOCS / "curve.md").write_text("\n".join(lines))
    (DOCS / "curve.svg").write_text(svg(results))
    png(DOCS / "curve.svg", DOCS / "curve.png")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:] or [p.stem for p in sorted((DOCS / "scores").glob("*.npz"))])
