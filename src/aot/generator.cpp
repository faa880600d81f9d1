// The generator executable's body: lowers the Halide-only plan's step pipelines with the schedule
// chosen by the target, and writes one static library (all step functions, no runtime) plus the
// typed solver header. It calls Pipeline::compile_to_module directly rather than going through
// Halide::Generator: a generator's inputs are a fixed list of declared members, while ours depend
// on the problem (one buffer per data slot and per Ψ term).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <Halide.h>
#include <fmt/format.h>

#include "../solve/engine.hpp"
#include "../solve/ladmm_pipelines.hpp"
#include "../solve/pc_pipelines.hpp"
#include "../solve/quadratic_pipelines.hpp"
#include "proxgen/aot/generator.hpp"
#include "proxgen/error.hpp"
#include "data_sources.hpp"
#include "fft_passes.hpp"
#include "proxgen/runtime.hpp"
#include "solver_header.hpp"
#include "../runtime/nodes.hpp"

namespace proxgen::aot {

namespace {
/// Letters, digits and '_', not starting with a digit (and not empty).
bool is_c_identifier(const std::string& s) {
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
           s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos;
}
}  // namespace

std::string solver_name_problem(const std::string& name) {
    // C++20's keywords and alternative tokens: the name becomes a namespace and prefixes functions
    static const std::set<std::string> keywords = {
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
        "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
        "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
        "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
        "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
        "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
        "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
        "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
        "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while"};
    // namespaces the generated header itself uses, or that a program already has
    static const std::set<std::string> taken = {"std", "proxgen", "Halide", "main"};
    const std::string why =
        name.empty() ? "is empty"
        : !is_c_identifier(name) ? "is not a C identifier (letters, digits and '_', not starting with a digit)"
        : keywords.count(name) ? "is a C++ keyword"
        : taken.count(name)    ? "is a namespace the generated code or the program already uses"
        : name.find("__") != std::string::npos || (name[0] == '_' && (name.size() == 1 || std::isupper(static_cast<unsigned char>(name[1]))))
            ? "is reserved for the C++ implementation (a double underscore, or '_' and a capital letter)"
            : "";
    if (why.empty()) return {};
    return fmt::format("the solver name '{}' {}; it names the solver's namespace and prefixes its functions, so "
                       "it must be a valid C++ identifier, e.g. deblur", name, why);
}

namespace {

struct CommandLine {
    std::string out_dir, name, target, runtime_stem, autoscheduler, plugin;
    std::string iterations_per_call = "1";
    /// -f: write the FFT / DCT pass library <fft_library>.a for the target (no solver);
    /// -F: the solver's spectral x-update calls that library's passes instead of compiling its own
    std::string fft_library, shared_fft;
    /// Emits a library shared by the solvers of a target (the runtime, the FFT passes), no solver.
    bool shared_library_only() const { return !runtime_stem.empty() || !fft_library.empty(); }
    /// The prefix of the FFT passes a solver with a spectral x-update calls.
    std::string fft_prefix() const { return shared_fft.empty() ? name + "_fft" : shared_fft; }
};

CommandLine parse(int argc, char** argv) {
    CommandLine c;
    std::map<std::string, std::string*> flags{{"-o", &c.out_dir}, {"-n", &c.name},          {"-t", &c.target},
                                              {"-r", &c.runtime_stem}, {"-s", &c.autoscheduler}, {"-p", &c.plugin},
                                              {"-i", &c.iterations_per_call}, {"-f", &c.fft_library},
                                              {"-F", &c.shared_fft}};
    for (int i = 1; i < argc; ++i) {
        auto f = flags.find(argv[i]);
        if (f == flags.end() || i + 1 >= argc)
            fail("generator: unknown or incomplete argument '{}'; usage: -o <dir> -n <name> -t <target> "
                 "[-i <iterations per call>] [-s <autoscheduler> -p <plugin.so>] [-F <FFT library stem>] | -o <dir> "
                 "-r <runtime stem> -t <target> | -o <dir> -f <FFT library stem> -t <target>",
                 argv[i]);
        *f->second = argv[++i];
    }
    if (c.out_dir.empty() || c.target.empty() ||
        int(!c.name.empty()) + int(!c.runtime_stem.empty()) + int(!c.fft_library.empty()) != 1)
        fail("generator: need -o <dir>, -t <target> and exactly one of -n <name>, -r <runtime stem> or -f <FFT "
             "library stem>");
    if (!c.shared_fft.empty() && c.name.empty()) fail("generator: -F <FFT library stem> goes with -n <name>");
    // the stem prefixes the passes' C symbols
    for (const std::string* stem : {&c.fft_library, &c.shared_fft})
        if (!stem->empty() && !is_c_identifier(*stem))
            fail("generator: the FFT library stem '{}' is not a C identifier (letters, digits and '_')", *stem);
    if (!c.name.empty())
        if (std::string m = solver_name_problem(c.name); !m.empty()) fail("generator: {}", m);
    const int n = std::atoi(c.iterations_per_call.c_str());
    if (n < 1 || n > 64 || std::to_string(n) != c.iterations_per_call)
        fail("generator: iterations per call (-i) must be an integer in [1, 64], got '{}'", c.iterations_per_call);
    if (!Halide::Target::validate_target_string(c.target))
        fail("generator: '{}' is not a Halide target string (e.g. x86-64-linux-avx2, arm-64-linux, host-cuda)",
             c.target);
    return c;
}

/// Estimates for the autoschedulers: a 1024² image, kernels and groups small.
void set_estimates(detail::PCPipelines& pc) {
    auto estimate = [](Halide::ImageParam& p) {
        std::vector<std::pair<Halide::Expr, Halide::Expr>> e{{0, 1024}, {0, 1024}};
        for (int d = 2; d < p.dimensions(); ++d) e.emplace_back(0, 2);
        e.resize(std::size_t(p.dimensions()));
        Halide::Region r;
        for (auto& [m, x] : e) r.emplace_back(m, x);
        p.set_estimates(r);
    };
    for (auto& i : pc.params.images) estimate(i);
    for (auto* i : {&pc.x, &pc.x_prev, &pc.x_prev2})
        for (auto& v : i->vars) estimate(v);
    for (auto& i : pc.y) estimate(i);
    for (auto& i : pc.y_prev) estimate(i);
    for (auto& s : pc.params.scalars) s.set_estimate(1.0f);
    for (auto* s : {&pc.sigma, &pc.tau, &pc.theta, &pc.res_sigma, &pc.res_tau, &pc.res_theta}) s->set_estimate(1.0f);
    for (auto& s : pc.sigma_scale) s.set_estimate(1.0f);
    for (auto* pipe : {&pc.dual, &pc.primal, &pc.feasible}) {
        if (!pipe->defined()) continue;
        for (Halide::Func f : pipe->outputs()) {
            Halide::Region r{{0, 1024}, {0, 1024}};
            for (int d = 2; d < f.dimensions(); ++d) r.emplace_back(0, 2);
            r.resize(std::size_t(f.dimensions()));
            f.set_estimates(r);
        }
    }
    // the residual's partial sums: 16 lanes x 64 strips x (2 + 2 per Ψ term) quantities
    for (Halide::Func f : pc.residual.outputs()) f.set_estimates({{0, 16}, {0, 64}, {0, 2 + 2 * int(pc.y.size())}});
}

/// The plan's terms (describe_ir would also print bounds and steps of the placeholder data, and
/// estimate missing bounds by JIT power iteration).
std::string plan_text(const ir::Problem& p) {
    std::string s = fmt::format("ProxGen plan ({}), ", name(p.algorithm));
    if (p.variables.size() <= 1) s += fmt::format("variable of rank {}\n", p.variable_shape.size());
    else {
        s += "variables";
        for (const auto& v : p.variables) s += fmt::format(" {} (rank {})", v.name, v.shape.size());
        s += "\n";
    }
    s += "  Omega (absorbed by the x-update, closed-form prox per pixel):\n";
    if (p.omega.empty()) s += "    (none)\n";
    for (const auto& t : p.omega) s += "    " + t.text + "\n";
    s += "  Psi (split z_i = K_i x, proxed), in the order of the pipelines' y_i:\n";
    for (const auto& t : p.psi) s += "    " + t.text + "\n";
    return s;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
    if (!f) fail("generator: cannot write {}", path);
}

/// One algorithm's step pipelines, each with its entry point's suffix and arguments, and what the
/// header says of them.
struct Emitted {
    std::vector<std::tuple<Halide::Pipeline, std::string, std::vector<Halide::Argument>>> pipelines;
    SolverSteps header;
    /// Steps compiled for the CPU side of a GPU target (float64 work the host reads back at once).
    std::set<std::string> cpu_steps;
};

/// The target without its GPU API: the host side of a GPU library.
Halide::Target cpu_side(Halide::Target t) {
    for (auto f : {Halide::Target::CUDA, Halide::Target::OpenCL, Halide::Target::Metal, Halide::Target::D3D12Compute,
                   Halide::Target::OpenGLCompute})
        t = t.without_feature(f);
    return t;
}

void check_iterations_per_call(int n, bool blockable) {
    if (n > 1 && !blockable)
        fail("generator: iterations per call (-i / ITERATIONS_PER_CALL) {} needs a CPU target and a plan whose Psi "
             "terms are local stencils over the variable's pixels with a closed-form x-update (e.g. TV denoising); "
             "this plan or target has none to chain, so use 1",
             n);
}

/// Pock–Chambolle's steps, and Condat–Vũ's (the same pipelines: its plans carry ∇h in the primal
/// step and residual; never fused).
Emitted pc_steps(const ir::Problem& p, const CommandLine& c, const Halide::Target& lib_target, int n) {
    detail::PCPipelines pc(p);
    // Fused kernels on CPU targets (hand schedule); GPUs and autoschedulers get the separate steps
    // (a fused kernel writes the components of y as slices, which device buffers do not share).
    const bool fused = lower::psi_fusable(p) && lower::schedule_kind() == lower::ScheduleKind::cpu;
    check_iterations_per_call(n, fused && lower::psi_blockable(p));
    Halide::Pipeline block;
    if (n > 1) block = pc.iterations(p, n);
    if (!c.autoscheduler.empty()) {
        set_estimates(pc);
        for (auto* pipe : {&pc.dual, &pc.primal, &pc.residual, &pc.feasible})
            if (pipe->defined()) pipe->auto_schedule(c.autoscheduler, lib_target, Halide::MachineParams::generic());
    }
    Emitted e;
    e.header = {"proxgen/aot/pock_chambolle.hpp",
                plan::gradient_steps(p.algorithm) ? "proxgen::aot::CondatVu" : "proxgen::aot::PockChambolle",
                {"step", "check", "dual", "primal", "residual", "iterate", "feasible"}, {}, fused, n, std::nullopt};
    auto add = [&](const Halide::Pipeline& pipe, const char* step, std::vector<Halide::Argument> args) {
        e.pipelines.emplace_back(pipe, step, std::move(args));
        e.header.generated.push_back(step);
    };
    if (fused) {
        add(pc.step, "step", pc.arguments());
        add(pc.check, "check", pc.arguments());
    } else {
        if (pc.dual.defined()) add(pc.dual, "dual", pc.arguments());  // (forward–backward: no dual)
        add(pc.primal, "primal", pc.arguments());
        add(pc.residual, "residual", pc.arguments());
    }
    if (block.defined()) add(block, "iterate", pc.iteration_arguments());
    if (pc.feasible.defined()) add(pc.feasible, "feasible", pc.arguments());
    return e;
}

Emitted ladmm_steps(const ir::Problem& p, const CommandLine& c, const Halide::Target&, int n) {
    if (!c.autoscheduler.empty())
        fail("generator: the autoschedulers are wired to pock_chambolle's pipelines only; generate linearized ADMM "
             "with the hand schedules (no -s / AUTOSCHEDULER)");
    detail::LADMMPipelines lp(p);
    // as the JIT (ladmm.cpp): fused where the Ψ terms lie over the variable's pixels, on CPU targets
    const bool fused = lower::psi_fusable(p) && lower::schedule_kind() == lower::ScheduleKind::cpu;
    check_iterations_per_call(n, fused && lower::psi_blockable(p));
    Emitted e;
    e.header = {"proxgen/aot/linearized_admm.hpp", "proxgen::aot::LinearizedADMM",
                {"step", "check", "x_step", "zu_step", "residual", "iterate"}, {}, fused, n,
                detail::split_solution_term(p)};
    auto add = [&](const Halide::Pipeline& pipe, const char* step) {
        e.pipelines.emplace_back(pipe, step, lp.arguments());
        e.header.generated.push_back(step);
    };
    if (fused) {
        add(lp.fused(p, false), "step");
        add(lp.fused(p, true), "check");
    } else {
        add(lp.x_step, "x_step");
        add(lp.zu_step(), "zu_step");
        add(lp.residual(), "residual");
    }
    if (n > 1) add(lp.iterations(p, n), "iterate");
    return e;
}

/// ADMM's steps, and HQS's: the same with its continuation's objective (at the feasible copy).
Emitted quadratic_steps(const ir::Problem& p, const CommandLine& c, const Halide::Target& lib_target, int n) {
    const bool hqs = p.algorithm == Algorithm::hqs;
    const std::string algorithm = hqs ? "HQS" : "ADMM";
    if (!c.autoscheduler.empty())
        fail("generator: the autoschedulers are wired to pock_chambolle's pipelines only; generate {} with the hand "
             "schedules (no -s / AUTOSCHEDULER)", algorithm);
    if (n > 1)
        fail("generator: iterations per call (-i / ITERATIONS_PER_CALL) {} chains fused iterations, which {}'s "
             "separate x-update and (z, u) steps do not have; use 1",
             n, algorithm);
    const bool spectral = plan::spectral(p.x_update);
    detail::QuadraticPipelines q(p);
    Emitted e;
    e.header = {"proxgen/aot/admm.hpp", hqs ? "proxgen::aot::HQS" : "proxgen::aot::ADMM",
                {"x_update", "gram", "gram_psi", "cg_residual", "precond_gram", "precond_gram_psi", "gram_split",
                 "cg_update", "cg_direction", "cg_direction_pair", "cg_dot", "zu_step", "residual"},
                {}, false, 1,
                detail::split_solution_term(p)};
    if (hqs) {
        // the continuation's objective: float64 summands, run where the host reads them (OpenCL has
        // no float64 without an extension)
        e.header.all.insert(e.header.all.end(), {"objective", "feasible"});
        lower::ScheduleScope cpu(cpu_side(lib_target), false);
        const detail::TermValues values(p);
        e.pipelines.emplace_back(values.pipeline, "objective", values.arguments());
        e.header.generated.push_back("objective");
        e.cpu_steps.insert("objective");
        if (lower::has_feasible_copy(p)) {
            const detail::FeasibleCopy feasible(p);
            e.pipelines.emplace_back(feasible.pipeline, "feasible", feasible.arguments());
            e.header.generated.push_back("feasible");
            e.cpu_steps.insert("feasible");
        }
    }
    auto kind = [](plan::XUpdate u) {
        return u == plan::XUpdate::cg ? "cg" : u == plan::XUpdate::fft ? "fft" : u == plan::XUpdate::dct ? "dct" : "direct";
    };
    e.header.x_update = kind(p.x_update);
    for (std::size_t j = 0; j < p.variables.size(); ++j) e.header.blocks.push_back(kind(ir::block_update(p, int(j))));
    auto add = [&](const Halide::Pipeline& pipe, const char* step) {
        e.pipelines.emplace_back(pipe, step, q.arguments());
        e.header.generated.push_back(step);
    };
    if (p.x_update == plan::XUpdate::cg) {
        add(q.residual, "cg_residual");
        add(q.gram_apply, "gram");
        // its vector updates and inner products too, so that the vectors stay where the steps run
        const detail::CGVectorPipelines v(p);
        const bool preconditioned = q.precond_gram.defined();  // as the JIT's: by a circulant stand-in, by FFT
        std::vector<std::tuple<Halide::Pipeline, const char*, std::vector<Halide::Argument>>> steps = {
            {v.update, "cg_update", v.update_arguments()},
            {v.direction, "cg_direction", v.direction_arguments()},
            {v.dot, "cg_dot", v.dot_arguments()}};
        if (preconditioned) {
            add(q.precond_gram, "precond_gram");
            add(q.precond_gram_psi, "precond_gram_psi");
            // G d = P d + (G − P) d with P d carried beside d (the JIT's CG): no circulant operator
            // applied in space per step; `gram` stays for a GPU library, whose CG is unpreconditioned
            steps.emplace_back(q.gram_split, "gram_split", q.gram_split_arguments());
            steps.emplace_back(v.direction_pair, "cg_direction_pair", v.direction_pair_arguments());
            e.header.cg_preconditioned = true;
            e.header.fft_prefix = c.fft_prefix();
        }
        for (auto& [pipe, step, args] : steps) {
            e.pipelines.emplace_back(pipe, step, std::move(args));
            e.header.generated.push_back(step);
        }
    } else {
        add(q.rhs_or_x, "x_update");
    }
    if (spectral) {
        add(q.gram_apply, "gram");
        add(q.gram_psi, "gram_psi");
        e.header.fft_prefix = c.fft_prefix();
    }
    add(q.split->zu_step, "zu_step");
    add(q.split->residual, "residual");
    return e;
}

/// Each algorithm's step pipelines, in algorithm_table's order: the generator's column of the
/// algorithm rows (Condat–Vũ runs Pock–Chambolle's emitter: its plan has the gradient step).
struct StepEmitter {
    Algorithm algorithm;
    Emitted (*emit)(const ir::Problem& p, const CommandLine& c, const Halide::Target& lib_target, int n);
};
constexpr StepEmitter step_emitters[] = {
    {Algorithm::admm, &quadratic_steps},  {Algorithm::ladmm, &ladmm_steps},
    {Algorithm::pock_chambolle, &pc_steps}, {Algorithm::hqs, &quadratic_steps},
    {Algorithm::condat_vu, &pc_steps},
};
static_assert(std::size(step_emitters) == algorithm_table.size(), "one step emitter per algorithm of algorithm_table");

const StepEmitter& step_emitter(Algorithm a) {
    const auto i = std::size_t(a);
    PROXGEN_INTERNAL_ASSERT(i < std::size(step_emitters) && step_emitters[i].algorithm == a);
    return step_emitters[i];
}

int run(const ir::Problem& planned, const CommandLine& c, const DataSources* sources) {
    const auto t0 = std::chrono::steady_clock::now();
    const Halide::Target target(c.target);
    if (!c.runtime_stem.empty()) {
        Halide::compile_standalone_runtime(
            {{Halide::OutputFileType::static_library, c.out_dir + "/" + c.runtime_stem + ".a"}}, target);
        return 0;
    }
    if (!c.fft_library.empty()) {
        fft::emit_library(c.out_dir, c.fft_library, target.with_feature(Halide::Target::NoRuntime));
        return 0;
    }
    const ir::Problem p = halide_only(planned);
    // Nothing split: the x-update alone solves the problem, unless a gradient step moves x
    // (Condat–Vũ's plan is then forward–backward: x⁺ = prox(x − τ∇h(x)), PC's loop without a dual)
    if (p.psi.empty() && !plan::has_gradient_steps(p))
        fail("generator: the plan splits no term (the x-update alone solves the problem), so there is no loop to "
             "generate");
    const bool autoschedule = !c.autoscheduler.empty();
    if (autoschedule) Halide::load_plugin(c.plugin.empty() ? "libautoschedule_" + c.autoscheduler + ".so" : c.plugin);
    // One runtime per target is shared by every solver of a program (proxgen_add_solver builds it).
    const Halide::Target lib_target = target.with_feature(Halide::Target::NoRuntime);
    lower::ScheduleScope scope(lib_target, autoschedule);
    const int iterations_per_call = std::atoi(c.iterations_per_call.c_str());
    Emitted e = step_emitter(p.algorithm).emit(p, c, lib_target, iterations_per_call);
    // the Gram pipelines of the ||K|| estimates the generated init makes (the JIT's rule)
    const NormEstimates estimates = norm_estimates(p);
    for (std::size_t k = 0; k < estimates.terms.size(); ++k) {
        const NormEstimates::Term& t = estimates.terms[k];
        detail::GramOfTerm g(p, t.psi ? p.psi[std::size_t(t.index)] : p.omega[std::size_t(t.index)]);
        e.pipelines.emplace_back(g.pipe, "norm_gram" + std::to_string(k), g.arguments());
    }
    const std::string stem = c.out_dir + "/" + c.name;
    // One object per step: a GPU module keeps its kernels in a buffer named after the GPU API
    // alone ("cuda_gpu_source_kernels"), so steps merged into one module would all share the
    // first step's kernels.
    std::vector<Halide::Module> modules;
    std::vector<std::string> objects;
    for (auto& [pipe, step, inputs] : e.pipelines) {
        modules.push_back(
            pipe.compile_to_module(inputs, c.name + "_" + step, e.cpu_steps.count(step) ? cpu_side(lib_target) : lib_target));
        objects.push_back(stem + "_" + step + (lib_target.os == Halide::Target::Windows ? ".obj" : ".o"));
        modules.back().compile({{Halide::OutputFileType::object, objects.back()}});
    }
    // the transforms of a spectral x-update: the FFT passes, in the same library (unless the solvers
    // of this target share one library of them: -F)
    if (!e.header.fft_prefix.empty() && c.shared_fft.empty()) {
        for (Halide::Module& m : fft::pass_modules(e.header.fft_prefix, lib_target)) {
            objects.push_back(c.out_dir + "/" + m.name() + (lib_target.os == Halide::Target::Windows ? ".obj" : ".o"));
            m.compile({{Halide::OutputFileType::object, objects.back()}});
            modules.push_back(std::move(m));
        }
        write_file(c.out_dir + "/" + e.header.fft_prefix + ".h",
                   fft::kernels_header(e.header.fft_prefix, c.name + "_pipelines.h", lib_target));
    }
    Halide::create_static_library(objects, lib_target, stem + ".a");
    for (const auto& o : objects) std::remove(o.c_str());
    // the declarations of every step, from a module holding them all (no code generated from it)
    Halide::Module declarations = modules.front();
    for (std::size_t i = 1; i < modules.size(); ++i)
        for (const auto& f : modules[i].functions()) declarations.append(f);
    declarations.compile({{Halide::OutputFileType::c_header, stem + "_pipelines.h"}});
    write_file(stem + ".h", solver_header(p, c.name, c.target, plan_text(p), e.header, sources));
    std::printf("generator: %s for %s in %.2f s\n", c.name.c_str(), c.target.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return 0;
}

}  // namespace

namespace {
int run_reporting(const std::function<int()>& f) {
    try {
        return f();
    } catch (const proxgen::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
    } catch (const Halide::Error& e) {
        std::fprintf(stderr, "generator: Halide: %s\n", e.what());
    }
    return 1;
}
}  // namespace

namespace {
std::size_t algorithm_position(std::vector<char*>& args, const std::vector<Algorithm>& built) {
    std::string names;
    for (Algorithm b : built) names += fmt::format("{}{}", names.empty() ? "" : ", ", proxgen::name(b));
    std::size_t chosen = 0;
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (std::string_view(args[i]) != "-a") continue;
        if (i + 1 >= args.size()) fail("generator: -a needs an algorithm; this generator was built for {}", names);
        const std::optional<Algorithm> a = parse_algorithm(args[i + 1]);
        if (!a)
            fail("generator: -a {}: not an algorithm; the algorithms are {}", args[i + 1], accepted_algorithm_names());
        const auto at = std::find(built.begin(), built.end(), *a);
        if (at == built.end())
            fail("generator: -a {}: this generator was built for {} only (proxgen_add_solver builds it for the "
                 "algorithms its solvers name)", args[i + 1], names);
        chosen = std::size_t(at - built.begin());
        args.erase(args.begin() + std::ptrdiff_t(i), args.begin() + std::ptrdiff_t(i) + 2);
        --i;
    }
    return chosen;
}
}  // namespace

int take_algorithm_argument(std::vector<char*>& args, const std::vector<Algorithm>& built) {
    int chosen = -1;
    const int status = run_reporting([&] {
        chosen = int(algorithm_position(args, built));
        return 0;
    });
    if (status != 0) return -1;
    return chosen;
}

int generator_main(const ir::Problem& planned, int argc, char** argv) {
    return run_reporting([&] { return run(planned, parse(argc, argv), nullptr); });
}

namespace {
int run_named(const rt::Problem& problem, Algorithm a, int argc, char** argv) {
    const CommandLine c = parse(argc, argv);
    if (c.shared_library_only()) return run(ir::Problem{}, c, nullptr);
    const DataSources sources = data_sources(problem, a);
    return run(rt::plan(problem, a).ir(), c, &sources);
}

/// Whether a typed problem names any of its data.
bool names_data(const plan::Draft& terms, const NamedWeights& weights) {
    bool named = false;
    for (const ir::Term& t : terms.terms) {
        named = named || !t.arg_weight_name.empty() || !t.data_name.empty();
        ir::for_each_node(t.expr, [&](const ir::Node& n) { named = named || (!n.is_variable() && !n.name.empty()); });
    }
    for (const auto& w : weights) named = named || !w.empty();
    return named;
}
}  // namespace

int generator_main(const rt::Problem& problem, Algorithm a, int argc, char** argv) {
    return run_reporting([&] { return run_named(problem, a, argc, argv); });
}

int generator_main(const ir::Problem& planned, const plan::Draft& terms, const NamedWeights& weights, int argc,
                   char** argv) {
    if (!names_data(terms, weights)) return generator_main(planned, argc, argv);
    return run_reporting(
        [&] { return run_named(rt::detail::problem_of_terms(terms, weights), planned.algorithm, argc, argv); });
}

}  // namespace proxgen::aot
