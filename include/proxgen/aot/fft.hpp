// 2-D real FFT, its inverse, 2-D DCT-II and its inverse for generated solvers: every pass is a
// Halide pipeline of a generated library (src/aot/fft_passes.cpp), this header-only driver plans
// them for the sizes given at run time and owns the scratch memory. Needs the Halide runtime only.
//
//   proxgen::aot::fft::Plan plan;
//   if (plan.init(mylib_kernels(), W, H) != Status::ok) puts(plan.last_error());
//   plan.forward(image, spectrum);           // image W×H → spectrum (2, H, W/2+1), FFTW's r2c values
//   plan.inverse(spectrum, image, 1.0f / (W * H));   // FFTW's c2r times the scale
//   plan.inverse(spectrum, image, scale, &gain);     // c2r of spectrum ⊙ gain, times the scale
//   plan.dct(image, coefficients);           // coefficients (H, W): FFTW's 2-D REDFT10
//   plan.idct(coefficients, image, 1.0f / (4 * W * H));   // FFTW's 2-D REDFT01 times the scale
//
// Conventions: unnormalized like FFTW (inverse(forward(x)) = W·H·x, idct(dct(x)) = 4·W·H·x);
// spectra and DCT coefficients are stored transposed with respect to FFTW's arrays (the row
// frequency is the fast axis: spectrum(c, ky, kx), coefficients(ky, kx)), which saves a pass; a
// gain table has the layout of what it multiplies ((H, W/2+1) or (H, W)). Every size works: lengths
// whose prime factors are 2, 3, 5, 7 run as Stockham passes, others through Bluestein's algorithm
// (about 4x the work of a smooth length). Buffers are dense float32 with mins 0 and must not
// overlap. Errors are returned as a Status with a sentence in last_error(); nothing aborts.
// Host memory only: the driver runs CPU libraries (GPU libraries are generated but need a
// device-resident driver, not written yet).
#pragma once

#include <deque>
#include <memory>

#include "proxgen/aot/fft_kernels.hpp"
#include "proxgen/aot/fft_tables.hpp"
#include "proxgen/aot/support.hpp"

namespace proxgen::aot::fft {

class Plan {
public:
    using Buffer = Halide::Runtime::Buffer<float>;

