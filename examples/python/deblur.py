#!/usr/bin/env python3
"""Deblurring a photograph with ProxGen from Python, written as a ProxImaL user writes it.

    tools/fetch_demo_images.sh data          # data/camera.png (512 x 512, CC0)
    python3 examples/python/deblur.py        # or: deblur.py IMAGE [--size 256] [--iters 200] [--out out]

Blurs the image (9 x 9 Gaussian, sigma 2) and adds noise, then restores it by
    sum_squares(conv(K, x) - b) + lam * group_norm1(grad(x), [2]) + nonneg(x)
with ADMM, Pock-Chambolle and linearized ADMM; plots the objective per iteration when matplotlib is
installed (Debian: python3-matplotlib); writes the images to --out. It then times one iteration of
512^2 TV denoising and of this deconvolution per algorithm, beside ProxImaL's figures for the
denoising (NumPy back end, 2-core machine; none is known for the deconvolution).
"""

import argparse
import os
import sys
import time

import numpy as np

from proxgen import *  # noqa: F401,F403  (the only line a ProxImaL script changes)

# ProxImaL's per-iteration times, ms (NumPy back end on a 2-core machine, 512 x 512): TV denoising,
# the figures the project was given with its reference problem; TV deconvolution + nonneg, the
# figures behind ProxGen's speed bounds (docs/performance.md: 100x ProxImaL per iteration on the
# 512^2 deconvolution, ADMM <= 5.5 ms, PC <= 1.17, L-ADMM <= 1.37), i.e. 550, 117 and 137 ms.
PROXIMAL_MS = {"denoise": {"admm": 334, "pc": 61, "ladmm": 81}, "deconv": {"admm": 550, "pc": 117, "ladmm": 137}}
ALGORITHMS = ["admm", "pc", "ladmm"]
NAMES = {"admm": "ADMM", "pc": "Pock-Chambolle", "ladmm": "linearized ADMM"}


def gaussian_kernel(size=9, sigma=2.0):
    r = np.arange(size) - size // 2
    k = np.exp(-(r[:, None] ** 2 + r[None, :] ** 2) / (2 * sigma ** 2))
    return (k / k.sum()).astype(np.float32)


