#include "convergence_suite.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "reference_problems.hpp"  // tests/: the synthetic scene, Gaussian kernels, noise

namespace proxgen::bench {

namespace {

using ref::Vec;
namespace R = proxgen::reference;

Vec to_vec(const Image& im) { return Vec(im.data(), im.data() + im.size()); }
Image to_image(const Vec& v, std::vector<int> shape) {
    Image im(shape);
    for (std::size_t i = 0; i < v.size(); ++i) im.data()[i] = float(v[i]);
    return im;
}

/// W × W × channels from the photograph (a crop at (x0, y0); gray photographs are copied to each
/// channel shifted by 3 pixels per channel), or the synthetic scene.
Image scene(const std::string& file, int W, int channels, int x0, int y0, std::string& source) {
    Image out({W, W, channels});
    if (std::filesystem::exists(file)) {
        const Image im = load_image(file);
        source = std::filesystem::path(file).stem().string();
        const int iw = im.width(), ih = im.height(), ichannels = im.channels();
        const int cx = std::min(x0, iw - W - 3 * channels), cy = std::min(y0, ih - W);
        for (int c = 0; c < channels; ++c)
            for (int y = 0; y < W; ++y)
                for (int x = 0; x < W; ++x) {
                    const int ic = std::min(c, ichannels - 1), shift = ichannels == 1 ? 3 * c : 0;
                    out.data()[(std::size_t(c) * W + y) * W + x] =
                        im.data()[(std::size_t(ic) * ih + cy + y) * iw + cx + x + shift];
                }
        return out;
    }
    source = "synthetic";
    const R::Field f = R::clean_image(W + 3 * channels);
    for (int c = 0; c < channels; ++c)
        for (int y = 0; y < W; ++y)
            for (int x = 0; x < W; ++x) out.data()[(std::size_t(c) * W + y) * W + x] = float(f(y, x + 3 * c));
    return out;
}

Vec noise(std::uint64_t seed, std::size_t n, double sigma) {
    Vec v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = sigma * R::gauss(seed, i);
    return v;
}

struct Kernel {
    Image image;
    Vec values;
    int size;
};
Kernel gaussian(int size, double sigma) {
    const R::Field f = R::gaussian_kernel(size, sigma);
    Kernel k{f.to_image(), {}, size};
    for (int b = 0; b < size; ++b)
        for (int a = 0; a < size; ++a) k.values.push_back(f(b, a));
    return k;
}
/// A 9-tap horizontal-diagonal motion blur (sums to 1, single-signed).
Kernel motion() {
    Kernel k{Image({9, 9}), Vec(81, 0.0), 9};
    for (int i = 0; i < 9; ++i) {
        const int b = 4 + (i - 4) / 3;
        k.values[std::size_t(b) * 9 + i] = 1.0 / 9;
        Halide::Runtime::Buffer<float>& buf = k.image;
        buf(i, b) = float(1.0 / 9);
    }
    return k;
}

Vec applied(const ref::OpPtr& K, const Vec& x) {
    Vec y;
    K->apply(x, y);
    return y;
}
Vec plus(Vec a, const Vec& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    return a;
}
/// Values below 0 and above 1 (noise on a [0, 1] image) are kept: the data term sees them.
Vec mask_values(std::uint64_t seed, std::size_t n, double keep) {
    Vec m(n);
    for (std::size_t i = 0; i < n; ++i) m[i] = R::uniform01(seed, i) < keep ? 1.0 : 0.0;
    return m;
}

using ref::Penalty;

ref::Term term(Penalty p, double alpha, ref::OpPtr K, Vec b = {}, int groups = 1) {
    ref::Term t{p, alpha, std::move(K), std::move(b), groups};
    return t;
}

}  // namespace

std::vector<std::string> suite_names() {
    return {"denoise",   "deconv",  "poisson",   "superres", "superres_random", "svb", "svb_masked", "multi",
            "color",     "volume",  "huber_box", "inpaint",  "l1_deblur"};
}

SuiteProblem make_suite_problem(const std::string& name, int W, const std::string& data_dir) {
    SuiteProblem s;
    s.name = name;
    const std::string camera = data_dir + "/camera.png", astronaut = data_dir + "/astronaut.png";
    const std::size_t N = std::size_t(W) * W;
    auto x = rt::variable("x", {W, W});
    const auto I = ref::identity(N);
    const auto G = ref::grad(W, W, 1, {0, 1});
    auto tv = [&](double lambda) {
        s.problem += lambda * rt::group_norm1(rt::grad(x));
        s.reference.terms.push_back(term(Penalty::group_norm1, lambda, G, {}, 2));
    };
    s.reference.n = N;
    const Image clean = scene(camera, W, 1, 200, 120, s.source);
    const Vec c = to_vec(clean);

    if (name == "denoise") {
        s.kind = "TV denoising: ||x - b||^2 + 0.1 TV(x), noise 0.05";
        const Vec b = plus(c, noise(11, N, 0.05));
        s.problem = rt::sum_squares(x - rt::Data(to_image(b, {W, W})));
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, I, b));
        tv(0.1);
    } else if (name == "deconv") {
        s.kind = "TV deconvolution: ||k*x - b||^2 + 0.002 TV(x) + nonneg(x), 9x9 Gaussian sigma 2, noise 0.01";
        const Kernel k = gaussian(9, 2.0);
        const auto K = ref::conv(k.values, 9, 9, W, W);
        const Vec b = plus(applied(K, c), noise(12, N, 0.01));
        s.problem = rt::sum_squares(rt::conv(k.image, x) - rt::Data(to_image(b, {W, W}))) + rt::nonneg(x);
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, K, b));
        s.reference.terms.push_back(term(Penalty::nonneg, 1, I));
        tv(0.002);
    } else if (name == "poisson") {
        s.kind = "Poisson deblurring: poisson(k*x, b) + 0.05 TV(x), peak 100 photons, 9x9 Gaussian sigma 2";
        const Kernel k = gaussian(9, 2.0);
        const auto K = ref::conv(k.values, 9, 9, W, W);
        Vec scaled = c;
        for (auto& v : scaled) v = 100 * std::max(v, 0.02);
        const Vec e = applied(K, scaled);
        Vec b(N);
        for (std::size_t i = 0; i < N; ++i)  // Gaussian approximation of Poisson noise, rounded to counts
            b[i] = std::max(0.0, std::round(e[i] + std::sqrt(e[i]) * R::gauss(13, i)));
        s.problem = rt::poisson_norm(rt::conv(k.image, x), rt::Data(to_image(b, {W, W})));
        s.reference.terms.push_back(term(Penalty::poisson, 1, K, b));
        tv(0.05);
        s.x0 = to_image(b, {W, W});
        for (double v : b) s.shift += (v > 0 ? v * std::log(v) : 0.0) - v;
    } else if (name == "superres") {
        s.kind = "masked super-resolution x2: ||m . S(k*x) - b||^2 + 0.001 TV(x), 70% of the low-res samples";
        const Kernel k = gaussian(5, 1.0);
        const auto K = ref::conv(k.values, 5, 5, W, W);
        const int w2 = W / 2;
        const Vec m = mask_values(14, std::size_t(w2) * w2, 0.7);
        const auto A = ref::mul(m, ref::subsample(W, W, 1, 2, 2, K));
        Vec b = plus(applied(A, c), noise(15, std::size_t(w2) * w2, 0.01));
        for (std::size_t i = 0; i < b.size(); ++i) b[i] *= m[i];
        s.problem = rt::sum_squares(rt::mul_elemwise(to_image(m, {w2, w2}), rt::subsample(rt::conv(k.image, x), 2, 2)) -
                                    rt::Data(to_image(b, {w2, w2})));
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, A, b));
        tv(0.001);
    } else if (name == "superres_random") {
        s.kind = "masked super-resolution x2 with nonneg: ||m . S(k*x) - b||^2 + 0.001 TV(x) + nonneg(x), a random "
                 "half of the low-res samples";
        const Kernel k = gaussian(7, 1.5);
        const auto K = ref::conv(k.values, 7, 7, W, W);
        const int w2 = W / 2;
        const Vec m = mask_values(31, std::size_t(w2) * w2, 0.5);
        const auto A = ref::mul(m, ref::subsample(W, W, 1, 2, 2, K));
        Vec b = plus(applied(A, c), noise(32, std::size_t(w2) * w2, 0.01));
        for (std::size_t i = 0; i < b.size(); ++i) b[i] *= m[i];
        s.problem = rt::sum_squares(rt::mul_elemwise(to_image(m, {w2, w2}), rt::subsample(rt::conv(k.image, x), 2, 2)) -
                                    rt::Data(to_image(b, {w2, w2}))) +
                    rt::nonneg(x);
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, A, b));
        s.reference.terms.push_back(term(Penalty::nonneg, 1, I));
        tv(0.001);
    } else if (name == "svb_masked" || name == "svb") {
        // Σ_i w_i ⊙ (k_i * x) with 4 Gaussians: binary quadrant masks, or bilinear weights summing to 1
        const bool masked = name == "svb_masked";
        s.kind = masked ? "sum of masked convolutions: ||sum_i m_i . (k_i*x) - b||^2 + 0.002 TV(x) + nonneg(x), 4 "
                          "Gaussians, binary masks (the image's quadrants)"
                        : "spatially varying blur: ||sum_i w_i . (k_i*x) - b||^2 + 0.002 TV(x) + nonneg(x), 4 "
                          "Gaussians, bilinear weights summing to 1";
        std::vector<ref::OpPtr> parts;
        rt::Expr sum;
        for (int i = 0; i < 4; ++i) {
            const Kernel k = gaussian(9, 1.0 + 0.5 * i);
            Vec w(N);
            for (int yy = 0; yy < W; ++yy)
                for (int xx = 0; xx < W; ++xx) {
                    const double u = double(xx) / (W - 1), v = double(yy) / (W - 1);
                    w[std::size_t(yy) * W + xx] =
                        masked ? ((xx >= W / 2) == bool(i & 1) && (yy >= W / 2) == bool(i & 2)) ? 1 : 0
                               : (i & 1 ? u : 1 - u) * (i & 2 ? v : 1 - v);
                }
            parts.push_back(ref::mul(w, ref::conv(k.values, 9, 9, W, W)));
            const rt::Expr e = rt::mul_elemwise(to_image(w, {W, W}), rt::conv(k.image, x));
            sum = i == 0 ? e : sum + e;
        }
        const auto K = ref::sum(parts);
        const Vec b = plus(applied(K, c), noise(masked ? 33 : 16, N, 0.01));
        s.problem = rt::sum_squares(sum - rt::Data(to_image(b, {W, W}))) + rt::nonneg(x);
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, K, b));
        s.reference.terms.push_back(term(Penalty::nonneg, 1, I));
        tv(0.002);
    } else if (name == "multi") {
        s.kind = "many data terms: 3 blurred frames (Gaussians, motion) + a masked one (50%), 0.002 TV + nonneg";
        const Kernel ks[3] = {gaussian(9, 1.5), gaussian(9, 2.5), motion()};
        for (int i = 0; i < 3; ++i) {
            const auto K = ref::conv(ks[i].values, 9, 9, W, W);
            const Vec b = plus(applied(K, c), noise(17 + i, N, 0.02));
            const rt::Problem t = rt::sum_squares(rt::conv(ks[i].image, x) - rt::Data(to_image(b, {W, W})));
            s.problem = i == 0 ? t : s.problem + t;
            s.reference.terms.push_back(term(Penalty::sum_squares, 1, K, b));
        }
        const Vec m = mask_values(20, N, 0.5);
        const auto M = ref::mul(m, I);
        Vec b = plus(c, noise(21, N, 0.02));
        for (std::size_t i = 0; i < N; ++i) b[i] *= m[i];
        s.problem += rt::sum_squares(rt::mul_elemwise(to_image(m, {W, W}), x) - rt::Data(to_image(b, {W, W})));
        s.problem += rt::nonneg(x);
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, M, b));
        s.reference.terms.push_back(term(Penalty::nonneg, 1, I));
        tv(0.002);
    } else if (name == "color") {
        s.kind = "colour deblurring: ||k*x - b||^2 + 0.002 colour TV (channels coupled) + nonneg, 3 channels";
        const Image rgb = scene(astronaut, W, 3, 180, 60, s.source);
        const Vec cc = to_vec(rgb);
        const std::size_t n3 = 3 * N;
        auto xc = rt::variable("x", {W, W, 3});
        const Kernel k = gaussian(7, 1.5);
        const auto K = ref::conv(k.values, 7, 7, W, W, 3);
        const Vec b = plus(applied(K, cc), noise(22, n3, 0.01));
        s.problem = rt::sum_squares(rt::conv(k.image, xc) - rt::Data(to_image(b, {W, W, 3}))) +
                    0.002 * rt::group_norm1(rt::merge_last_axes(rt::grad(xc))) + rt::nonneg(xc);
        s.reference = {};
        s.reference.n = n3;
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, K, b));
        s.reference.terms.push_back(term(Penalty::group_norm1, 0.002, ref::grad(W, W, 3, {0, 1}), {}, 6));
        s.reference.terms.push_back(term(Penalty::nonneg, 1, ref::identity(n3)));
    } else if (name == "volume") {
        const int D = std::max(4, W / 6);
        s.kind = "3-D TV denoising: ||x - b||^2 + 0.05 TV3(x) (grad along x, y, z), a W x W x W/6 volume";
        const Image vol = scene(camera, W, D, 200, 120, s.source);
        const std::size_t nv = std::size_t(D) * N;
        const Vec b = plus(to_vec(vol), noise(23, nv, 0.05));
        auto xv = rt::variable("x", {W, W, D});
        s.problem = rt::sum_squares(xv - rt::Data(to_image(b, {W, W, D}))) +
                    0.05 * rt::group_norm1(rt::grad(xv, std::vector<int>{0, 1, 2}));
        s.reference = {};
        s.reference.n = nv;
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, ref::identity(nv), b));
        s.reference.terms.push_back(term(Penalty::group_norm1, 0.05, ref::grad(W, W, D, {0, 1, 2}), {}, 3));
    } else if (name == "huber_box") {
        s.kind = "Huber deblurring: ||k*x - b||^2 + 0.01 huber(grad x, 0.05) + box(x, 0, 1)";
        const Kernel k = gaussian(9, 2.0);
        const auto K = ref::conv(k.values, 9, 9, W, W);
        const Vec b = plus(applied(K, c), noise(24, N, 0.01));
        s.problem = rt::sum_squares(rt::conv(k.image, x) - rt::Data(to_image(b, {W, W}))) +
                    0.01 * rt::huber(rt::grad(x), 0.05) + rt::box(x, 0, 1);
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, K, b));
        ref::Term h = term(Penalty::huber, 0.01, G);
        h.M = 0.05;
        s.reference.terms.push_back(h);
        ref::Term bx = term(Penalty::box, 1, I);
        bx.lo = 0, bx.hi = 1;
        s.reference.terms.push_back(bx);
    } else if (name == "inpaint") {
        s.kind = "inpainting: ||m . x - b||^2 + 0.02 TV(x), half the pixels missing";
        const Vec m = mask_values(25, N, 0.5);
        Vec b = plus(c, noise(26, N, 0.02));
        for (std::size_t i = 0; i < N; ++i) b[i] *= m[i];
        s.problem = rt::sum_squares(rt::mul_elemwise(to_image(m, {W, W}), x) - rt::Data(to_image(b, {W, W})));
        s.reference.terms.push_back(term(Penalty::sum_squares, 1, ref::mul(m, I), b));
        tv(0.02);
    } else if (name == "l1_deblur") {
        s.kind = "robust deblurring: ||k*x - b||_1 + 0.02 TV(x), 5% salt-and-pepper";
        const Kernel k = gaussian(7, 1.5);
        const auto K = ref::conv(k.values, 7, 7, W, W);
        Vec b = applied(K, c);
        for (std::size_t i = 0; i < N; ++i) {
            const double u = R::uniform01(27, i);
            if (u < 0.025) b[i] = 0;
            else if (u < 0.05) b[i] = 1;
        }
        s.problem = rt::norm1(rt::conv(k.image, x) - rt::Data(to_image(b, {W, W})));
        s.reference.terms.push_back(term(Penalty::norm1, 1, K, b));
        tv(0.02);
    } else {
        throw std::invalid_argument("unknown suite problem '" + name + "'");
    }
    return s;
}

}  // namespace proxgen::bench