    /// Plans the transforms of a width × height image: factors both lengths, computes the tables
    /// and allocates the scratch arrays (two, of about 2·W·H floats, more for Bluestein lengths).
    Status init(const Kernels& kernels, int width, int height) {
        install_error_handler();
        ready_ = false;
        if (kernels.version != kKernelsVersion)
            return fail(Status::bad_library, "the FFT pass library was generated for another ProxGen version (kernels "
                                             "version " + std::to_string(kernels.version) + ", this driver needs " +
                                                 std::to_string(kKernelsVersion) + "); regenerate it");
        // GPU passes would need device-resident scratch arrays and views that alias them; this
        // driver binds host memory only
        if (kernels.gpu)
            return fail(Status::bad_library, "the FFT pass library was generated for a GPU target, and this driver runs "
                                             "CPU libraries only");
        if (width < 1 || height < 1)
            return fail(Status::invalid_argument,
                        "the image must be at least 1x1, got " + std::to_string(width) + "x" + std::to_string(height));
        k_ = kernels;
        W_ = width;
        H_ = height;
        even_ = W_ % 2 == 0;
        half_ = W_ / 2 + 1;
        try {
            tables_.clear();
            const int along_x = even_ ? W_ / 2 : W_;
            plan_axis(y_, H_);
            plan_axis(x_, along_x);
            const double tau = 2 * std::numbers::pi;
            if (even_) {
                tw_r2c_ = &table(W_ / 2 + 1, [&](int k) { return detail::unit(-k, W_); });
                tw_c2r_ = &table(W_ / 2, [&](int k) { return detail::unit(k, W_); });
            }
            ta_ = &table(H_, [&](int k) { return std::polar(1.0, -tau * k / (4.0 * H_)); });
            tb_ = &table(half_, [&](int k) { return std::polar(1.0, -tau * k / (4.0 * W_)); });
            // scratch: the largest array any stage holds (Bluestein stages hold L rows)
            const int cols = even_ ? W_ / 2 : W_;
            std::int64_t n = 2 * std::int64_t(cols) * rows(y_);
            n = std::max(n, 2 * std::int64_t(H_) * rows(x_));
            n = std::max(n, 2 * std::int64_t(H_) * half_);
            n = std::max(n, std::int64_t(W_) * H_);
            // Halide addresses a buffer with 32-bit offsets (without the large_buffers feature)
            if (n * std::int64_t(sizeof(float)) >= (std::int64_t(1) << 31))
                return fail(Status::invalid_argument, "the image " + std::to_string(W_) + "x" + std::to_string(H_) +
                                                          " needs FFT scratch arrays of " + std::to_string(n * 4) +
                                                          " bytes, beyond the 2^31 bytes of 32-bit addressing");
            scratch_a_ = state_buffer({int(n)});
            scratch_b_ = state_buffer({int(n)});
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the FFT's tables and scratch arrays for " +
                                                   std::to_string(W_) + "x" + std::to_string(H_));
        }
        programs_.assign(6, {});
        build_r2c(programs_[r2c_], Mem::in, Mem::out);
        build_c2r(programs_[c2r_], Mem::in, Mem::out, false, Arg::scale());
        build_c2r(programs_[c2r_gain_], Mem::in, Mem::out, true, Arg::scale());
        build_dct(programs_[dct_]);
        build_idct(programs_[idct_], false);
        build_idct(programs_[idct_gain_], true);
        for (const auto& p : programs_)
            for (const auto& s : p)
                if (s.fn == nullptr)
                    return fail(Status::bad_library, "the FFT pass library lacks the '" + s.name + "' pass");
        ready_ = true;
        return Status::ok;
    }

    /// FFTW's 2-D r2c: image (W, H) → spectrum (2, H, W/2+1).
    Status forward(const Buffer& image, Buffer& spectrum) {
        return run(r2c_, "forward", {{&image, "image", {W_, H_}}, {&spectrum, "spectrum", {2, H_, half_}}}, spectrum, 1.0f);
    }
    /// FFTW's 2-D c2r times scale (1/(W·H) inverts forward): spectrum (2, H, W/2+1) → image (W, H);
    /// with a gain table (H, W/2+1), of the spectrum multiplied by it, in the same pass.
    Status inverse(const Buffer& spectrum, Buffer& image, float scale = 1.0f, const Buffer* gain = nullptr) {
        if (gain)
            return run(c2r_gain_, "inverse",
                       {{&spectrum, "spectrum", {2, H_, half_}}, {&image, "image", {W_, H_}}, {gain, "gain", {H_, half_}}},
                       image, scale);
        return run(c2r_, "inverse", {{&spectrum, "spectrum", {2, H_, half_}}, {&image, "image", {W_, H_}}}, image, scale);
    }
    /// FFTW's 2-D REDFT10 (DCT-II): image (W, H) → coefficients (H, W), transposed.
    Status dct(const Buffer& image, Buffer& coefficients) {
        return run(dct_, "dct", {{&image, "image", {W_, H_}}, {&coefficients, "coefficients", {H_, W_}}}, coefficients,
                   1.0f);
    }
    /// FFTW's 2-D REDFT01 (DCT-III) times scale (1/(4·W·H) inverts dct); with a gain table
    /// (H, W), of the coefficients multiplied by it.
    Status idct(const Buffer& coefficients, Buffer& image, float scale = 1.0f, const Buffer* gain = nullptr) {
        if (gain)
            return run(idct_gain_, "idct",
                       {{&coefficients, "coefficients", {H_, W_}}, {&image, "image", {W_, H_}}, {gain, "gain", {H_, W_}}},
                       image, scale);
        return run(idct_, "idct", {{&coefficients, "coefficients", {H_, W_}}, {&image, "image", {W_, H_}}}, image, scale);
    }

