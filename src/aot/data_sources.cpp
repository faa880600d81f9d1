// The named data a generated solver's slots are made of; see data_sources.hpp.
#include "data_sources.hpp"

#include <algorithm>
#include <cmath>

#include "../plan/slot_jacobian.hpp"
#include "../runtime/nodes.hpp"
#include "proxgen/aot/generator.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::aot {

namespace {

/// Whether a combination of named values reproduces a slot's value (float rounding apart).
bool close(double want, double got, double scale) { return std::abs(want - got) <= 1e-6 * std::max(scale, 1e-30); }

}  // namespace

DataSources data_sources(const rt::Problem& prob, Algorithm a) {
    const ir::Problem p0 = halide_only(rt::plan(prob, a).ir());
    const plan::SlotValues v0 = plan::slot_values(p0);
    std::vector<std::vector<SlotSource>> images(std::size_t(p0.image_slots)), scalars(std::size_t(p0.scalar_slots));
    std::vector<bool> image_other(images.size(), false), scalar_other(scalars.size(), false);
    std::vector<std::pair<std::string, bool>> names;  // (name, is a parameter)
    for (const auto& n : prob.inputs()) names.emplace_back(n, false);
    for (const auto& n : prob.parameters()) names.emplace_back(n, true);
    for (const auto& [name, parameter] : names) {
        const ir::Problem pt = halide_only(rt::detail::plan_with_tangent(prob, a, name));
        if (pt.image_slots != p0.image_slots || pt.scalar_slots != p0.scalar_slots) return {};
        const plan::SlotJacobian J = plan::slot_jacobian(pt);
        // a name that cannot be a field keeps every slot it reaches under its derived name
        const bool usable = solver_name_problem(name).empty();
        for (std::size_t s = 0; s < images.size(); ++s) {
            const auto& d = J.image[s];
            if (d.empty()) continue;
            const bool uniform = std::all_of(d.begin(), d.end(), [&](double x) { return x == d.front(); });
            if (!usable || parameter || !uniform) image_other[s] = true;
            else images[s].push_back({name, d.front(), 0});
        }
        for (std::size_t s = 0; s < scalars.size(); ++s) {
            if (J.scalar[s] == 0) continue;
            if (!usable || !parameter) scalar_other[s] = true;
            else scalars[s].push_back({name, J.scalar[s], prob.parameter(name)});
        }
    }
    DataSources out;
    out.images.resize(images.size());
    out.scalars.resize(scalars.size());
    for (std::size_t s = 0; s < images.size(); ++s) {
        if (image_other[s] || images[s].empty() || !v0.image[s]) continue;
        const Image& want = *v0.image[s];
        bool same = true;
        for (const auto& src : images[s]) same = same && prob.input(src.name).size() == want.size();
        double scale = 0;
        for (std::size_t i = 0; same && i < want.size(); ++i) scale = std::max(scale, double(std::abs(want.data()[i])));
        for (std::size_t i = 0; same && i < want.size(); ++i) {
            double got = 0;
            for (const auto& src : images[s]) got += src.factor * prob.input(src.name).data()[i];
            same = close(want.data()[i], got, scale);
        }
        if (same) out.images[s] = images[s];
    }
    for (std::size_t s = 0; s < scalars.size(); ++s) {
        if (scalar_other[s] || scalars[s].size() != 1) continue;
        const SlotSource& src = scalars[s].front();
        if (close(v0.scalar[s], src.factor * src.value, std::abs(v0.scalar[s]))) out.scalars[s] = scalars[s];
    }
    return out;
}

}  // namespace proxgen::aot
