"""How long one slider step of each book widget takes (recompute + redraw).

The budget is 100 ms per update at the book's default sizes: above that a
slider stops feeling live. Absolute times drift on a shared machine, so the
script also times a reference in the same run -- rendering an empty
matplotlib figure of the same size to PNG, the floor any redraw pays -- and
prints the update time as a multiple of it.

Usage:  python benchmarks/widgets.py
"""
from __future__ import annotations

import statistics
import time
from io import BytesIO

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import bmlib as bm  # noqa: E402

BUDGET_MS = 100.0
STEPS = 30


def time_ms(action, steps=STEPS):
    action()  # warm-up: font cache, first draw
    times = []
    for k in range(steps):
        start = time.perf_counter()
        action(k)
        times.append(1e3 * (time.perf_counter() - start))
    return statistics.median(times), max(times)


def empty_figure_png(figsize, dpi):
    def render(k=0):
        fig = Figure(figsize=figsize, dpi=dpi)
        fig.add_subplot()
        fig.savefig(BytesIO(), format="png", dpi=dpi)

    return render


def main():
    # The Energy chapter's network (4 units) and the largest the widget allows.
    chapter_W = np.array([[0.0, 1.0, -1.0, -0.5], [1.0, 0.0, -0.5, -1.0], [-1.0, -0.5, 0.0, 1.0], [-0.5, -1.0, 1.0, 0.0]])
    rng = np.random.default_rng(0)
    A = np.triu(rng.normal(size=(8, 8)), 1)
    cases = [("energy_widget, chapter model (n=4)", bm.energy_widget(chapter_W, [0.5, 0, 0, -0.5])),
             ("energy_widget, largest allowed (n=8)", bm.energy_widget(A + A.T)),
             ("sampling_widget (n=4, 200 sweeps)", bm.sampling_widget(
                 chapter_W, [0.5, 0, 0, -0.5], initial=[-1, -1, 1, 1], n_sweeps=200)),
             ("ising_widget (32 x 32, 40 sweeps per step)", bm.ising_widget(L=32, T=2.5)),
             ("learning_widget (10-pixel images, 100 epochs)", bm.learning_widget(
                 bm.ten_pixel_images(), epochs=100, init_scale=0.0, epoch=5)),
             ("partition_widget (4 x 4 torus, 10 temperatures)", bm.partition_widget(
                 bm.square_lattice_couplings(4), budgets=(1000, 10_000), rng=0)),
             ("mean_field_widget (chapter model, n=4)", bm.mean_field_widget(chapter_W, [0.5, 0, 0, -0.5])),
             ("hidden_widget (bars and stripes, RBM 9-16)", bm.hidden_widget(pattern=9, hide="right column"))]
    print(f"{'widget and control':48s} {'median ms':>10s} {'max ms':>8s} {'x empty fig':>12s}  budget {BUDGET_MS:.0f} ms")
    for name, widget in cases:
        floor, _ = time_ms(empty_figure_png(widget.figsize, widget.dpi))
        # Each step moves the slider to a new value, as a dragging reader does.
        sweeps = {"weight": np.linspace(-1.5, 1.5, STEPS + 1), "bias": np.linspace(-1.5, 1.5, STEPS + 1),
                  "temperature": 10 ** np.linspace(-0.5, 0.5, STEPS + 1),
                  "sweeps": np.linspace(150, 200, STEPS + 1).astype(int),
                  "epoch_slider": np.arange(STEPS + 1),
                  "temperature_index": np.arange(STEPS + 1) % 10,
                  "coupling": np.linspace(0.2, 1.8, STEPS + 1),
                  "pattern_slider": np.arange(STEPS + 1) % 14,
                  "hide_menu": np.array(["nothing", "top row", "right column", "centre pixel", "bottom row"])}
        for control, span in sweeps.items():
            if not hasattr(widget, control):  # each widget has its own controls
                continue
            slider = getattr(widget, control)

            def step(k=0, slider=slider, span=span):
                slider.value = type(slider.value)(span[k % len(span)])  # int for an IntSlider

            median, worst = time_ms(step)
            verdict = "PASS" if median < BUDGET_MS else "MISS"
            print(f"{name + ': ' + control:48s} {median:10.1f} {worst:8.1f} {median / floor:12.1f}  {verdict}")
        print(f"{'  (reference: empty figure to PNG)':48s} {floor:10.1f}")


if __name__ == "__main__":
    main()