    int width() const { return W_; }
    int height() const { return H_; }
    /// Extents of the spectrum forward() writes: (2, H, W/2+1).
    std::vector<int> spectrum_extents() const { return {2, H_, half_}; }
    /// Pipeline calls per transform (forward, inverse, dct, idct), e.g. to compare plans.
    std::vector<int> pass_counts() const {
        if (!ready_) return {};
        return {int(programs_[r2c_].size()), int(programs_[c2r_].size()), int(programs_[dct_].size()),
                int(programs_[idct_].size())};
    }
    const char* last_error() const { return last_error_message().c_str(); }

private:
    // ---- the plan: programs of steps over symbolic memories, bound to addresses per call ----
    enum class Mem { in, out, gain, a, b, any };  // any: a scratch array the step chooses
    struct View {
        Mem mem;
        halide_type_t type{halide_type_float, 32, 1};
        int dims = 0;
        halide_dimension_t dim[5]{};
    };
    struct Arg {
        enum Kind { view, table, f32, i32, call_scale } kind;
        int index = 0;  // view: index into Step::views
        halide_buffer_t* buffer = nullptr;
        float f = 0;
        int i = 0;
        static Arg scale() { return {call_scale}; }
    };
    struct Step {
        Entry fn = nullptr;
        std::string name;
        std::vector<View> views;
        std::vector<Arg> args;
        Step& buf(View v) {
            args.push_back({Arg::view, int(views.size())});
            views.push_back(v);
            return *this;
        }
        Step& table(Buffer& t) {
            args.push_back({Arg::table, 0, t.raw_buffer()});
            return *this;
        }
        Step& f32(float f) {
            Arg a{Arg::f32};
            a.f = f;
            args.push_back(a);
            return *this;
        }
        Step& i32(int i) {
            Arg a{Arg::i32};
            a.i = i;
            args.push_back(a);
            return *this;
        }
        Step& arg(Arg a) {
            args.push_back(a);
            return *this;
        }
    };
    using Program = std::vector<Step>;

    /// A length-n DFT down columns: Stockham passes over n, or Bluestein's three chirp products
    /// around passes over L.
    struct Axis {
        int n = 1, L = 0;  // L > 0: Bluestein
        std::vector<int> radices;
        std::vector<Buffer*> twiddles;  // per pass
        Buffer *pre[2] = {}, *mid[2] = {}, *post[2] = {};  // Bluestein, [0] forward, [1] inverse
    };
    static std::int64_t rows(const Axis& a) { return a.L > 0 ? a.L : a.n; }

    template <class F>
    Buffer& table(int n, F value) {
        Buffer& t = tables_.emplace_back(state_buffer({2, n}));
        for (int i = 0; i < n; ++i) {
            const detail::cd v = value(i);
            t(0, i) = float(v.real());
            t(1, i) = float(v.imag());
        }
        t.set_host_dirty();
        return t;
    }

    void plan_axis(Axis& a, int n) {
        a = Axis{};
        a.n = n;
        int len = n;
        if (!detail::radices_for(n, a.radices)) {
            a.L = len = detail::bluestein_length(n);
            detail::radices_for(len, a.radices);
            for (int d = 0; d < 2; ++d) {
                const auto c = detail::bluestein_tables(n, len, d == 0 ? -1 : 1);
                a.pre[d] = &table(n, [&](int i) { return c.pre[i]; });
                a.mid[d] = &table(len, [&](int i) { return c.mid[i]; });
                a.post[d] = &table(n, [&](int i) { return c.post[i]; });
            }
        }
        int p = 1;
        for (int r : a.radices) {
            Buffer& t = tables_.emplace_back(state_buffer({2, p, r}));
            for (int q = 0; q < r; ++q)
                for (int k = 0; k < p; ++k) {
                    const detail::cd v = detail::unit(std::int64_t(q) * k, std::int64_t(p) * r);
                    t(0, k, q) = float(v.real());
                    t(1, k, q) = float(v.imag());
                }
            t.set_host_dirty();
            a.twiddles.push_back(&t);
            p *= r;
        }
    }

