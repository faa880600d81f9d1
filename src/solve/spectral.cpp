// Spectral x-updates: the Gram diagonal from the cards' transfer functions (the conventions are
// in proxgen/catalogue/transfer.hpp), the transforms here.
// Transforms: both bases run FFTW's 2-D r2c/c2r. The dct basis computes the DCT-II (REDFT10) and its
// inverse (REDFT01 / 4) through Makhoul's reordering and O(WH) twiddles (dct_divide): FFTW's own
// REDFT10/01 measured 5x slower under FFTW_ESTIMATE and still 2x slower under FFTW_MEASURE.
#include "spectral.hpp"

#include "../jit/disk_cache.hpp"
#include "../jit/kernel.hpp"

#include <fftw3.h>

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cmath>
#include <complex>
#include <map>
#include <mutex>
#include <limits>
#include <numbers>
#include <tuple>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"

namespace proxgen::spectral {

namespace {

using catalogue::Grid;
using catalogue::Row;
using catalogue::TransferTables;

/// Whether n's linear part is diagonal in basis b: every node's card says, given its operands'.
bool allows(const ir::Node& n, Basis b, bool inside_grad) {
    return catalogue::card_of(n).diagonal_in(n, b, inside_grad,
                                             [b](const ir::Node& a, bool in_grad) { return allows(a, b, in_grad); });
}

const ir::Node* find_variable(const ir::Node& n) {
    if (n.is_variable()) return &n;
    for (const auto& a : n.args)
        if (const auto* v = find_variable(a)) return v;
    return nullptr;
}

/// The transfer functions of an expression, one spectral row at a time, each node's from its card
/// (no transcendental per frequency and no W×H temporaries: a Gram is built in O(nodes·W·H)).
class Transfer {
public:
    Transfer(const ir::Node& root, const Grid& g) {
        t_.grid = g;
        prepare(root);
        t_.row = [this](const ir::Node& n, int ky, std::vector<Row>& out) { return row(n, ky, out); };
    }
    bool row(const ir::Node& n, int ky, std::vector<Row>& out) const {
        return catalogue::card_of(n).transfer_row(n, t_, ky, out);
    }

private:
    void prepare(const ir::Node& n) {
        for (const auto& a : n.args) prepare(a);
        catalogue::card_of(n).prepare_transfer(n, t_);
    }
    TransferTables t_;
};

// ---- FFTW plans: r2c and c2r per (direction, W, H, channels, threads), for both bases,
// process-wide. FFTW_MEASURE makes the r2c+c2r pair 1.3x (512²) to 1.4-1.8x (1024²) faster than
// FFTW_ESTIMATE (0.3 ms and 2-4 ms per solve) but costs 0.7-1.4 s of planning per new size, which a
// first solve must not wait for. A transform keeps the plan it is first given for the life of the
// process, so that every solve in it rounds alike (a batch member equals its solo solve, a rerun
// equals the first run): from kMeasuredFrom samples that is the measured plan where the wisdom
// beside the kernel cache (fftw-wisdom-f32) has it, else the estimated plan while a background
// thread measures the transform and saves its wisdom for the processes that follow.
// PROXGEN_FFTW_MEASURE=0 neither reads nor measures.
constexpr long kMeasuredFrom = 256 * 256;  // below this, measuring saves less than it costs

// forward, W, H, channels, threads, half: the complex (W/2) × H transform that half_split /
// half_merge complete, instead of the r2c / c2r one
using PlanKey = std::tuple<bool, int, int, int, int, bool>;

bool env_is(const char* name, const char* value) {
    const char* e = std::getenv(name);
    return e && std::string(e) == value;
}

/// FFTW's parallel loop (fftwf_threads_set_callback): its jobs as jit::parallel_for's tasks.
void loop_on_the_kernels_pool(void* (*work)(char*), char* jobdata, std::size_t elsize, int njobs, void*) {
    jit::parallel_for(njobs, [&](int i) { work(jobdata + std::size_t(i) * elsize); });
}

/// The plans' state, leaked: plans outlive every solve, including ones running in other threads'
/// static destructors, and stay reachable at exit.
struct Plans {
    std::mutex m;
    std::map<PlanKey, fftwf_plan> plans;
    bool threads_ok = false, wisdom_read = false, measuring = false;
    std::vector<PlanKey> to_measure;
    std::condition_variable work;

