#!/usr/bin/env python3
"""Writes the NumPy reference files in this folder (run once by hand; tests never run Python).

Every array has a non-square shape (H=3, W=4) or (H=3, W=4, C=2) and the value pattern
    p[y, x, c] = 10*y + x + 100*c           (0..123)
stored as
    float types:   p + 0.25
    signed ints:   p - 60                   (-60..63, fits int8)
    unsigned ints: p
    bool:          (x + y) % 2 == 0
so tests/io/test_io_npy.cpp can recompute every value and check the orientation.
Usage: /usr/bin/python3 make_npy.py   (NumPy 1.24 wrote the committed files)
"""
import numpy as np

def pattern(shape, dtype):
    y, x, c = np.meshgrid(np.arange(3), np.arange(4), np.arange(2), indexing="ij")
    p = 10 * y + x + 100 * c
    kind = np.dtype(dtype).kind
    if kind == "f":
        a = p + 0.25
    elif kind == "i":
        a = p - 60
    elif kind == "u":
        a = p
    else:
        a = (x + y) % 2 == 0
    a = a.astype(dtype)
    return a[:, :, 0] if len(shape) == 2 else a

scalar = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]
# Every dtype, little-endian, C order, (H, W, C).
for t in scalar:
    np.save(f"c_le_{t}_3d.npy", pattern((3, 4, 2), "<" + t))
np.save("c_b1_3d.npy", pattern((3, 4, 2), "?"))
# Every multi-byte dtype big-endian in Fortran order, (H, W, C).
for t in scalar:
    if t[1] != "1":
        np.save(f"f_be_{t}_3d.npy", np.asfortranarray(pattern((3, 4, 2), ">" + t)))
# ProxImaL's case: a float64 (H, W) image in Fortran order; and the 1-byte types in Fortran order.
np.save("f_le_f8_2d.npy", np.asfortranarray(pattern((3, 4), "<f8")))
np.save("f_u1_2d.npy", np.asfortranarray(pattern((3, 4), "u1")))
np.save("f_b1_3d.npy", np.asfortranarray(pattern((3, 4, 2), "?")))
# .npz: several arrays stored (np.savez), one and two arrays deflated (np.savez_compressed).
np.savez("two_stored.npz", image=pattern((3, 4), "<f4"), weights=pattern((3, 4, 2), "<u2"))
np.savez_compressed("one_deflated.npz", pattern((3, 4, 2), "<f8"))  # named arr_0
np.savez_compressed("two_deflated.npz", b=np.asfortranarray(pattern((3, 4), "<f8")), mask=pattern((3, 4), "?"))
