"""Layer 1 · the loss curve as a small hand-written SVG picture (no plotting library).

Consumes: nothing from the package.

Contract: `loss_svg(history, title) -> str`, a complete standalone SVG document: the loss of every
batch as a faint line, the mean loss of each epoch as dots (at mid-epoch) joined by a line, axes.

Read `train.py` first; `history` is what `train` returns.

Usage:

    >>> svg = loss_svg({"loss": [2.0, 1.0, 0.5], "batch_loss": [2.5, 1.5, 1.0, 0.8, 0.6, 0.4]})
    >>> svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    True
    >>> svg.count("<circle")
    3
"""

from __future__ import annotations

import math
from html import escape

__all__ = ["loss_svg"]

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 32, 40            # margins around the plot area


# ---- scales ------------------------------------------------------------------------------------

def nice_ticks(top: float, count: int = 5) -> list[float]:
    """About `count` round tick values from 0 to at least `top` (steps of 1, 2 or 5 x 10^k)."""
    raw = max(top, 1e-9) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    ticks = [0.0]
    while ticks[-1] < top:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


# ---- the picture -------------------------------------------------------------------------------

def loss_svg(history: dict, title: str = "TinyLLM training loss") -> str:
    epochs = history["loss"]
    batches = history.get("batch_loss") or epochs
    y_ticks = nice_ticks(max(batches))
    y_top = y_ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(fraction_x: float, value: float) -> str:
        return f"{LEFT + fraction_x * plot_w:.1f},{TOP + (1 - value / y_top) * plot_h:.1f}"

    n_b, n_e = len(batches), len(epochs)
    batch_points = " ".join(px(k / max(1, n_b - 1), v) for k, v in enumerate(batches))
    epoch_points = [px((k + 0.5) / n_e, v) for k, v in enumerate(epochs)]  # mid-epoch: a mean
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">',
           f'<title>{escape(title)}</title>',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>']
    for value in y_ticks:                                             # horizontal grid + labels
        y = TOP + (1 - value / y_top) * plot_h
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>')
    for k in range(n_e + 1):                                          # epoch ticks
        if k % max(1, n_e // 5) == 0 or k == n_e:
            x = LEFT + k / n_e * plot_w
            out.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{k}</text>')
    out += [f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" stroke="#333"/>',
            f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}" '
            'stroke="#333"/>',
            f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" text-anchor="middle">epoch</text>',
            f'<text x="14" y="{TOP + plot_h / 2}" text-anchor="middle" '
            f'transform="rotate(-90 14 {TOP + plot_h / 2})">cross-entropy loss (nats)</text>',
            f'<polyline points="{batch_points}" fill="none" stroke="#9ecae1" stroke-width="1"/>',
            f'<polyline points="{" ".join(epoch_points)}" fill="none" stroke="#08519c" stroke-width="2"/>']
    out += [f'<circle cx="{p.split(",")[0]}" cy="{p.split(",")[1]}" r="3" fill="#08519c"/>'
            for p in epoch_points]
    out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP - 4}" text-anchor="end" fill="#08519c">'
               f'final epoch mean {epochs[-1]:.4f}</text>')
    out.append(f'<text x="{LEFT + 8}" y="{TOP + 14}" fill="#6a9ec0">light line: every batch; '
               'dots: mean of each epoch</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