    static Plans& get() {
        static Plans& p = *[] {
            auto* plans = new Plans;
            plans->threads_ok = fftwf_init_threads() != 0;
            // FFTW's parallel loops on the kernels' thread pool, not on threads of its own beside it
            // (PROXGEN_FFTW_OWN_THREADS=1 keeps FFTW's: benchmarks compare the two)
            if (plans->threads_ok && !env_is("PROXGEN_FFTW_OWN_THREADS", "1"))
                fftwf_threads_set_callback(&loop_on_the_kernels_pool, nullptr);
            fftwf_make_planner_thread_safe();  // also guards planners other code in the process may run
            return plans;
        }();
        return p;
    }
};

/// Where the measured plans' wisdom lives ("" where the kernel cache is off).
std::string wisdom_file() {
    const jit::DiskCache* cache = jit::DiskCache::instance();
    return cache ? cache->directory() + "/fftw-wisdom-f32" : std::string();
}

bool measuring_enabled() {
    static const bool on = !env_is("PROXGEN_FFTW_MEASURE", "0");
    return on;
}

/// Plans key's transform with `flags` on scratch arrays (FFTW_MEASURE overwrites its arrays) of
/// fftwf_malloc's alignment, which solve()'s arrays share; null where FFTW cannot (or, with
/// FFTW_WISDOM_ONLY, has no wisdom for it).
fftwf_plan make_plan(const PlanKey& key, unsigned flags, bool threads_ok) {
    const auto [forward, W, H, C, threads, half] = key;
    if (threads_ok) fftwf_plan_with_nthreads(threads);
    if (half) {  // a plane's even and odd columns as the real and imaginary parts of (W/2) × H samples
        const int n[2] = {H, W / 2}, dist = (W / 2) * H;
        fftwf_complex* a = fftwf_alloc_complex(std::size_t(dist) * C);
        fftwf_complex* b = fftwf_alloc_complex(std::size_t(dist) * C);
        fftwf_plan p = fftwf_plan_many_dft(2, n, C, a, nullptr, 1, dist, b, nullptr, 1, dist,
                                           forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
        fftwf_free(a);
        fftwf_free(b);
        return p;
    }
    const int n[2] = {H, W};  // row-major (H, W) = Halide's x-fastest layout, one plane per channel
    const int real_dist = W * H, cplx_dist = (W / 2 + 1) * H;
    float* r = fftwf_alloc_real(std::size_t(real_dist) * C);
    fftwf_complex* c = fftwf_alloc_complex(std::size_t(cplx_dist) * C);
    fftwf_plan p = forward ? fftwf_plan_many_dft_r2c(2, n, C, r, nullptr, 1, real_dist, c, nullptr, 1, cplx_dist, flags)
                           : fftwf_plan_many_dft_c2r(2, n, C, c, nullptr, 1, cplx_dist, r, nullptr, 1, real_dist, flags);
    fftwf_free(r);
    fftwf_free(c);
    return p;
}

/// The background thread: measures queued transforms one at a time and saves the process's wisdom
/// (merged with the file's: other processes write it too). The measured plans themselves are
/// destroyed: this process's solves keep the plans they started with.
void measure_queued(Plans& P) {
    for (;;) {
        PlanKey key;
        {
            std::unique_lock lock(P.m);
            if (P.to_measure.empty()) {
                P.measuring = false;
                P.work.notify_all();
                return;
            }
            key = P.to_measure.front();
            P.to_measure.erase(P.to_measure.begin());
        }
        // FFTW's own lock serializes planners; this one is not held, so solves go on meanwhile
        const fftwf_plan p = make_plan(key, FFTW_MEASURE, P.threads_ok);
        if (p == nullptr) continue;
        fftwf_destroy_plan(p);
        if (const std::string file = wisdom_file(); !file.empty()) {
            fftwf_import_wisdom_from_filename(file.c_str());
            const std::string tmp = file + ".tmp" + std::to_string(::getpid());
            if (fftwf_export_wisdom_to_filename(tmp.c_str())) std::rename(tmp.c_str(), file.c_str());
            else std::remove(tmp.c_str());
        }
    }
}

/// A plan of 1 thread, or 2 for large transforms (always 1 on a thread whose kernels run serially:
/// batch members solved side by side, one per core); the same plan for key's every solve.
fftwf_plan plan_for(bool forward, int W, int H, int C, bool half = false) {
    const long samples = long(W) * H * C;
    // FFTW's threads from the size where the kernels' threads start
    const int threads = !jit::SerialKernels::active() && samples >= jit::kParallelFromElements ? 2 : 1;
    Plans& P = Plans::get();
    const bool measured = measuring_enabled() && samples >= kMeasuredFrom;
    const std::string file = measured ? wisdom_file() : std::string();
    std::lock_guard lock(P.m);
    const PlanKey key{forward, W, H, C, threads, half};
    if (auto it = P.plans.find(key); it != P.plans.end()) return it->second;
    fftwf_plan p = nullptr;
    if (measured) {
        if (!P.wisdom_read && !file.empty()) fftwf_import_wisdom_from_filename(file.c_str());
        P.wisdom_read = true;
        p = make_plan(key, FFTW_MEASURE | FFTW_WISDOM_ONLY, P.threads_ok);
    }
    // no wisdom yet: measured in the background for the processes that follow, which read it from
    // the file (without one, as with the kernel cache off, nothing would use the measurement)
    const bool measure = measured && p == nullptr && !file.empty();
    if (p == nullptr) p = make_plan(key, FFTW_ESTIMATE, P.threads_ok);
    if (p == nullptr) fail("x-update: FFTW could not plan a {}x{}x{} transform", W, H, C);
    P.plans.emplace(key, p);
    if (measure) {
        P.to_measure.push_back(key);
        if (!P.measuring) {
            P.measuring = true;
            std::thread([&P] { measure_queued(P); }).detach();
        }
    }
    return p;
}

}  // namespace

void wait_for_measured_plans() {
    Plans& P = Plans::get();
    std::unique_lock lock(P.m);
    P.work.wait(lock, [&] { return !P.measuring; });
}

namespace {

/// Whether img's samples are one dense block in the variable's layout with FFTW's alignment, so
/// that the transforms can read or write it directly.
bool direct(const Image& img) {
    const auto& buf = img.buffer();
    long stride = 1;
    for (int d = 0; d < buf.dimensions(); ++d) {
        if (buf.dim(d).stride() != stride) return false;
        stride *= buf.dim(d).extent();
    }
    return fftwf_alignment_of(const_cast<float*>(img.data())) == 0;
}

/// Makhoul's order along an axis of n samples (J. Makhoul, IEEE TASSP 28(1), 1980): even samples
/// ascending, then odd ones descending. The real DFT of the reordered signal gives the DCT-II with
/// O(n) extra work, so the dct basis uses the same r2c/c2r plans as the fft one.
int makhoul(int i, int n) { return 2 * i < n ? 2 * i : 2 * (n - 1 - i) + 1; }

/// Rows [first, last) of dense[c][y][x] ← img(x, y, c) (to_dense) or back, with Makhoul's order
/// on both axes if reorder; rows count y fastest, then the channel axes.
void copy_dense(const Image& img, float* dense, bool to_dense, bool reorder, long first, long last) {
    const auto& buf = img.buffer();
    int ext[4] = {1, 1, 1, 1};
    long str[4] = {0, 0, 0, 0};
    for (int d = 0; d < buf.dimensions(); ++d) ext[d] = buf.dim(d).extent(), str[d] = buf.dim(d).stride();
    float* base = const_cast<float*>(img.data());
    const int W = ext[0], H = ext[1], even = (W + 1) / 2;
    dense += first * W;
    for (long r = first; r < last; ++r, dense += W) {
        const int y = int(r % H);
        const long c = r / H;
        float* row = base + (c / ext[2]) * str[3] + (c % ext[2]) * str[2] + (reorder ? makhoul(y, H) : y) * str[1];
        if (!reorder) {  // an Image's x stride is 1
            if (to_dense) std::copy(row, row + W, dense);
            else std::copy(dense, dense + W, row);
        } else if (to_dense) {
            for (int n = 0; n < even; ++n) dense[n] = row[2 * n];
            for (int n = 0; n < W / 2; ++n) dense[W - 1 - n] = row[2 * n + 1];
        } else {
            for (int n = 0; n < even; ++n) row[2 * n] = dense[n];
            for (int n = 0; n < W / 2; ++n) row[2 * n + 1] = dense[W - 1 - n];
        }
    }
}

using jit::in_pieces;

using cf = std::complex<float>;

/// The DCT-domain division, in place on the r2c spectrum V (hx × H) of one Makhoul-reordered plane.
/// Forward (2-D Makhoul): Q(k1,k2) = a V(k1,k2) + ā V(k1,−k2) with a = e^{−iπk2/2H}, and
/// z = e^{−iπk1/2W} Q, give the DCT-II (FFTW's REDFT10 scale) as X(k1,k2) = 2 Re z and
/// X(W−k1,k2) = −2 Im z. Dividing both by their eigenvalues is z' = g_re Re z + i g_im Im z, and the
/// inverse relations Q' = e^{iπk1/2W} z', V'(k1,k2) = ½ ā (Q'(k1,k2) − i Q'(k1,H−k2)), with
/// Q'(k1,H) = 0, give the spectrum of the reordered solution. Frequencies k2 and m2 = H−k2 go
/// together; with w0 = e^{−iπk1/2W} a, w1 = e^{−iπk1/2W} ā, A = w0 V(k2), B = w1 V(m2):
/// z(k2) = A + B, z(m2) = i(A − B), V'(k2) = ½ w̄0 (u0 − i u1), V'(m2) = ½ w̄1 (u0 + i u1), u = z'.
/// Real arithmetic (std::complex's NaN-checked product is 3x slower); the ½ is folded into g.
/// Pairs k2 ∈ [first, last) of [0, H/2].
void dct_divide(cf* V, const cf* t1, const cf* t2, const float* gre, const float* gim, int hx, int H, int first,
                int last) {
    for (int k2 = first; k2 < last; ++k2) {
        const int m2 = (H - k2) % H;
        float* v0 = reinterpret_cast<float*>(V + std::size_t(k2) * hx);
        float* v1 = reinterpret_cast<float*>(V + std::size_t(m2) * hx);
        const float *gr0 = gre + std::size_t(k2) * hx, *gi0 = gim + std::size_t(k2) * hx;
        const float *gr1 = gre + std::size_t(m2) * hx, *gi1 = gim + std::size_t(m2) * hx;
        const float ar = t2[k2].real(), ai = t2[k2].imag();
        for (int k1 = 0; k1 < hx; ++k1) {
            const float tr = t1[k1].real(), ti = t1[k1].imag();
            const float w0r = tr * ar - ti * ai, w0i = tr * ai + ti * ar;  // t1·a
            const float w1r = tr * ar + ti * ai, w1i = ti * ar - tr * ai;  // t1·ā
            const float x0r = v0[2 * k1], x0i = v0[2 * k1 + 1], x1r = v1[2 * k1], x1i = v1[2 * k1 + 1];
            const float Ar = w0r * x0r - w0i * x0i, Ai = w0r * x0i + w0i * x0r;
            const float Br = w1r * x1r - w1i * x1i, Bi = w1r * x1i + w1i * x1r;
            const float u0r = gr0[k1] * (Ar + Br), u0i = gi0[k1] * (Ai + Bi);
            const float u1r = gr1[k1] * (Bi - Ai), u1i = gi1[k1] * (Ar - Br);
            const float pr = u0r + u1i, pi = u0i - u1r, qr = u0r - u1i, qi = u0i + u1r;
            v0[2 * k1] = w0r * pr + w0i * pi;  // w̄0 · p
            v0[2 * k1 + 1] = w0r * pi - w0i * pr;
            v1[2 * k1] = w1r * qr + w1i * qi;  // w̄1 · q
            v1[2 * k1 + 1] = w1r * qi - w1i * qr;
        }
    }
}

/// The real 2-D DFT of small planes through a complex one of half the width. A plane x (W even,
/// W × H) read as z(m, n) = x(2m, n) + i x(2m+1, n) has the complex DFT Z = E + iO, E and O the DFTs
/// of the even and odd columns; each is the DFT of real samples, so E = (Z(k) + conj Z(−k))/2 and
/// O = (Z(k) − conj Z(−k))/(2i), and the r2c half spectrum is V(k1, k) = E + w^k O and
/// V(k1, k + W/2) = E − w^k O with w = e^{−2πi/W} (half_split); the inverse takes E and O back
/// from V and its mirror (half_merge). FFTW's r2c + c2r took 10.6 µs at 64² where this takes 6.5
/// (32²: 1.43×, 128²: 1.32×; 256²: 0.95× with measured plans, 0.41× with estimated ones), so it
/// serves planes of up to kHalfComplexUpTo samples. The mirrored row is copied reversed first
/// so that both passes read forwards and vectorize.
constexpr long kHalfComplexUpTo = 128 * 128;

/// Row k1 of the half spectrum (M + 1 values) from rows k1 and −k1 of Z (M values each).
void half_split(const cf* z, const cf* z_mirror, cf* v, int M, const float* wr, const float* wi, float* rev) {
    const float* zf = reinterpret_cast<const float*>(z);
    const float* zm = reinterpret_cast<const float*>(z_mirror);
    float* vf = reinterpret_cast<float*>(v);
    {  // k = 0 pairs with Z(−k1, 0) and also gives V(k1, M)
        const float ar = zf[0], ai = zf[1], cr = zm[0], ci = -zm[1];
        const float er = 0.5f * (ar + cr), ei = 0.5f * (ai + ci), o_r = 0.5f * (ai - ci), oi = -0.5f * (ar - cr);
        vf[0] = er + o_r, vf[1] = ei + oi, vf[2 * M] = er - o_r, vf[2 * M + 1] = ei - oi;
    }
    for (int k = 1; k < M; ++k) rev[2 * k] = zm[2 * (M - k)], rev[2 * k + 1] = zm[2 * (M - k) + 1];
    for (int k = 1; k < M; ++k) {
        const float ar = zf[2 * k], ai = zf[2 * k + 1], cr = rev[2 * k], ci = -rev[2 * k + 1];
        const float er = 0.5f * (ar + cr), ei = 0.5f * (ai + ci), o_r = 0.5f * (ai - ci), oi = -0.5f * (ar - cr);
        vf[2 * k] = er + (wr[k] * o_r - wi[k] * oi);
        vf[2 * k + 1] = ei + (wr[k] * oi + wi[k] * o_r);
    }
}

/// Row k1 of Z for the inverse (unnormalized, as FFTW's c2r) from rows k1 and −k1 of the half
/// spectrum: Z(k) = V(k) + V(k + M) + i w^{−k} (V(k) − V(k + M)), V(k1, k + M) = conj V(−k1, M − k).
void half_merge(const cf* v, const cf* v_mirror, cf* z, int M, const float* wr, const float* wi, float* rev) {
    const float* vf = reinterpret_cast<const float*>(v);
    const float* vm = reinterpret_cast<const float*>(v_mirror);
    float* zf = reinterpret_cast<float*>(z);
    for (int k = 0; k < M; ++k) rev[2 * k] = vm[2 * (M - k)], rev[2 * k + 1] = vm[2 * (M - k) + 1];
    for (int k = 0; k < M; ++k) {
        const float y0r = vf[2 * k], y0i = vf[2 * k + 1], y1r = rev[2 * k], y1i = -rev[2 * k + 1];
        const float sr = y0r + y1r, si = y0i + y1i, dr = y0r - y1r, di = y0i - y1i;
        const float cr = wr[k], ci = -wi[k];  // w^{−k}
        const float qr = cr * dr - ci * di, qi = cr * di + ci * dr;
        zf[2 * k] = sr - qi;
        zf[2 * k + 1] = si + qr;
    }
}

}  // namespace

const char* name(Basis b) {
    return b == Basis::fft ? "fft" : b == Basis::dct ? "dct" : "none";
}

bool diagonal_in(const ir::Node& expr, Basis b) { return b != Basis::none && allows(expr, b, false); }

Basis basis_of(const ir::Node& linear_expr) {
    if (diagonal_in(linear_expr, Basis::fft)) return Basis::fft;
    if (diagonal_in(linear_expr, Basis::dct)) return Basis::dct;
    return Basis::none;
}

Basis common_basis(const std::vector<const ir::Node*>& exprs) {
    for (Basis b : {Basis::dct, Basis::fft})
        if (std::all_of(exprs.begin(), exprs.end(), [&](const ir::Node* e) { return diagonal_in(*e, b); }))
            return b;
    return Basis::none;
}

struct GramSolver::Impl {
    Grid grid{};
    std::vector<int> shape;
    int channels = 1, hx = 1;  // hx = W/2+1: the r2c spectrum is hx × H per channel
    std::vector<std::vector<int>> block_shapes;  // one per block (one block: the variable's)
    std::vector<int> block_of_channel;
    // the eigenvalues, nx × ny, x fastest, one table per block; allocated at the first term (empty:
    // zeros): a solver whose inverse finalize_sum makes from other solvers' tables keeps none
    std::vector<double> gram;
    double lo = 0, hi = 0;  // the smallest and largest eigenvalue finalize_sum combined (no table)
    bool ready = false;
    // per block, on the hx × H half spectrum: 1/(eigenvalue · W·H) (fft); for the dct, of X(k1,·)
    // in gre and of X(W−k1,·) in gim (see dct_divide)
    std::vector<float> gre, gim;
    std::vector<cf> t1, t2;       // dct twiddles e^{−iπk1/2W}, e^{−iπk2/2H}
    fftwf_plan fwd = nullptr, bwd = nullptr;
    bool half_complex = false;            // small planes: the transforms through half_split / half_merge
    cf* z = nullptr;                      // their complex (W/2) × H planes
    std::vector<float> wr, wi, rev;       // w^k = e^{−2πik/W}, k ≤ W/2; a reversed row
    std::mutex m;
    float* real = nullptr;  // W·H·C: the (reordered) rhs or x when they cannot be used in place
    cf* spec = nullptr;     // C × hx·H

