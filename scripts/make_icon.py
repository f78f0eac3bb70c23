"""Draw the app icon with QPainter (offscreen, no image files, no Pillow) and write
resources/triage.png (1024 px) and resources/triage.icns (macOS).

The .icns is written here by hand, so it can be made on Linux (no iconutil): the container is
b"icns" + total length (uint32, big endian), then chunks of 4-byte type + length (uint32, big
endian, including the 8-byte chunk header) + data. Since OS X 10.7 the data of these types may be
a plain PNG file:
    ic11 32 px (16@2x)   ic12 64 px (32@2x)   ic07 128 px   ic13 256 px (128@2x)
    ic08 256 px          ic14 512 px (256@2x) ic09 512 px   ic10 1024 px (512@2x)
Run: .venv/bin/python scripts/make_icon.py [--out resources]
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

ICNS_TYPES = (("ic11", 32), ("ic12", 64), ("ic07", 128), ("ic13", 256), ("ic08", 256), ("ic14", 512),
              ("ic09", 512), ("ic10", 1024))
MASTER = 1024
# three queues a ticket can be sorted into, and the ticket being sorted
QUEUE_COLOURS = ("#f2b134", "#5cc8a8", "#ef6f6c")


def draw(size: int):
    """The icon at size x size: a rounded blue tile, three queue lanes, one ticket dropping in."""
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter, QPainterPath, QPen

    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(size / MASTER, size / MASTER)       # draw in 1024 units at every size

    # macOS Big Sur grid: a 824 px tile centred in 1024, corner radius ~185
    tile = QRectF(100, 100, 824, 824)
    gradient = QLinearGradient(tile.topLeft(), tile.bottomRight())
    gradient.setColorAt(0, QColor("#3b6fd8"))
    gradient.setColorAt(1, QColor("#1d3f8f"))
    path = QPainterPath()
    path.addRoundedRect(tile, 185, 185)
    p.fillPath(path, gradient)

    # three lanes at the bottom, one per queue
    for k, colour in enumerate(QUEUE_COLOURS):
        lane = QRectF(220 + k * 205, 600, 175, 230)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(colour))
        p.drawRoundedRect(lane, 36, 36)

    # the ticket, white with text lines, tilted on its way into the middle lane
    p.save()
    p.translate(512, 380)
    p.rotate(-8)
    ticket = QRectF(-200, -150, 400, 260)
    p.setBrush(QColor("#ffffff"))
    p.drawRoundedRect(ticket, 34, 34)
    p.setPen(QPen(QColor("#9fb2d9"), 26, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    for y, right in ((-80, 130), (-20, 150), (40, 60)):
        p.drawLine(QPointF(-140, y), QPointF(right, y))
    p.restore()

    # the arrow from the ticket to its lane
    p.setPen(QPen(QColor("#ffffff"), 34, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
    p.drawLine(QPointF(512, 520), QPointF(512, 575))
    p.end()
    return image


def png_bytes(image) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RuntimeError("PNG encoding failed")
    return bytes(data.data())


def icns(chunks: list[tuple[str, bytes]]) -> bytes:
    body = b"".join(kind.encode("ascii") + struct.pack(">I", 8 + len(data)) + data for kind, data in chunks)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def read_icns(blob: bytes) -> list[tuple[str, int]]:
    """(type, data length) per chunk; raises if the container is malformed."""
    if blob[:4] != b"icns" or struct.unpack(">I", blob[4:8])[0] != len(blob):
        raise ValueError("not an icns file, or its length is wrong")
    out, at = [], 8
    while at < len(blob):
        kind, length = blob[at:at + 4].decode("ascii"), struct.unpack(">I", blob[at + 4:at + 8])[0]
        if length < 8 or at + length > len(blob):
            raise ValueError(f"chunk {kind} at {at} runs past the end")
        out.append((kind, length - 8))
        at += length
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "resources"))
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (fonts, image I/O)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # each size drawn from the vector drawing, not scaled down from 1024: small sizes stay crisp
    pngs = {size: png_bytes(draw(size)) for size in sorted({size for _, size in ICNS_TYPES})}
    (out / "triage.png").write_bytes(pngs[MASTER])
    blob = icns([(kind, pngs[size]) for kind, size in ICNS_TYPES])
    (out / "triage.icns").write_bytes(blob)
    read_icns(blob)
    print(f"wrote {out / 'triage.png'} ({len(pngs[MASTER]):,} bytes) and {out / 'triage.icns'} "
          f"({len(blob):,} bytes, {len(ICNS_TYPES)} sizes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
