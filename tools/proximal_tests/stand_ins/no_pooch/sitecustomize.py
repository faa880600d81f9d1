# tools/proximal_tests/run.sh where pooch (SciPy's downloader) is missing: scipy.datasets.ascent as a
# deterministic 512 x 512 image of 0..255 (the tests compare ProxGen with NumPy on it, not with stored values)
try:
    import numpy as _np, scipy.datasets as _d
    def _ascent():
        y, x = _np.mgrid[0:512, 0:512]
        return (127 + 60 * _np.sin(x / 23.0) * _np.cos(y / 17.0) + 60 * ((x // 64 + y // 64) % 2)).astype(_np.uint8)
    _d.ascent = _ascent
except Exception:
    pass
