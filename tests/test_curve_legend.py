"""The learning curve's legend stays readable: with a sentence encoder its five titles are long, and
side by side at fixed steps they ran into each other in the docs' four-panel figure."""

from __future__ import annotations

import re

from triage_app.quality.curve import PARTS, SIDE_BY_SIDE, curves_svg

ENTRY = re.compile(r'<rect x="(\d+)" y="(\d+)" width="14" height="4"[^>]*/><text x="\d+" y="\d+">([^<]+)</text>')
TEXT_HEIGHT = 14    # px a line of the 12 px text takes


def result(parts: tuple[str, ...], encoder: str | None, name: str) -> dict:
    points = [{"k": k, "mean": {part: {"accuracy": 0.5 + k / 50} for part in parts}} for k in (0, 2, 5)]
    return {"set": name, "names": ["a", "b"], "n_test": 10, "parts": list(parts), "encoder": encoder,
            "points": points}


def legend(svg: str) -> list[tuple[int, int, str]]:
    return [(int(x), int(y), title) for x, y, title in ENTRY.findall(svg)]


def test_the_legend_titles_do_not_overlap_and_fit_the_figure():
    for parts, encoder, panels in ((SIDE_BY_SIDE, "all-MiniLM-L6-v2", 4), (SIDE_BY_SIDE, "all-MiniLM-L6-v2", 1),
                                   (PARTS, None, 4), (PARTS, None, 1)):
        svg = curves_svg([result(parts, encoder, f"set{i}") for i in range(panels)])
        width, height = (int(v) for v in re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', svg).groups())
        entries = legend(svg)
        assert len(entries) == len(parts)
        for (x, y, title), (next_x, next_y, _) in zip(entries, entries[1:]):
            if next_y == y:    # the same row: the next entry starts after this one's title ends
                assert next_x >= x + 20 + 7 * len(title), (panels, title)
        for x, y, title in entries:
            assert x + 20 + 7 * len(title) <= width and y + TEXT_HEIGHT <= height, (panels, title)