    static View view(Mem m, std::initializer_list<std::pair<int, std::int64_t>> dims,
                     halide_type_t type = {halide_type_float, 32, 1}) {
        View v{m, type, int(dims.size())};
        int d = 0;
        for (auto [extent, stride] : dims) v.dim[d++] = {0, extent, std::int32_t(stride), 0};
        return v;
    }
    /// A dense interleaved complex array (2, cols, rows).
    static View complex(Mem m, int cols, std::int64_t rows) { return view(m, {{2, 1}, {cols, 2}, {int(rows), 2 * cols}}); }
    /// A dense real array (cols, rows).
    static View real(Mem m, int cols, int rows) { return view(m, {{cols, 1}, {rows, cols}}); }
    static Mem other(Mem m) { return m == Mem::a ? Mem::b : Mem::a; }

    Step step(Entry fn, std::string name) {
        Step s;
        s.fn = fn;
        s.name = std::move(name);
        return s;
    }

    /// Stockham passes of length len down the cols columns at src; the last one writes dst, or
    /// with dst = any the scratch array its input is not in. Returns where it wrote.
    Mem stockham(Program& p, const Axis& a, int len, Mem src, int cols, float sign, Mem dst) {
        const std::int64_t rs = 2 * std::int64_t(cols);
        std::int64_t span = 1;
        for (std::size_t i = 0; i < a.radices.size(); ++i) {
            const int r = a.radices[i];
            const std::int64_t groups = len / (span * r);
            const Mem out = i + 1 == a.radices.size() && dst != Mem::any ? dst : other(src);
            const int ri = detail::radix_index(r);
            Step s = step(ri >= 0 ? k_.radix[ri] : nullptr, "radix" + std::to_string(r));
            s.buf(view(src, {{2, 1}, {cols, 2}, {int(span), rs}, {int(groups), rs * span}, {r, rs * (len / r)}}));
            s.table(*a.twiddles[i]).f32(sign);
            s.buf(view(out, {{2, 1}, {cols, 2}, {int(span), rs}, {r, rs * span}, {int(groups), rs * span * r}}));
            p.push_back(s);
            src = out;
            span *= r;
        }
        return src;
    }

    /// The DFT of length a.n down the columns of the complex array at src, into dst (with
    /// dst = any: src when there is nothing to do, else a scratch array). Returns where it is.
    Mem column_dft(Program& p, const Axis& a, Mem src, int cols, float sign, Mem dst) {
        if (a.n == 1) {  // nothing to transform; a user destination still needs the values
            if (dst == Mem::any) return src;
            p.push_back(step(k_.copy, "copy").buf(complex(src, cols, 1)).buf(complex(dst, cols, 1)));
            return dst;
        }
        if (a.L == 0) return stockham(p, a, a.n, src, cols, sign, dst);
        const int d = sign < 0 ? 0 : 1;
        const Mem x = other(src);
        p.push_back(step(k_.chirp, "chirp").buf(complex(src, cols, a.n)).table(*a.pre[d]).i32(a.n).buf(complex(x, cols, a.L)));
        Mem y = stockham(p, a, a.L, x, cols, -1.0f, Mem::any);
        p.push_back(step(k_.chirp, "chirp").buf(complex(y, cols, a.L)).table(*a.mid[d]).i32(a.L).buf(complex(y, cols, a.L)));
        Mem z = stockham(p, a, a.L, y, cols, 1.0f, Mem::any);
        const Mem out = dst != Mem::any ? dst : other(z);
        p.push_back(step(k_.chirp, "chirp").buf(complex(z, cols, a.L)).table(*a.post[d]).i32(a.n).buf(complex(out, cols, a.n)));
        return out;
    }

    /// Swaps the two spatial axes of the complex array (cols, rows) at src into dst.
    void transpose(Program& p, Mem src, int cols, int rows, Mem dst) {
        Step s = step(k_.transpose, "transpose");
        if (!k_.gpu) {
            const halide_type_t pair{halide_type_uint, 64, 1};
            s.buf(view(src, {{cols, 1}, {rows, cols}}, pair)).buf(view(dst, {{rows, 1}, {cols, rows}}, pair));
        } else {
            s.buf(complex(src, cols, rows)).buf(complex(dst, rows, cols));
        }
        p.push_back(s);
    }