def circular_blur(img, k):
    """k * img with the kernel centre at size // 2 (what conv(K, x) computes), by FFT."""
    pad = np.zeros_like(img)
    pad[:k.shape[0], :k.shape[1]] = k
    pad = np.roll(pad, (-(k.shape[0] // 2), -(k.shape[1] // 2)), axis=(0, 1))
    return np.real(np.fft.ifft2(np.fft.fft2(img) * np.fft.fft2(pad))).astype(np.float32)


def psnr(x, ref):
    return 10 * np.log10(1.0 / np.mean((np.clip(x, 0, 1) - ref) ** 2))


def load(path, size):
    if path == "synthetic":  # a test pattern, for smoke runs without the photograph
        yy, xx = np.mgrid[0:size, 0:size]
        img = 0.2 + 0.6 * (((xx // 8) + (yy // 8)) % 2) + 0.1 * np.sin(xx / 5.0)
        return img.astype(np.float32)
    if not os.path.exists(path):
        sys.exit("deblur.py: {} not found; fetch it with tools/fetch_demo_images.sh data".format(path))
    img = load_image(path)
    if img.ndim == 3:
        img = img[..., :3].mean(axis=2)
    if size < min(img.shape):
        y0, x0 = (img.shape[0] - size) // 2, (img.shape[1] - size) // 2
        img = img[y0:y0 + size, x0:x0 + size]
    return np.ascontiguousarray(img, dtype=np.float32)


def deconvolution(b, K, lam):
    x = Variable(b.shape)
    return Problem(sum_squares(conv(K, x) - b) + lam * group_norm1(grad(x), [2]) + nonneg(x)), x


def denoising(b, lam):
    x = Variable(b.shape)
    return Problem(sum_squares(x - b) + lam * group_norm1(grad(x), [2])), x


def per_iteration_ms(prob, solver, iters):
    """Milliseconds per iteration (compiled beforehand, fixed iteration count, median of 3)."""
    prob.solve(solver=solver, max_iters=2, eps_abs=0, eps_rel=0)  # JIT compilation, once per structure
    runs = []
    for _ in range(3):
        prob.solve(solver=solver, max_iters=iters, eps_abs=0, eps_rel=0)
        runs.append(1000.0 * prob.result.solve_seconds / prob.result.iterations)
    return float(np.median(runs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image", nargs="?", default="data/camera.png", help="an image file, or 'synthetic'")
    ap.add_argument("--size", type=int, default=512, help="crop to size x size (default 512)")
    ap.add_argument("--iters", type=int, default=300, help="iterations per algorithm (default 300)")
    ap.add_argument("--timing-iters", type=int, default=20, help="iterations per timing run (default 20)")
    ap.add_argument("--out", default="out", help="output directory (default out)")
    args = ap.parse_args()

    clean = load(args.image, args.size)
    K = gaussian_kernel()
    rng = np.random.default_rng(0)
    b = circular_blur(clean, K) + 0.01 * rng.standard_normal(clean.shape).astype(np.float32)
    os.makedirs(args.out, exist_ok=True)
    save_image(os.path.join(args.out, "deblur_input.png"), np.clip(b, 0, 1))
    print("image {} x {}: blurred and noisy, PSNR {:.2f} dB".format(clean.shape[1], clean.shape[0], psnr(b, clean)))

    prob, x = deconvolution(b, K, 0.002)
    print(prob.describe("admm"))
    curves = {}
    for solver in ALGORITHMS:
        start = time.perf_counter()
        value = prob.solve(solver=solver, max_iters=args.iters, eps_abs=1e-5, eps_rel=1e-5, track_objective=True,
                           check_every=5)
        wall = time.perf_counter() - start
        r = prob.result
        curves[solver] = ([h["iteration"] for h in r.history], [h["objective"] for h in r.history])
        save_image(os.path.join(args.out, "deblur_{}.png".format(solver)), np.clip(x.value, 0, 1))
        print("{:16s} objective {:.6f}, {} ({} iterations), PSNR {:.2f} dB, {:.2f} s ({:.2f} s compiling)".format(
            NAMES[solver], value, r.status, r.iterations, psnr(x.value, clean), wall, r.compile_seconds))
    plot(curves, os.path.join(args.out, "deblur_convergence.png"))

    print("\nper iteration at {0} x {0}, against ProxImaL's (NumPy back end, 2 cores, 512 x 512):"
          .format(args.size))
    for name, problem in (("denoise", denoising(clean + 0.05 * rng.standard_normal(clean.shape).astype(np.float32),
                                                0.1)[0]),
                          ("deconv", prob)):
        for solver in ALGORITHMS:
            ms = per_iteration_ms(problem, solver, args.timing_iters)
            ref = PROXIMAL_MS.get(name, {}).get(solver)
            if ref is None:
                versus = "ProxImaL  (no figure known)"
            else:
                versus = "ProxImaL {:4d} ms   {}".format(
                    ref, "{:6.1f}x faster".format(ref / ms) if args.size == 512 else "(ProxImaL's is at 512^2)")
            print("  TV {:10s} {:16s} ProxGen {:8.2f} ms   {}".format(
                "denoising" if name == "denoise" else "deconv.", NAMES[solver], ms, versus))


def plot(curves, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: python3-matplotlib): no convergence plot")
        return
    best = min(min(v) for _, v in curves.values())
    fig, ax = plt.subplots(figsize=(6, 4))
    for solver, (its, values) in curves.items():
        ax.semilogy(its, np.maximum(np.asarray(values) - best, 1e-12), label=NAMES[solver])
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective - best")
    ax.set_title("TV deconvolution")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print("wrote", path)


if __name__ == "__main__":
    main()
