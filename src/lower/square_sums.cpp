// Norms reduced inside the pipelines (lowering.hpp: SquareSums). A residual check needs a few
// ‖·‖² of whole images; summing them in serial C++ after the pipeline wrote them took 18 % of a
// 2048² PC solve's samples while the second core idled. Here each quantity is squared and summed
// where it is computed: per strip of kStripRows rows, in 16 float64 lanes (one per column residue
// mod 16, so the additions vectorize), and C++ adds the 16 × strips partials per quantity.
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

constexpr int kLanes = kSquareSumLanes;

const Var& lane_var() {
    static const Var v("lane");
    return v;
}
// The strip index carries the name of schedule_output's strip loop, so that compute_with can fuse
// the two loops (Halide matches fused loop levels by name).
const Var& strip_var() {
    static const Var v("yo");
    return v;
}
const Var& quantity_var() {
    static const Var v("q");
    return v;
}

}  // namespace

SquareSums square_sums(const std::vector<Lowered>& quantities) {
    std::vector<std::pair<Lowered, Lowered>> pairs;
    for (const Lowered& l : quantities) pairs.emplace_back(l, l);
    return product_sums(pairs);
}

SquareSums product_sums(const std::vector<std::pair<Lowered, Lowered>>& quantities) {
    PROXGEN_INTERNAL_ASSERT(!quantities.empty());
    SquareSums s;
    // float64 accumulators; float32 on GPUs (Metal has no float64), where each thread's sum is short
    const Type type = schedule_kind() == ScheduleKind::gpu ? Float(32) : Float(64);
    const Var& lane = lane_var();
    const Var& yo = strip_var();
    for (std::size_t q = 0; q < quantities.size(); ++q) {
        const Lowered &l = quantities[q].first, &m = quantities[q].second;
        const int r = l.rank();
        PROXGEN_INTERNAL_ASSERT(m.rank() == r);
        PROXGEN_INTERNAL_ASSERT(r >= 1 && r <= 4);
        Func acc("square_sum" + std::to_string(q));
        acc(lane, yo) = cast(type, 0);
        // Two updates: the whole vectors of columns (plain vector loads), then the last partial
        // one (clamped reads, masked by select). Rows past the end (the last strip) are masked too:
        // one scalar test per row.
        const Expr W = l.extents[0], whole = W / kLanes, tail = min(W % kLanes, 1);
        std::vector<RDom> doms;
        for (int part = 0; part < 2; ++part) {
            Region dom{{part == 0 ? Expr(0) : whole, part == 0 ? whole : tail}};
            if (r >= 2) dom.push_back({0, kStripRows});
            for (int d = 2; d < r; ++d) dom.push_back({0, l.extents[d]});
            RDom rd(dom, "sum" + std::to_string(q) + (part == 0 ? "_whole" : "_tail"));
            Expr x = rd[0] * kLanes + lane;
            Expr y = r >= 2 ? yo * kStripRows + rd[1] : Expr(0);
            Expr row_inside = r >= 2 ? y < l.extents[1] : yo == 0;
            std::vector<Expr> at{part == 0 ? x : min(x, W - 1)};
            if (r >= 2) at.push_back(min(y, l.extents[1] - 1));
            for (int d = 2; d < r; ++d) at.push_back(rd[d]);
            // a square reads its quantity once (the same bits as v * v of one load)
            Expr v = cast(type, l.f(at));
            Expr w = l.f.function().same_as(m.f.function()) ? v : cast(type, m.f(at));
            Expr inside = part == 0 ? row_inside : (row_inside && x < W);
            acc(lane, yo) += select(inside, v * w, cast(type, 0));
            doms.push_back(rd);
        }
        s.accumulators.push_back(acc);
        s.domains.push_back(doms);
    }
    Expr value = s.accumulators.back()(lane, yo);
    for (int q = int(quantities.size()) - 2; q >= 0; --q)
        value = select(quantity_var() == q, s.accumulators[q](lane, yo), value);
    s.out = Func("square_sums");
    s.out(lane, yo, quantity_var()) = cast<float>(value);
    return s;
}

namespace {

/// The loops every schedule of the partial sums shares: lanes vectorized, quantities unrolled,
/// strips in parallel; each accumulator computed per strip.
void schedule_sums_loops(const SquareSums& s) {
    Func out = s.out;
    const Var &lane = lane_var(), &yo = strip_var(), &q = quantity_var();
    const int vec = std::min(kLanes, schedule_target().natural_vector_size<float>());
    out.bound(lane, 0, kLanes)
        .bound(q, 0, int(s.accumulators.size()))
        .reorder(lane, q, yo)
        .vectorize(lane, vec)
        .unroll(q)
        .parallel(yo);
    for (std::size_t i = 0; i < s.accumulators.size(); ++i) {
        Func acc = s.accumulators[i];
        acc.compute_at(out, yo).vectorize(lane, vec);
        for (std::size_t u = 0; u < s.domains[i].size(); ++u) {
            std::vector<VarOrRVar> order{lane};
            for (int d = 0; d < s.domains[i][u].dimensions(); ++d) order.emplace_back(s.domains[i][u][d]);
            order.emplace_back(yo);
            acc.update(int(u)).reorder(order).vectorize(lane, vec);
        }
    }
}

}  // namespace

void schedule_square_sums(const SquareSums& s, const Stages& st) {
    if (schedule_kind() == ScheduleKind::none) return;
    if (schedule_kind() == ScheduleKind::gpu) {
        // one thread per (lane, strip); the staged Funcs become their own kernels
        Var bo("bo"), bi("bi");
        Func out = s.out;
        out.bound(lane_var(), 0, kLanes).bound(quantity_var(), 0, int(s.accumulators.size()));
        out.gpu_tile(strip_var(), bo, bi, 16, TailStrategy::GuardWithIf);
        for (Func acc : s.accumulators) acc.compute_at(out, bi);
        schedule_stages_gpu(st);
        return;
    }
    schedule_sums_loops(s);
    schedule_stages(s.out, strip_var(), st);
}

void schedule_square_sums_with(const SquareSums& s, Func out) {
    if (schedule_kind() != ScheduleKind::cpu) {
        schedule_square_sums(s, Stages{});
        return;
    }
    schedule_sums_loops(s);
    Func sums = s.out;
    sums.compute_with(out, strip_var());
}

std::vector<int> square_sums_shape(const std::vector<std::vector<int>>& shapes) {
    int rows = 1;
    for (const auto& s : shapes) rows = std::max(rows, s.size() >= 2 ? s[1] : 1);
    return {kLanes, (rows + kStripRows - 1) / kStripRows, int(shapes.size())};
}

std::vector<double> total_square_sums(const Image& partials) {
    const int lanes = partials.extent(0), strips = partials.extent(1), quantities = partials.extent(2);
    std::vector<double> totals(std::size_t(quantities), 0.0);
    const float* d = partials.data();
    for (int q = 0; q < quantities; ++q) {
        double t = 0;
        const float* p = d + std::size_t(q) * std::size_t(lanes) * std::size_t(strips);
        for (int i = 0; i < lanes * strips; ++i) t += p[i];
        totals[std::size_t(q)] = t;
    }
    return totals;
}

}  // namespace proxgen::lower
