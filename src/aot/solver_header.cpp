// Writes the typed interface of a generated solver: a header that names every data slot of the
// plan, describes the pipelines to proxgen::aot::PockChambolle, and declares the prefixed entry
// points <name>_init / _step / _solve / _state.
#include "solver_header.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "../lower/lowering.hpp"
#include "../solve/engine.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"
#include "slot_formulas.hpp"

namespace proxgen::aot {

namespace {

/// A C++ float literal that reads back as exactly v.
std::string float_literal(float v) {
    std::string s = fmt::format("{:.9g}", v);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s + "f";
}

struct Namer {
    std::map<std::string, int> used;
    std::string operator()(const std::string& base) {
        const int n = ++used[base];
        return n == 1 ? base : fmt::format("{}_{}", base, n);
    }
};

void add_node_slots(const ir::Node& n, const std::string& term, const std::string& term_text, Namer& namer,
                    SlotTable& s) {
    if (n.image_slot >= 0) {
        // the image's role as the card names it, a weight told from the term's own weight
        const std::string role = n.op->image_role() == std::string("weight") ? "mul_weight" : n.op->image_role();
        auto& slot = s.images[n.image_slot];
        slot.name = namer(term + "_" + role);
        slot.rank = n.image.dimensions();
        slot.doc = fmt::format("{} of {} in {}", role, ir::to_string(n), term_text);
        // what its card requires: a kernel may have any size, a weight must match the node it feeds
        slot.shape_code = image_shape_code(n);
        // and its card's rule relating the image to the operand (conv: the kernel fits the plane)
        if (!n.args.empty()) slot.fit_code = catalogue::card_of(n).image_check_code(n, shape_code(n.args[0]));
    }
    if (n.scalar_slot >= 0) {
        auto& slot = s.scalars[n.scalar_slot];
        slot.name = namer(term + "_scale");
        slot.doc = fmt::format("factor of {} in {}", ir::to_string(n), term_text);
        slot.default_value = n.scalar;
    }
    for (const auto& a : n.args) add_node_slots(a, term, term_text, namer, s);
}

/// Each card's structure rules on its operands' extents at every node below n (shape_check_code,
/// operands_check_code).
void add_shape_checks(const ir::Node& n, std::vector<std::string>& out) {
    if (!n.args.empty())
        if (std::string code = catalogue::card_of(n).shape_check_code(n, shape_code(n.args[0])); !code.empty())
            out.push_back(code);
    // between operands that read variables (a data image's extents are checked as the data's)
    std::vector<std::string> operands;
    int reading = 0;
    for (const auto& a : n.args) {
        operands.push_back(shape_code(a));
        reading += !ir::variables_of(a).empty();
    }
    if (reading >= 2)
        if (std::string code = catalogue::card_of(n).operands_check_code(n, operands); !code.empty()) out.push_back(code);
    for (const auto& a : n.args) add_shape_checks(a, out);
}

/// The problem's unknowns (a problem built without names has one, x).
std::vector<ir::Variable> solver_variables(const ir::Problem& p) {
    if (!p.variables.empty()) return p.variables;
    return {ir::Variable{"x", p.variable_shape}};
}

}  // namespace

SlotTable slot_table(const ir::Problem& p) {
    SlotTable s;
    s.images.resize(p.image_slots);
    s.scalars.resize(p.scalar_slots);
    Namer term_namer, slot_namer;
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            const std::string term = term_namer(std::string(ir::name(t)));
            auto scalar = [&](int slot, const char* what, float value, const std::string& doc) {
                auto& e = s.scalars[slot];
                e.name = slot_namer(term + "_" + what);
                e.doc = doc;
                e.default_value = value;
            };
            auto image = [&](int slot, const char* what, const Image& img, std::string shape, const std::string& doc) {
                if (slot < 0) return;
                auto& e = s.images[slot];
                e.name = slot_namer(term + "_" + what);
                e.rank = img.dimensions();
                e.shape_code = std::move(shape);
                e.doc = doc;
            };
            const std::string out = shape_code(t.expr);
            scalar(t.weight_slot, "weight", t.weight, fmt::format("alpha of {}", t.text));
            if (t.weight_slot >= 0) s.scalars[t.weight_slot].weight = true;
            scalar(t.beta_slot, "beta", t.beta, fmt::format("beta (scale of the argument) of {}", t.text));
            image(t.arg_weight_slot, "arg_weight", t.arg_weight,
                  t.penalty->weights_groups() ? shape_without_last_axis_code(t.expr) : out,
                  fmt::format("w (elementwise weight of the argument) of {}", t.text));
            image(t.offset_slot, "offset", t.offset, out,
                  fmt::format("c (constant added to the argument, after the rewrite rules) of {}", t.text));
            if (t.data_slot >= 0)
                image(t.data_slot, t.penalty->data_role(), t.data, out, fmt::format("{} of {}", t.penalty->data_role(), t.text));
            add_node_slots(t.expr, term, t.text, slot_namer, s);
        }
    return s;
}

