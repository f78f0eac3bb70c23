"""Pictures drawn with Qt off screen, for the command line (eval --plot) as for the window."""

from __future__ import annotations

import os
from pathlib import Path


def svg_to_png(svg: str, png: Path) -> None:
    """The SVG at twice its size as a PNG; raises ValueError when the file cannot be written."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])   # noqa: F841 (painting needs one)
    renderer = QSvgRenderer(QByteArray(svg.encode()))
    image = QImage(renderer.defaultSize() * 2, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    if not image.save(str(png), "PNG"):     # by name, not by the file's suffix (a temporary's may be another)
        raise ValueError(f"cannot write {png}")
