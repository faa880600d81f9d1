"""ProxImaL's proximal.utils.utils: Impl, psf2otf, tic / toc, test images (from the repository's
data/ directory: nothing is downloaded) and small image helpers."""

import os
import sys
import timeit

import numpy as np

from .rt import Error

__all__ = ["Impl", "psf2otf", "circshift", "fftd", "ifftd", "tic", "toc", "im2nparray", "psnr", "get_test_image",
           "get_kernel"]

# ProxImaL's implementation switch: accepted, and ignored — ProxGen always runs JIT-compiled Halide.
Impl = {"numpy": 0, "halide": 1, "pycuda": 2}


def circshift(x, shifts):
    """x rolled by shifts[j] along axis j."""
    return np.roll(x, tuple(int(s) for s in shifts), axis=tuple(range(len(shifts))))


def fftd(image, dims=None):
    """The FFT over all axes (dims=None) or the first `dims` axes."""
    return np.fft.fftn(image, axes=None if dims is None else tuple(range(dims)))


def ifftd(image, dims=None):
    return np.fft.ifftn(image, axes=None if dims is None else tuple(range(dims)))


def psf2otf(K, outsize, dims=None):
    """The optical transfer function of the kernel K for images of shape outsize: K zero-padded to
    outsize, its centre (size // 2 along each axis) moved to the origin, then FFT'd over all axes
    (or the first `dims`). Complex; the imaginary part is zeroed where it is round-off (as ProxImaL)."""
    K = np.asarray(K)
    if K.ndim != len(outsize):
        raise Error("psf2otf: the kernel's shape {} and outsize {} differ in rank".format(K.shape, tuple(outsize)))
    padded = np.pad(K, [(0, int(n) - s) for s, n in zip(K.shape, outsize)])
    shifts = [-(s // 2) for s in K.shape]
    if dims is not None and dims < K.ndim:
        shifts = shifts[:dims]
    otf = fftd(circshift(padded, shifts), dims)
    # the FFT's round-off: about log2(n) float32 epsilons per element and transform
    sizes = K.shape if dims is None else K.shape[:dims]
    n_elem = float(np.prod(sizes))
    n_ops = sum(s * np.log2(s) * n_elem / s for s in sizes if s > 0)
    peak = np.amax(np.abs(otf))
    if peak > 0 and np.amax(np.abs(otf.imag)) / peak <= n_ops * np.finfo(np.float32).eps:
        otf = otf.real + 0j
    return otf


_last_tic = []


def tic():
    """Starts a timer (returns its start, for toc(t))."""
    t = timeit.default_timer()
    _last_tic[:] = [t]
    return t


def toc(t=None):
    """Milliseconds since tic() (or since t)."""
    if t is None:
        if not _last_tic:
            print("Error: Call to toc did never call tic before.", file=sys.stderr)
            return 0.0
        t = _last_tic[0]
    return (timeit.default_timer() - t) * 1000.0


def im2nparray(img, datatype=np.float32):
    """An integer image scaled to [0, 1] by its type's maximum."""
    a = np.array(img)
    return a.astype(datatype) / (2 ** np.iinfo(a.dtype).bits - 1)


def psnr(x, ref, pad=None, maxval=1.0):
    """Peak signal-to-noise ratio in dB, optionally ignoring `pad[j]` pixels at each end of axis j."""
    if ref.shape != x.shape:
        raise Error("psnr: shapes {} and {} differ".format(x.shape, ref.shape))
    index = tuple(slice(p, -p) if pad is not None and j < len(pad) and pad[j] > 0 else slice(None)
                  for j, p in enumerate(list(pad or []) + [0] * (x.ndim - len(pad or []))))
    mse = np.mean((np.asarray(x, np.float64)[index] - np.asarray(ref, np.float64)[index]) ** 2)
    return 10.0 * np.log10(maxval ** 2 / mse) if mse > np.finfo(float).eps else np.inf


def _data_dir():
    """The repository's data/ directory: $PROXGEN_DATA_DIR, else found above this file (the source
    tree, or a build tree inside it)."""
    if os.environ.get("PROXGEN_DATA_DIR"):
        return os.environ["PROXGEN_DATA_DIR"]
    for start in (os.path.abspath(__file__), os.path.realpath(__file__)):
        d = os.path.dirname(start)
        while os.path.dirname(d) != d:
            if os.path.isfile(os.path.join(d, "data", "blur_kernel_9x9.npy")):
                return os.path.join(d, "data")
            d = os.path.dirname(d)
    return None


def _data_file(name, hint):
    d = _data_dir()
    path = None if d is None else os.path.join(d, name)
    if path is None or not os.path.isfile(path):
        raise Error("{}: {} not found (looked in {}; set PROXGEN_DATA_DIR to the repository's data directory{})"
                    .format(hint, name, d or "no data directory", "" if name.endswith(".npy") else
                            ", after tools/fetch_demo_images.sh data"))
    return path


def _resized(image, height, width):
    """Bilinear resampling of the first two axes (pixel centres aligned)."""
    h, w = image.shape[:2]
    ys = np.clip((np.arange(height) + 0.5) * h / height - 0.5, 0, h - 1)
    xs = np.clip((np.arange(width) + 0.5) * w / width - 0.5, 0, w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy = (ys - y0).reshape((-1, 1) + (1,) * (image.ndim - 2))
    fx = (xs - x0).reshape((1, -1) + (1,) * (image.ndim - 2))
    top = image[y0][:, x0] * (1 - fx) + image[y0][:, x1] * fx
    bottom = image[y1][:, x0] * (1 - fx) + image[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def get_test_image(WIDTH, color=False):
    """A WIDTH x WIDTH test photograph in [0, 1], float32: the repository's data/camera.png (gray) or
    data/astronaut.png (colour, (WIDTH, WIDTH, 3)), resized. ProxImaL's are SciPy's ascent and
    face; these are the images the project's demos use."""
    from . import load_image

    image = load_image(_data_file("astronaut.png" if color else "camera.png", "get_test_image"))
    if not color and image.ndim == 3:
        image = image[..., :3].mean(axis=2)
    if color and image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    return np.asfortranarray(_resized(np.asarray(image, np.float64), WIDTH, WIDTH), dtype=np.float32)


def get_kernel(WIDTH, ndim):
    """A WIDTH x WIDTH blur kernel (WIDTH odd) summing to 1, float32; (WIDTH, WIDTH, 3) for ndim 3.
    It is the repository's data/blur_kernel_9x9.npy (a Gaussian, sigma 2 pixels) resized (ProxImaL's
    is its snake-shaped kernel_snake.png)."""
    if WIDTH % 2 != 1:
        raise Error("get_kernel: WIDTH must be odd, got {}".format(WIDTH))
    K = np.load(_data_file("blur_kernel_9x9.npy", "get_kernel")).astype(np.float64)
    if WIDTH != K.shape[0]:
        K = _resized(K, WIDTH, WIDTH)
    K = np.asfortranarray(K / K.sum(), dtype=np.float32)
    return K if ndim == 2 else np.asfortranarray(np.repeat(K[..., None], 3, axis=2))