NormEstimates norm_estimates(const ir::Problem& p) {
    NormEstimates e;
    e.psi_gram.assign(p.psi.size(), -1);
    e.omega_gram.assign(p.omega.size(), -1);
    std::vector<bool> psi_needed(p.psi.size(), false);
    for (const ir::Term& t : p.psi) {
        e.psi_estimated.push_back(!plan::norm_bound_exact(t.expr));
        e.psi_general.push_back(!plan::linear_facts(t.expr).scalar_identity);
        psi_needed[std::size_t(&t - p.psi.data())] = e.psi_estimated.back();
    }
    for (const auto& block : detail::coupled_blocks(p, false)) {
        int general = 0;
        for (const ir::Term* t : block) general += e.psi_general[std::size_t(t - p.psi.data())] ? 1 : 0;
        if (general >= 2)
            for (const ir::Term* t : block) psi_needed[std::size_t(t - p.psi.data())] = true;
    }
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        if (psi_needed[i]) {
            e.psi_gram[i] = int(e.terms.size());
            e.terms.push_back({true, int(i)});
        }
    for (std::size_t j = 0; j < p.omega.size(); ++j) {
        e.omega_estimated.push_back(!plan::norm_bound_exact(p.omega[j].expr));
        if (e.omega_estimated.back()) {
            e.omega_gram[j] = int(e.terms.size());
            e.terms.push_back({false, int(j)});
        }
    }
    return e;
}