    /// r2c of the real (W, H) image at src into dst (any: a scratch array). Returns where.
    Mem build_r2c(Program& p, Mem src, Mem dst) {
        const int cols = even_ ? W_ / 2 : W_;
        Mem cur = src;
        if (!even_) {
            cur = other(src);
            p.push_back(step(k_.widen, "widen").buf(real(src, W_, H_)).buf(complex(cur, W_, H_)));
        }
        // a real image of even width is the complex (W/2, H) array z = x_even + i x_odd
        cur = column_dft(p, y_, cur, cols, -1.0f, Mem::any);
        const Mem t = other(cur);
        transpose(p, cur, cols, H_, t);
        cur = column_dft(p, x_, t, H_, -1.0f, Mem::any);
        const Mem out = dst != Mem::any ? dst : other(cur);
        if (even_) p.push_back(step(k_.r2c_post, "r2c_post").buf(complex(cur, H_, cols)).table(*tw_r2c_).buf(complex(out, H_, half_)));
        else p.push_back(step(k_.copy, "copy").buf(complex(cur, H_, W_)).buf(complex(out, H_, half_)));
        return out;
    }

    /// c2r of the spectrum at src (times the scale argument) into dst (any: a scratch array);
    /// `gain` multiplies the spectrum by the user's gain table. Returns where.
    Mem build_c2r(Program& p, Mem src, Mem dst, bool gain, Arg scale) {
        const int cols = even_ ? W_ / 2 : W_;
        Mem cur = other(src);
        const View spectrum = complex(src, H_, half_), g = real(Mem::gain, H_, half_);
        Step pre = even_ ? step(gain ? k_.c2r_pre_gain : k_.c2r_pre, "c2r_pre")
                         : step(gain ? k_.hermitian_gain : k_.hermitian, "hermitian");
        pre.buf(spectrum);
        if (gain) pre.buf(g);
        if (even_) pre.table(*tw_c2r_);
        pre.arg(scale).buf(complex(cur, H_, cols));
        p.push_back(pre);
        cur = column_dft(p, x_, cur, H_, 1.0f, Mem::any);
        const Mem t = other(cur);
        transpose(p, cur, H_, cols, t);
        if (even_) return column_dft(p, y_, t, cols, 1.0f, dst);
        cur = column_dft(p, y_, t, cols, 1.0f, Mem::any);
        const Mem out = dst != Mem::any ? dst : other(cur);
        p.push_back(step(k_.narrow, "narrow").buf(complex(cur, W_, H_)).buf(real(out, W_, H_)));
        return out;
    }

    void build_dct(Program& p) {
        p.push_back(step(k_.dct_reorder, "dct_reorder").buf(real(Mem::in, W_, H_)).buf(real(Mem::a, W_, H_)));
        const Mem spec = build_r2c(p, Mem::a, Mem::any);
        p.push_back(step(k_.dct_post, "dct_post")
                        .buf(complex(spec, H_, half_))
                        .table(*ta_)
                        .table(*tb_)
                        .i32(W_)
                        .buf(real(Mem::out, H_, W_)));
    }

    void build_idct(Program& p, bool gain) {
        Step pre = step(gain ? k_.dct_pre_gain : k_.dct_pre, "dct_pre");
        pre.buf(real(Mem::in, H_, W_));
        if (gain) pre.buf(real(Mem::gain, H_, W_));
        p.push_back(pre.table(*ta_).table(*tb_).arg(Arg::scale()).buf(complex(Mem::a, H_, half_)));
        const Mem v = build_c2r(p, Mem::a, Mem::any, false, [] {
            Arg one{Arg::f32};
            one.f = 1.0f;
            return one;
        }());
        p.push_back(step(k_.dct_restore, "dct_restore").buf(real(v, W_, H_)).buf(real(Mem::out, W_, H_)));
    }