    ~Impl() { fftwf_free(real); fftwf_free(spec); fftwf_free(z); }
    std::size_t spatial() const { return std::size_t(grid.W) * grid.H; }
    std::size_t spectral() const { return std::size_t(grid.nx) * grid.ny; }
    std::size_t half() const { return std::size_t(hx) * grid.H; }
    std::vector<double>& table() {
        if (gram.empty()) gram.assign(spectral() * block_shapes.size(), 0.0);
        return gram;
    }
};

GramSolver::GramSolver(Basis basis, std::vector<int> variable_shape)
    : GramSolver(basis, std::vector<std::vector<int>>{std::move(variable_shape)}) {}

namespace {
/// The shape of blocks stacked one after another: one block's own, several W×H×(channels summed).
std::vector<int> stacked_shape(const std::vector<std::vector<int>>& blocks) {
    if (blocks.empty()) fail("x-update: a GramSolver needs at least one block");
    if (blocks.size() == 1) return blocks.front();
    int channels = 0;
    for (const auto& b : blocks) {
        if (b.size() < 2 || b[0] != blocks[0][0] || b[1] != blocks[0][1])
            fail("x-update: the blocks of one spectral solve must share their first two extents, got {} and {}",
                 shape_string(blocks[0]), shape_string(b));
        int c = 1;
        for (std::size_t d = 2; d < b.size(); ++d) c *= b[d];
        channels += c;
    }
    return {blocks[0][0], blocks[0][1], channels};
}
}  // namespace

GramSolver::GramSolver(Basis basis, const std::vector<std::vector<int>>& block_shapes)
    : impl_(std::make_unique<Impl>()) {
    std::vector<int> variable_shape = stacked_shape(block_shapes);
    if (basis == Basis::none) fail("x-update: GramSolver needs the fft or the dct basis");
    if (variable_shape.size() < 2 || variable_shape.size() > 4)
        fail("x-update: a spectral solve needs a 2-D variable (optionally with channels), got {}",
             shape_string(variable_shape));
    for (int s : variable_shape)
        if (s < 1) fail("x-update: the variable's shape {} has an empty axis", shape_string(variable_shape));
    auto& I = *impl_;
    const int W = variable_shape[0], H = variable_shape[1];
    I.grid = {basis, W, H, basis == Basis::fft ? W / 2 + 1 : W, H};
    I.hx = W / 2 + 1;
    for (std::size_t d = 2; d < variable_shape.size(); ++d) I.channels *= variable_shape[d];
    I.shape = std::move(variable_shape);
    I.block_shapes = block_shapes;
    for (std::size_t b = 0; b < block_shapes.size(); ++b) {
        int c = 1;
        for (std::size_t d = 2; d < block_shapes[b].size(); ++d) c *= block_shapes[b][d];
        I.block_of_channel.insert(I.block_of_channel.end(), std::size_t(c), int(b));
    }
}

GramSolver::~GramSolver() = default;
GramSolver::GramSolver(GramSolver&&) noexcept = default;
GramSolver& GramSolver::operator=(GramSolver&&) noexcept = default;

void GramSolver::add_term(const ir::Node& expr, double weight, int block) {
    auto& I = *impl_;
    if (block < 0 || std::size_t(block) >= I.block_shapes.size())
        fail("x-update: block {} of a solver of {} blocks", block, I.block_shapes.size());
    const auto& shape = I.block_shapes[std::size_t(block)];
    if (!diagonal_in(expr, I.grid.basis))
        fail("x-update: {} is not diagonal in the {} basis", ir::to_string(expr), name(I.grid.basis));
    const ir::Node* v = find_variable(expr);
    if (v == nullptr) return;  // a constant: no quadratic part
    if (v->shape != shape)
        fail("x-update: {} acts on a {} variable but the solver's is {}", ir::to_string(expr),
             shape_string(v->shape), shape_string(shape));
    const Transfer t(expr, I.grid);
    std::vector<Row> comps;
    std::vector<double>& table = I.table();
    for (int ky = 0; ky < I.grid.ny; ++ky) {
        if (!t.row(expr, ky, comps)) return;  // only constants
        double* g = &table[I.spectral() * std::size_t(block) + std::size_t(ky) * I.grid.nx];
        for (const auto& c : comps)
            for (int kx = 0; kx < I.grid.nx; ++kx) g[kx] += weight * std::norm(c[kx]);
    }
    I.ready = false;
}

void GramSolver::add_identity(double weight) {
    double* g = impl_->table().data();
    const long n = long(impl_->gram.size());
    in_pieces(n, n, [&](long a, long b) {
        for (long i = a; i < b; ++i) g[i] += weight;
    });
    impl_->ready = false;
}

namespace {
/// Another solver's eigenvalues may be added to these only over the same basis and blocks.
template <class Impl>
void require_same_blocks(const Impl& I, const Impl& O) {
    if (O.grid.basis != I.grid.basis || O.block_shapes != I.block_shapes)
        fail("x-update: cannot add a {} Gram over {} blocks to a {} one over {}", name(O.grid.basis),
             O.block_shapes.size(), name(I.grid.basis), I.block_shapes.size());
}
}  // namespace

void GramSolver::add_scaled(const GramSolver& other, double weight) {
    auto& I = *impl_;
    const auto& O = *other.impl_;
    require_same_blocks(I, O);
    I.table();
    I.ready = false;
    if (O.gram.empty()) return;  // zeros
    const long n = long(I.gram.size());
    in_pieces(n, n, [&](long a, long b) {
        for (long i = a; i < b; ++i) I.gram[std::size_t(i)] += weight * O.gram[std::size_t(i)];
    });
}

void GramSolver::clear() {
    impl_->lo = impl_->hi = 0;
    const long n = long(impl_->gram.size());
    in_pieces(n, n, [&](long a, long b) { std::fill(impl_->gram.begin() + a, impl_->gram.begin() + b, 0.0); });
    impl_->ready = false;
}

namespace {

/// Throws where a block's eigenvalues (eigenvalue(b, i)) are singular: some below 1e-12 times the
/// largest, or not finite. Returns the smallest and the largest over every block.
template <class Impl, class Eigenvalue>
std::pair<double, double> check_eigenvalues(const Impl& I, const Eigenvalue& eigenvalue) {
    double all_lo = std::numeric_limits<double>::infinity(), all_hi = -all_lo;
    for (std::size_t b = 0; b < I.block_shapes.size(); ++b) {
        // as std::minmax_element: the first smallest
        double lo = eigenvalue(b, 0), hi = lo;
        std::size_t at = 0;
        bool finite = std::isfinite(lo);
        for (std::size_t i = 1; i < I.spectral(); ++i) {
            const double v = eigenvalue(b, i);
            finite = finite && std::isfinite(v);
            if (v < lo) lo = v, at = i;
            if (!(v < hi)) hi = v;
        }
        if (!finite || !(hi > 0) || !(lo >= 1e-12 * hi))
            fail("x-update: the quadratic part is singular (its {} eigenvalue at frequency ({}, {}) is {:g}, the "
                 "largest {:g}): the problem needs a term that fixes the constant/mean component (frequency "
                 "(0, 0)) and every other frequency its operators remove, e.g. a data term or a small weight "
                 "times sum_squares(x)",
                 name(I.grid.basis), at % I.grid.nx, at / I.grid.nx, lo, hi);
        all_lo = std::min(all_lo, lo);
        all_hi = std::max(all_hi, hi);
    }
    return {all_lo, all_hi};
}

/// The inverse tables gre/gim from the eigenvalues, and the FFTW plans and work arrays on first use.
template <class Impl, class Eigenvalue>
void prepare_inverse(Impl& I, const Eigenvalue& eigenvalue) {
    const std::size_t blocks = I.block_shapes.size();
    const int W = I.grid.W, H = I.grid.H, hx = I.hx;
    const double scale = I.grid.basis == Basis::fft ? 1.0 : 0.5;  // dct_divide's ½
    I.gre.resize(I.half() * blocks);
    I.gim.resize(I.half() * blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
        auto inv = [&](int k1, int k2) {
            return float(scale / (eigenvalue(b, std::size_t(k2) * I.grid.nx + k1) * double(I.spatial())));
        };
        float *gre = I.gre.data() + I.half() * b, *gim = I.gim.data() + I.half() * b;
        // rebuilt whenever ρ changes (HQS's continuation, ADMM's balancing): rows in pieces
        in_pieces(H, long(I.spatial()), [&](long first, long last) {
            for (int k2 = int(first); k2 < int(last); ++k2)
                for (int k1 = 0; k1 < hx; ++k1) {
                    const std::size_t i = std::size_t(k2) * hx + k1;
                    gre[i] = inv(k1, k2);
                    gim[i] = I.grid.basis == Basis::fft || 2 * k1 == W ? gre[i] : k1 == 0 ? 0.0f : inv(W - k1, k2);
                }
        });
    }
    if (I.fwd == nullptr) {
        I.t1.resize(hx);
        I.t2.resize(H);
        for (int k = 0; k < hx; ++k) I.t1[k] = std::polar(1.0f, float(-std::numbers::pi * k / (2.0 * W)));
        for (int k = 0; k < H; ++k) I.t2[k] = std::polar(1.0f, float(-std::numbers::pi * k / (2.0 * H)));
        I.half_complex = W % 2 == 0 && W >= 4 && long(W) * H <= kHalfComplexUpTo &&
                         !env_is("PROXGEN_FFTW_R2C", "1");
        I.fwd = plan_for(true, W, H, I.channels, I.half_complex);
        I.bwd = plan_for(false, W, H, I.channels, I.half_complex);
        if (I.half_complex) {
            const int M = W / 2;
            I.wr.resize(std::size_t(M) + 1);
            I.wi.resize(std::size_t(M) + 1);
            for (int k = 0; k <= M; ++k) {
                I.wr[std::size_t(k)] = float(std::cos(-2.0 * std::numbers::pi * k / W));
                I.wi[std::size_t(k)] = float(std::sin(-2.0 * std::numbers::pi * k / W));
            }
            I.rev.resize(2 * std::size_t(M));
        }
        const std::size_t z_size = I.half_complex ? std::size_t(W / 2) * H * I.channels : 0;
        I.real = fftwf_alloc_real(I.spatial() * I.channels);
        I.spec = reinterpret_cast<cf*>(fftwf_alloc_complex(I.half() * I.channels));
        if (z_size > 0) I.z = reinterpret_cast<cf*>(fftwf_alloc_complex(z_size));
        if (I.real == nullptr || I.spec == nullptr || (z_size > 0 && I.z == nullptr))
            throw OutOfMemory(fmt::format("x-update: cannot allocate the FFT work arrays ({} bytes)",
                                          (I.spatial() + 2 * I.half()) * I.channels * sizeof(float) + z_size * sizeof(cf)));
    }
    I.ready = true;
}

}  // namespace

void GramSolver::finalize() {
    auto& I = *impl_;
    if (I.ready) return;
    const std::vector<double>& table = I.table();
    const auto eigenvalue = [&](std::size_t b, std::size_t i) { return table[I.spectral() * b + i]; };
    check_eigenvalues(I, eigenvalue);
    prepare_inverse(I, eigenvalue);
}

void GramSolver::finalize_sum(double identity, const std::vector<std::pair<const GramSolver*, double>>& units) {
    auto& I = *impl_;
    for (const auto& unit : units) require_same_blocks(I, *unit.first->impl_);
    std::vector<double>().swap(I.gram);
    // the same operations, in the same order, as clear, add_identity and add_scaled on a table
    const auto eigenvalue = [&](std::size_t b, std::size_t i) {
        double v = 0.0;
        v += identity;
        for (const auto& [unit, weight] : units)
            if (!unit->impl_->gram.empty()) v += weight * unit->impl_->gram[I.spectral() * b + i];
        return v;
    };
    std::tie(I.lo, I.hi) = check_eigenvalues(I, eigenvalue);
    I.ready = false;
    prepare_inverse(I, eigenvalue);
}

void GramSolver::solve(const Image& rhs, Image& x) const {
    auto& I = *impl_;
    std::lock_guard lock(I.m);
    if (!I.ready) const_cast<GramSolver*>(this)->finalize();
    if (rhs.sizes() != I.shape)
        fail("x-update: the right-hand side is {} but the variable is {}", rhs.shape_string(), shape_string(I.shape));
    const bool fft = I.grid.basis == Basis::fft;
    float* in = const_cast<float*>(rhs.data());  // FFTW's out-of-place r2c preserves its input
    const long rows = long(I.grid.H) * I.channels, samples = long(I.spatial()) * I.channels;
    if (!fft || !direct(rhs)) {
        in_pieces(rows, samples, [&](long a, long b) { copy_dense(rhs, I.real, true, !fft, a, b); });
        in = I.real;
    }
    auto* spec = reinterpret_cast<fftwf_complex*>(I.spec);
    const int W = I.grid.W, H = I.grid.H, M = W / 2;
    if (I.half_complex) {
        auto* z = reinterpret_cast<fftwf_complex*>(I.z);
        fftwf_execute_dft(I.fwd, reinterpret_cast<fftwf_complex*>(in), z);
        for (int c = 0; c < I.channels; ++c)
            for (int k1 = 0; k1 < H; ++k1) {
                const cf* plane = I.z + std::size_t(c) * M * H;
                half_split(plane + std::size_t(k1) * M, plane + std::size_t(k1 == 0 ? 0 : H - k1) * M,
                           I.spec + I.half() * c + std::size_t(k1) * I.hx, M, I.wr.data(), I.wi.data(), I.rev.data());
            }
    } else {
        fftwf_execute_dft_r2c(I.fwd, in, spec);
    }
    const std::size_t m = I.half();
    const int pairs = I.grid.H / 2 + 1;  // the dct's frequency pairs (k2, H − k2) per channel
    const long units = fft ? rows : long(pairs) * I.channels;
    in_pieces(units, samples, [&](long a, long b) {
        for (long k = a; k < b;) {
            const long c = fft ? k / I.grid.H : k / pairs, row = fft ? k % I.grid.H : k % pairs;
            const long end = std::min(b, (c + 1) * (fft ? I.grid.H : pairs)) - k + row;  // in this channel
            cf* s = I.spec + m * std::size_t(c);
            const std::size_t table = m * std::size_t(I.block_of_channel[std::size_t(c)]);
            const float *gre = I.gre.data() + table, *gim = I.gim.data() + table;
            if (fft) {
                for (std::size_t i = std::size_t(row) * I.hx; i < std::size_t(end) * I.hx; ++i) s[i] *= gre[i];
            } else {
                dct_divide(s, I.t1.data(), I.t2.data(), gre, gim, I.hx, I.grid.H, int(row), int(end));
            }
            k += end - row;
        }
    });
    if (x.sizes() != I.shape) x = Image(I.shape);
    float* out = fft && direct(x) ? x.data() : I.real;
    if (I.half_complex) {
        for (int c = 0; c < I.channels; ++c)
            for (int k1 = 0; k1 < H; ++k1) {
                const cf* plane = I.spec + I.half() * c;
                half_merge(plane + std::size_t(k1) * I.hx, plane + std::size_t(k1 == 0 ? 0 : H - k1) * I.hx,
                           I.z + std::size_t(c) * M * H + std::size_t(k1) * M, M, I.wr.data(), I.wi.data(),
                           I.rev.data());
            }
        fftwf_execute_dft(I.bwd, reinterpret_cast<fftwf_complex*>(I.z),
                          reinterpret_cast<fftwf_complex*>(out));
    } else {
        fftwf_execute_dft_c2r(I.bwd, spec, out);
    }
    if (out == I.real)
        in_pieces(rows, samples, [&](long a, long b) { copy_dense(x, I.real, false, !fft, a, b); });
}

double GramSolver::min_eigenvalue() const {
    const auto& I = *impl_;
    return I.gram.empty() ? I.lo : *std::min_element(I.gram.begin(), I.gram.end());
}
double GramSolver::max_eigenvalue() const {
    const auto& I = *impl_;
    return I.gram.empty() ? I.hi : *std::max_element(I.gram.begin(), I.gram.end());
}
Basis GramSolver::basis() const { return impl_->grid.basis; }
const std::vector<int>& GramSolver::variable_shape() const { return impl_->shape; }

}  // namespace proxgen::spectral