std::string solver_header(const ir::Problem& p, const std::string& name, const std::string& target,
                          const std::string& plan_text, const SolverSteps& steps, const DataSources* sources) {
    SlotTable slots = slot_table(p);
    // the user's named data: one field each (inputs, then parameters), the slots they make
    // named after them in the init's sentences
    const std::size_t n_images = slots.images.size(), n_scalars = slots.scalars.size();
    std::vector<std::vector<SlotSource>> image_sources(n_images), scalar_sources(n_scalars);
    if (sources) {
        PROXGEN_INTERNAL_ASSERT(sources->images.size() == n_images && sources->scalars.size() == n_scalars);
        image_sources = sources->images;
        scalar_sources = sources->scalars;
        // a named value spelled like a derived field of another slot would declare it twice: then
        // every slot keeps its derived field
        std::vector<std::string> derived;
        for (std::size_t i = 0; i < n_images; ++i)
            if (image_sources[i].empty()) derived.push_back(slots.images[i].name);
        for (std::size_t i = 0; i < n_scalars; ++i)
            if (scalar_sources[i].empty()) derived.push_back(slots.scalars[i].name);
        bool clash = false;
        for (const auto* list : {&image_sources, &scalar_sources})
            for (const auto& srcs : *list)
                for (const auto& s : srcs) clash = clash || std::find(derived.begin(), derived.end(), s.name) != derived.end();
        if (clash) {
            image_sources.assign(n_images, {});
            scalar_sources.assign(n_scalars, {});
        }
    }
    struct NamedField {
        std::string name, doc;
        int rank = 0;
        double value = 0;
    };
    std::vector<NamedField> named_inputs, named_parameters;
    auto add_named = [](std::vector<NamedField>& list, const SlotSource& s, const std::string& use, int rank) {
        auto f = std::find_if(list.begin(), list.end(), [&](const NamedField& n) { return n.name == s.name; });
        if (f == list.end()) {
            list.push_back({s.name, use, rank, s.value});
        } else {
            f->doc += "; " + use;
        }
    };
    auto joined = [](const std::vector<SlotSource>& list) {
        std::string s;
        for (const auto& src : list) s += (s.empty() ? "" : ", ") + src.name;
        return s;
    };
    auto formula = [](const std::vector<SlotSource>& list) {
        std::string s;
        for (const auto& src : list)
            s += (s.empty() ? "" : " + ") + (src.factor == 1 ? src.name : fmt::format("{:.9g}*{}", src.factor, src.name));
        return s;
    };
    for (std::size_t i = 0; i < n_images; ++i)
        if (!image_sources[i].empty()) {
            for (const auto& src : image_sources[i])
                add_named(named_inputs, src, fmt::format("{} = {}", slots.images[i].doc, formula(image_sources[i])),
                          slots.images[i].rank);
            slots.images[i].name = joined(image_sources[i]);
        }
    for (std::size_t i = 0; i < n_scalars; ++i)
        if (!scalar_sources[i].empty()) {
            const SlotSource& src = scalar_sources[i].front();
            add_named(named_parameters, src, fmt::format("{} = {}", slots.scalars[i].doc, formula(scalar_sources[i])), 0);
            slots.scalars[i].name = src.name;
        }
    std::string h;
    auto line = [&](const std::string& s) { h += s + "\n"; };
    line(fmt::format("// {}.h: the ahead-of-time solver '{}' for Halide target {}.", name, name, target));
    line("// Generated by ProxGen's generator (proxgen_add_solver); do not edit. Link with the static library");
    line(fmt::format("// {}.a and the Halide runtime for the same target; no libHalide or LLVM is needed.", name));
    line("//");
    std::string text = plan_text;
    for (std::size_t pos = 0; (pos = text.find('\n', pos)) != std::string::npos && pos + 1 < text.size(); pos += 4)
        text.replace(pos, 1, "\n// ");
    line("// " + text.substr(0, text.size() - (text.ends_with('\n') ? 1 : 0)));
    line("// (Image sizes shown come from the generator's placeholder data; sizes, data and step sizes are");
    line("// run-time inputs. Ahead of time the plan is Halide-only: see docs/deploy.md.)");
    line("#pragma once");
    line("");
    const NormEstimates est = norm_estimates(p);  // the ||K|| estimates' Gram pipelines
    line("#include <" + steps.include + ">");
    if (!steps.fft_prefix.empty()) line("#include \"" + steps.fft_prefix + ".h\"");
    line("");
    line("extern \"C\" {");
    for (const std::string& step : steps.generated) {
        line(fmt::format("int {}_{}_argv(void** args);", name, step));
        line(fmt::format("const struct halide_filter_metadata_t* {}_{}_metadata();", name, step));
    }
    for (std::size_t k = 0; k < est.terms.size(); ++k) {
        line(fmt::format("int {}_norm_gram{}_argv(void** args);", name, k));
        line(fmt::format("const struct halide_filter_metadata_t* {}_norm_gram{}_metadata();", name, k));
    }
    line("}");
    line("");
    line(fmt::format("namespace {} {{", name));
    line("");
    line("/// The problem's data: the inputs and parameters the problem names, as the user has them (init");
    line("/// applies ProxGen's rewrite rules to them), then any other data named after the terms of the plan");
    line("/// (the values after the rewrite rules, e.g. an offset `- b` is the term's `offset` = -b).");
    line("/// Images: dense float32, x fastest.");
    line("struct Data {");
    for (const auto& f : named_inputs) {
        line(fmt::format("    /// input '{}' of the problem (rank {}): {}", f.name, f.rank, f.doc));
        line(fmt::format("    Halide::Runtime::Buffer<float> {};", f.name));
    }
    for (const auto& f : named_parameters) {
        line(fmt::format("    /// parameter '{}' of the problem: {}", f.name, f.doc));
        line(fmt::format("    float {} = {};", f.name, float_literal(float(f.value))));
    }
    for (std::size_t i = 0; i < n_images; ++i) {
        if (!image_sources[i].empty()) continue;
        const auto& s = slots.images[i];
        line(fmt::format("    /// {} (rank {})", s.doc, s.rank));
        line(fmt::format("    Halide::Runtime::Buffer<float> {};", s.name));
    }
    for (std::size_t i = 0; i < n_scalars; ++i) {
        if (!scalar_sources[i].empty()) continue;
        const auto& s = slots.scalars[i];
        line(fmt::format("    /// {}", s.doc));
        line(fmt::format("    float {} = {};", s.name, float_literal(s.default_value)));
    }
    line("};");
    line("");
    auto list = [&](const char* type, const char* field, auto&& value, const auto& items) {
        std::string s = fmt::format("    static constexpr {} {}[] = {{", type, field);
        for (const auto& i : items) s += value(i) + ", ";
        line(s + (items.empty() ? "{}};" : "};"));
    };
    line("struct Description {");
    line("    using Data = " + name + "::Data;");
    line("    /// One extents vector per variable (Halide order: width, height[, channels])");
    line("    using Extents = std::vector<std::vector<int>>;");
    line(fmt::format("    static constexpr const char* name = \"{}\";", name));
    line(fmt::format("    static constexpr const char* target = \"{}\";", target));
    const std::vector<ir::Variable> variables = solver_variables(p);
    line("    /// The unknowns, in the order of Solver::init_variables' extents and x(j)");
    line(fmt::format("    static constexpr int variable_count = {};", variables.size()));
    list("const char*", "variable_names", [](const ir::Variable& v) { return "\"" + v.name + "\""; }, variables);
    list("int", "variable_ranks", [](const ir::Variable& v) { return std::to_string(v.shape.size()); }, variables);
    line("    /// the (first) variable's rank");
    line(fmt::format("    static constexpr int variable_rank = {};", variables.front().shape.size()));
    line(fmt::format("    static constexpr int image_slots = {}, scalar_slots = {}, psi_terms = {}, omega_terms = {};",
                     p.image_slots, p.scalar_slots, p.psi.size(), p.omega.size()));
    list("int", "image_ranks", [](const SlotInfo& s) { return std::to_string(s.rank); }, slots.images);
    list("const char*", "image_names", [](const SlotInfo& s) { return "\"" + s.name + "\""; }, slots.images);
    list("const char*", "scalar_names", [](const SlotInfo& s) { return "\"" + s.name + "\""; }, slots.scalars);
    line("    /// true: a penalty's weight (finite, >= 0); false: a scale factor (finite)");
    list("bool", "scalar_is_weight", [](const SlotInfo& s) { return std::string(s.weight ? "true" : "false"); },
         slots.scalars);
    line("");
    line("    /// The plan's data slots from Data: named data with the rewrite rules applied (slots made here");
    line("    /// are kept in `made`; a slot whose named images are not dense float32 of one size is null).");
    line("    static void bind(Data& d, halide_buffer_t** images, float* scalars,");
    line("                     proxgen::aot::MadeData& made) {");
    for (std::size_t i = 0; i < n_images; ++i) {
        const auto& src = image_sources[i];
        if (src.empty()) {
            line(fmt::format("        images[{}] = d.{}.raw_buffer();", i, slots.images[i].name));
        } else if (src.size() == 1 && src.front().factor == 1) {
            line(fmt::format("        images[{}] = d.{}.raw_buffer();", i, src.front().name));
        } else {
            std::string terms;
            for (const auto& s : src) terms += fmt::format("{}{{d.{}.raw_buffer(), {:.17g}}}", terms.empty() ? "" : ", ", s.name, s.factor);
            line(fmt::format("        images[{}] = proxgen::aot::combine(made, {{{}}});", i, terms));
        }
    }
    for (std::size_t i = 0; i < n_scalars; ++i) {
        const auto& src = scalar_sources[i];
        if (src.empty()) line(fmt::format("        scalars[{}] = d.{};", i, slots.scalars[i].name));
        else if (src.front().factor == 1) line(fmt::format("        scalars[{}] = d.{};", i, src.front().name));
        else line(fmt::format("        scalars[{}] = float({:.17g} * double(d.{}));", i, src.front().factor, src.front().name));
    }
    line("        (void)d, (void)images, (void)scalars, (void)made;");
    line("    }");
    line("    /// The extents data image `slot` must have (empty: any).");
    line("    static std::vector<int> image_shape(int slot, const Extents& v, halide_buffer_t* const* images) {");
    line("        (void)v, (void)images;");
    line("        switch (slot) {");
    for (std::size_t i = 0; i < slots.images.size(); ++i)
        if (!slots.images[i].shape_code.empty())
            line(fmt::format("        case {}: return {};", i, slots.images[i].shape_code));
    line("        default: return {};");
    line("        }");
    line("    }");
    line("    /// Why data image `slot` does not fit the variables' extents v (\"\": it does).");
    line("    static std::string image_fit(int slot, const Extents& v, halide_buffer_t* const* images) {");
    line("        (void)v, (void)images;");
    line("        switch (slot) {");
    for (std::size_t i = 0; i < slots.images.size(); ++i)
        if (!slots.images[i].fit_code.empty()) line(fmt::format("        case {}: return {};", i, slots.images[i].fit_code));
    line("        default: return {};");
    line("        }");
    line("    }");
    line("    /// Why the variables' extents v break a rule of the problem's structure (\"\": they do not).");
    line("    static std::string shape_fit(const Extents& v, halide_buffer_t* const* images) {");
    line("        (void)v, (void)images;");
    std::vector<std::string> shape_checks;
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) add_shape_checks(t.expr, shape_checks);
    for (const auto& code : shape_checks) line(fmt::format("        if (std::string m = {}; !m.empty()) return m;", code));
    line("        return {};");
    line("    }");
    line("    static std::vector<int> psi_shape(int term, const Extents& v, halide_buffer_t* const* images) {");
    line("        (void)images;");
    line("        switch (term) {");
    for (std::size_t i = 0; i < p.psi.size(); ++i) line(fmt::format("        case {}: return {};", i, shape_code(p.psi[i].expr)));
    line("        default: return v.front();");
    line("        }");
    line("    }");
    line("    static double norm_bound(int term, halide_buffer_t* const* images, const float* scalars) {");
    line("        (void)images, (void)scalars;");
    line("        switch (term) {");
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        line(fmt::format("        case {}: return {};", i, norm_bound_code(p.psi[i].expr)));
    line("        default: return 0.0;");
    line("        }");
    line("    }");
    line("    /// the planner's ||K|| bound of each Omega term (0: none known)");
    line("    static double omega_norm_bound(int term, halide_buffer_t* const* images, const float* scalars) {");
    line("        (void)images, (void)scalars;");
    line("        switch (term) {");
    for (std::size_t j = 0; j < p.omega.size(); ++j)
        line(fmt::format("        case {}: return {};", j, norm_bound_code(p.omega[j].expr)));
    line("        default: return 0.0;");
    line("        }");
    line("    }");
    line("    /// omega (the smooth terms' curvature per unit ||K||^2) from the terms' ||K|| (as tightened)");
    line("    static double curvature_scale(halide_buffer_t* const* images, const float* scalars, const double* psi_norms,");
    line("                                  const double* omega_norms) {");
    line("        (void)images, (void)scalars, (void)psi_norms, (void)omega_norms;");
    line("        " + curvature_scale_code(p));
    line("    }");
    line("    /// Condat-Vu: L of the gradient-step terms' gradient from their ||A|| (as tightened); 0 otherwise");
    line("    static double smooth_lipschitz(halide_buffer_t* const* images, const float* scalars, const double* omega_norms) {");
    line("        (void)images, (void)scalars, (void)omega_norms;");
    line("        " + smooth_lipschitz_code(p));
    line("    }");
    auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    auto number = [](int k) { return std::to_string(k); };
    std::vector<bool> gradient_step;
    for (const auto& t : p.omega) gradient_step.push_back(plan::gradient_step(p, t));
    line(fmt::format("    /// Condat-Vu steps along the gradient of these Omega terms (its step rule reads L above)"));
    line(fmt::format("    static constexpr bool gradient_steps = {};", flag(plan::has_gradient_steps(p))));
    list("bool", "omega_gradient_step", flag, gradient_step);
    line("    /// ||K|| estimates at init (the JIT's rule): terms whose planner bound is not exact are tightened,");
    line("    /// coupled groups of two or more general operators get an estimate of their stack; norm_gram(k)");
    line("    /// applies one term's K^T K (psi_gram / omega_gram: a term's k, or -1)");
    list("bool", "psi_norm_estimated", flag, est.psi_estimated);
    list("bool", "psi_general", flag, est.psi_general);
    list("int", "psi_gram", number, est.psi_gram);
    list("bool", "omega_norm_estimated", flag, est.omega_estimated);
    list("int", "omega_gram", number, est.omega_gram);
    line(fmt::format("    static constexpr int norm_grams = {};", est.terms.size()));
    line("    static int norm_gram(int k, void** args) {");
    line("        switch (k) {");
    for (std::size_t k = 0; k < est.terms.size(); ++k)
        line(fmt::format("        case {0}: return ::{1}_norm_gram{0}_argv(args);", k, name));
    line("        default: return -1;");
    line("        }");
    line("    }");
    line("    static const halide_filter_metadata_t* norm_gram_metadata(int k) {");
    line("        switch (k) {");
    for (std::size_t k = 0; k < est.terms.size(); ++k)
        line(fmt::format("        case {0}: return ::{1}_norm_gram{0}_metadata();", k, name));
    line("        default: return nullptr;");
    line("        }");
    line("    }");
    line("    static double strong_convexity(halide_buffer_t* const* images, const float* scalars) {");
    line("        (void)images, (void)scalars;");
    line("        " + strong_convexity_code(p));
    line("    }");
    line("    /// The largest magnitude of the data in the split terms' space (the JIT's data_peak): the");
    line("    /// unit of the absolute tolerances");
    line("    static double data_peak(halide_buffer_t* const* images, const float* scalars) {");
    line("        (void)images, (void)scalars;");
    line("        double peak = 0;");
    for (const auto* terms : {&p.psi, &p.omega})
        for (const ir::Term& t : *terms) {
            if (t.offset_slot < 0) continue;
            const std::string weight = t.arg_weight_slot >= 0 ? fmt::format("images[{}]", t.arg_weight_slot) : "nullptr";
            const std::string beta = t.beta_slot >= 0 ? fmt::format("double(scalars[{}])", t.beta_slot) : float_literal(t.beta);
            line(fmt::format("        peak = std::max(peak, proxgen::aot::term_data_peak(images[{}], {}, {}));", t.offset_slot,
                             weight, beta));
        }
    line("        return peak;");
    line("    }");
    line("    /// Tuple elements per Ψ term in the fused pipelines' output (the y_i components)");
    list("int", "psi_components", [&](const ir::Term& t) { return std::to_string(std::max(1, lower::fused_components(p, t))); },
         p.psi);
    // the JIT's rule (detail::coupled_blocks): Σ KᵢᵀKᵢ is block-diagonal over the groups of
    // variables that no chain of terms couples, so the stacked norm is the largest group's
    std::vector<int> groups(p.psi.size(), 0);
    {
        int g = 0;
        for (const auto& block : detail::coupled_blocks(p, false)) {
            for (const ir::Term* t : block) groups[std::size_t(t - p.psi.data())] = g;
            ++g;
        }
    }
    line("    /// each Ψ term's coupled group: ||K||^2 adds up within a group, the steps use the largest group's");
    list("int", "psi_groups", [](int g) { return std::to_string(g); }, groups);
    line("    /// fused: `step` and `check` run a whole iteration per call; else the separate steps");
    line(fmt::format("    static constexpr bool fused = {};", steps.fused ? "true" : "false"));
    line(fmt::format("    /// {}: one call of `iterate` runs that many iterations", steps.iterations_per_call));
    line(fmt::format("    static constexpr int iterations_per_call = {};", steps.iterations_per_call));
    auto generated = [&](const std::string& s) {
        return std::find(steps.generated.begin(), steps.generated.end(), s) != steps.generated.end();
    };
    if (std::find(steps.all.begin(), steps.all.end(), "feasible") != steps.all.end()) {
        line("    /// `feasible` projects x onto the constraints on the variable itself: the solution x() returns");
        line(fmt::format("    static constexpr bool has_feasible = {};", generated("feasible") ? "true" : "false"));
    }
    if (generated("objective")) {
        // HQS's continuation: each term's float64 summands (Omega then Psi), weighed and summed here
        std::vector<const ir::Term*> terms;
        for (const auto* list : {&p.omega, &p.psi})
            for (const auto& t : *list) terms.push_back(&t);
        line("    /// `objective` writes each term's float64 summands (Omega then Psi terms); the objective is");
        line("    /// the sum over terms of scalars[term_weight_slot[k]] times the sum of term k's summands");
        line(fmt::format("    static constexpr int objective_terms = {};", terms.size()));
        list("int", "term_weight_slot", [](const ir::Term* t) { return std::to_string(t->weight_slot); }, terms);
        line("    static std::vector<int> term_summand_shape(int term, const Extents& v, halide_buffer_t* const* images) {");
        line("        (void)v, (void)images;");
        line("        switch (term) {");
        for (std::size_t k = 0; k < terms.size(); ++k) {
            const int r = catalogue::card_of(*terms[k]).summand_rank(int(terms[k]->expr.shape.size()));
            line(fmt::format("        case {}: {{ std::vector<int> s = {}; s.resize({}); return s; }}", k,
                             shape_code(terms[k]->expr), r));
        }
        line("        default: return {};");
        line("        }");
        line("    }");
    }
    if (steps.solution_term) {
        line("    /// the Ψ term whose split copy z (which meets x's only constraint exactly) x() returns; -1: x");
        line(fmt::format("    static constexpr int solution_term = {};", *steps.solution_term));
    }
    if (!steps.x_update.empty()) {
        line("    /// how the x-update solves its quadratic (the plan's x-update)");
        line("    static constexpr proxgen::aot::XUpdate x_update_kind = proxgen::aot::XUpdate::" + steps.x_update + ";");
        line("    /// each variable's block of it (several variables: a spectral block by its own transforms)");
        std::string kinds;
        for (const std::string& b : steps.blocks) kinds += (kinds.empty() ? "" : ", ") + ("proxgen::aot::XUpdate::" + b);
        line(fmt::format("    static constexpr std::array<proxgen::aot::XUpdate, {}> block_kinds{{{{{}}}}};", steps.blocks.size(),
                         kinds));
        line("    /// cg: preconditioned by the FFT inverse of a circulant stand-in for its operator (precond_gram)");
        line(fmt::format("    static constexpr bool cg_preconditioned = {};", steps.cg_preconditioned ? "true" : "false"));
    }
    if (!steps.fft_prefix.empty()) {
        line("    /// the FFT / DCT passes the x-update's transforms run");
        line(fmt::format("    static proxgen::aot::fft::Kernels fft_kernels() {{ return ::{}_kernels(); }}", steps.fft_prefix));
    }
    for (const std::string& step : steps.all) {
        if (generated(step)) continue;
        line(fmt::format("    static int {}(void**) {{ return -1; }}  // not generated", step));
        line(fmt::format("    static const halide_filter_metadata_t* {}_metadata() {{ return nullptr; }}", step));
    }
    for (const std::string& step : steps.generated) {
        line(fmt::format("    static int {}(void** args) {{ return ::{}_{}_argv(args); }}", step, name, step));
        line(fmt::format("    static const halide_filter_metadata_t* {}_metadata() {{ return ::{}_{}_metadata(); }}", step,
                         name, step));
    }
    line("};");
    line("");
    line("using Solver = " + steps.solver + "<Description>;");
    line("using proxgen::aot::Options;");
    line("using proxgen::aot::State;");
    line("using proxgen::aot::Status;");
    line("");
    line(fmt::format("}}  // namespace {}", name));
    line("");
    line("// Prefixed entry points (the same as the Solver methods), so several solvers link into one program.");
    line(fmt::format("inline {0}::Status {0}_init({0}::Solver& s, const std::vector<int>& variable_extents,", name));
    line(fmt::format("                                   const {0}::Data& data, const {0}::Options& options = {{}}) {{", name));
    line("    return s.init(variable_extents, data, options);");
    line("}");
    line(fmt::format("inline {0}::Status {0}_init_variables({0}::Solver& s, const {0}::Description::Extents& extents,", name));
    line(fmt::format("                                   const {0}::Data& data, const {0}::Options& options = {{}}) {{", name));
    line("    return s.init_variables(extents, data, options);");
    line("}");
    line(fmt::format("inline {0}::Status {0}_step({0}::Solver& s, int iterations) {{ return s.step(iterations); }}", name));
    line(fmt::format("inline {0}::Status {0}_solve({0}::Solver& s) {{ return s.solve(); }}", name));
    line(fmt::format("inline const {0}::State& {0}_state(const {0}::Solver& s) {{ return s.state(); }}", name));
    return h;
}

}  // namespace proxgen::aot
