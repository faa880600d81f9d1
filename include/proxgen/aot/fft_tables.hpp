// The planning arithmetic of the ahead-of-time FFT driver (proxgen/aot/fft.hpp): how a length is
// split into Stockham passes, when Bluestein's algorithm takes over, and the constant tables the
// passes read, all computed in double precision (the passes then round them once to float).
// Plain C++: no Halide.
#pragma once

#include <complex>
#include <cstdint>
#include <numbers>
#include <vector>

#include "proxgen/aot/fft_kernels.hpp"

namespace proxgen::aot::fft::detail {

using cd = std::complex<double>;

/// e^{i·2π·num/den}, with num reduced modulo den first so that large products stay exact.
inline cd unit(std::int64_t num, std::int64_t den) {
    num %= den;
    if (num < 0) num += den;
    return std::polar(1.0, 2 * std::numbers::pi * double(num) / double(den));
}

/// The radices of the Stockham passes for length n (empty for n = 1), or false when n has a
/// prime factor above 7 (Bluestein's algorithm then computes it). Powers of two go in passes of
/// up to max_bits bits, as even as possible: a pass costs a read and a write of the whole array,
/// so fewer, larger radices win while the butterflies' registers last.
inline bool radices_for(int n, std::vector<int>& out, int max_bits = 4) {
    out.clear();
    int twos = 0;
    while (n % 2 == 0) {
        n /= 2;
        ++twos;
    }
    if (twos > 0) {
        const int passes = (twos + max_bits - 1) / max_bits;
        for (int i = 0; i < passes; ++i) out.push_back(1 << (twos / passes + (i < twos % passes ? 1 : 0)));
    }
    for (int r : {3, 5, 7})
        while (n % r == 0) {
            n /= r;
            out.push_back(r);
        }
    return n == 1;
}

/// The index of radix r in kRadices (-1 when absent).
inline int radix_index(int r) {
    for (std::size_t i = 0; i < kRadixCount; ++i)
        if (kRadices[i] == r) return int(i);
    return -1;
}

/// Bluestein's transform length for n: the smallest 2^a·3^b·5^c ≥ 2n − 1 (a circular convolution
/// of that length holds the linear one of two length-n sequences).
inline int bluestein_length(int n) {
    const std::int64_t need = 2 * std::int64_t(n) - 1;
    std::int64_t best = 1;
    while (best < need) best *= 2;
    for (std::int64_t p5 = 1; p5 < best; p5 *= 5)
        for (std::int64_t p35 = p5; p35 < best; p35 *= 3) {
            std::int64_t v = p35;
            while (v < need) v *= 2;
            if (v < best) best = v;
        }
    return int(best);
}

/// X_k = Σ_n x_n e^{sign·2πi·kn/N} in double precision, for tables only (recursive, O(N·Σ
/// factors)); N must be 2^a·3^b·5^c·7^d.
inline void dft(std::vector<cd>& x, int sign) {
    const int n = int(x.size());
    if (n == 1) return;
    int r = 2;
    while (n % r != 0) ++r;
    const int m = n / r;
    std::vector<std::vector<cd>> sub(r, std::vector<cd>(m));
    for (int i = 0; i < m; ++i)
        for (int q = 0; q < r; ++q) sub[q][i] = x[std::size_t(i) * r + q];
    for (auto& s : sub) dft(s, sign);
    for (int k = 0; k < n; ++k) {
        cd v = 0;
        for (int q = 0; q < r; ++q) v += unit(sign * std::int64_t(q) * k, n) * sub[q][k % m];
        x[k] = v;
    }
}

/// Bluestein's three tables for length n and direction sign, with L = bluestein_length(n) and
/// w_m = e^{sign·iπ·m²/n}: X_k = w_k Σ_j (x_j w_j) conj(w_{k−j}) is a convolution, computed as
/// post · IDFT_L(mid · DFT_L(pre · x)) with pre = w (n entries), mid = DFT_L(b)/L where
/// b_m = conj(w_m) for |m| < n (wrapped modulo L), and post = w (n entries).
struct Chirp {
    std::vector<cd> pre, mid, post;
};
inline Chirp bluestein_tables(int n, int L, int sign) {
    auto w = [&](std::int64_t m) { return unit(sign * (m * m % (2 * std::int64_t(n))), 2 * std::int64_t(n)); };
    Chirp c;
    c.pre.resize(n);
    for (int m = 0; m < n; ++m) c.pre[m] = w(m);
    c.post = c.pre;
    c.mid.assign(L, cd(0));
    for (int m = 0; m < n; ++m) {
        c.mid[m] = std::conj(w(m));
        if (m > 0) c.mid[L - m] = std::conj(w(m));
    }
    dft(c.mid, -1);
    for (auto& v : c.mid) v /= double(L);
    return c;
}

}  // namespace proxgen::aot::fft::detail