    // ---- running ----
    struct UserBuffer {
        const Buffer* buffer;  // the second one is the output
        const char* name;
        std::vector<int> extents;
    };

    Status fail(Status s, const std::string& message) {
        last_error_message() = "fft: " + message;
        return s;
    }

    Status run(int program, const char* what, std::initializer_list<UserBuffer> buffers, Buffer& output, float scale) {
        if (!ready_) return fail(Status::not_initialized, std::string(what) + " before a successful init");
        if (!std::isfinite(scale)) return fail(Status::non_finite_input, std::string(what) + ": the scale is not finite");
        float* base[5] = {};
        std::size_t size[5] = {};
        int slot = 0;
        for (const UserBuffer& u : buffers) {
            const halide_buffer_t* b = u.buffer ? u.buffer->raw_buffer() : nullptr;
            if (b == nullptr || b->host == nullptr)
                return fail(Status::invalid_argument, std::string(what) + ": the " + u.name + " buffer is null");
            if (!dense_float(b) || extents(b) != u.extents)
                return fail(Status::shape_mismatch, std::string(what) + ": the " + u.name + " must be a dense float32 " +
                                                        shape_text(u.extents) + " buffer with mins 0, got " +
                                                        shape_text(extents(b)));
            if (b->device_dirty())
                return fail(Status::invalid_argument, std::string(what) + ": the " + u.name +
                                                          " holds newer data on a device; copy it to the host first");
            base[slot] = reinterpret_cast<float*>(b->host);
            size[slot++] = element_count(b);
        }
        // the passes read their inputs after writing parts of the output
        for (int i = 0; i < slot; ++i)
            for (int j = i + 1; j < slot; ++j)
                if (base[i] < base[j] + size[j] && base[j] < base[i] + size[i])
                    return fail(Status::invalid_argument, std::string(what) + ": the " + std::data(buffers)[i].name +
                                                              " and the " + std::data(buffers)[j].name + " overlap");
        base[int(Mem::a)] = scratch_a_.data();
        base[int(Mem::b)] = scratch_b_.data();
        for (Step& s : programs_[program]) {
            halide_buffer_t bufs[4];  // the most any pass takes: 3 buffers, 6 arguments
            void* argv[8];
            std::size_t nb = 0, na = 0;
            for (Arg& a : s.args) {
                switch (a.kind) {
                case Arg::view: {
                    View& v = s.views[a.index];
                    halide_buffer_t& b = bufs[nb++];
                    b = halide_buffer_t{};
                    b.host = reinterpret_cast<std::uint8_t*>(base[int(v.mem)]);
                    b.type = v.type;
                    b.dimensions = v.dims;
                    b.dim = v.dim;
                    argv[na++] = &b;
                    break;
                }
                case Arg::table: argv[na++] = a.buffer; break;
                case Arg::f32: argv[na++] = &a.f; break;
                case Arg::i32: argv[na++] = &a.i; break;
                case Arg::call_scale:
                    a.f = scale;
                    argv[na++] = &a.f;
                    break;
                }
            }
            last_error_message().clear();
            if (const int rc = s.fn(argv); rc != 0)
                return fail(status_of_pipeline_error(rc), std::string(what) + ": the " + s.name + " pass failed (Halide error " +
                                                              std::to_string(rc) + "): " + last_error_message());
        }
        output.set_host_dirty();  // for pipelines that run on a device next
        return Status::ok;
    }

    enum { r2c_, c2r_, c2r_gain_, dct_, idct_, idct_gain_ };
    Kernels k_{};
    int W_ = 0, H_ = 0, half_ = 0;
    bool even_ = true, ready_ = false;
    Axis x_, y_;
    std::deque<Buffer> tables_;  // stable addresses: steps point at them
    Buffer *tw_r2c_ = nullptr, *tw_c2r_ = nullptr, *ta_ = nullptr, *tb_ = nullptr;
    Buffer scratch_a_, scratch_b_;
    std::vector<Program> programs_;
};

}  // namespace proxgen::aot::fft
