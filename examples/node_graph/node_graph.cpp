// The node-editor use case end to end: a host application loads the graph an artist built (a JSON
// node graph, deblur.json beside this file), binds its inputs, solves, then — as when the artist
// drags the TV-weight slider and swaps the input photo — changes a parameter and an input and
// re-solves, warm-started, without compiling anything again.
//
//   proxgen_node_graph [GRAPH.json] [--image FILE] [--size N] [--iters N]
//
// The observation is made here: the image (a photograph, or a synthetic one without --image) blurred
// by a 9x9 Gaussian (the graph's kernel input) plus noise. Prints the JIT time, the solve and re-solve
// times, PSNRs and pg::jit_stats().pipelines_compiled; exits 1 if an edit recompiled anything.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/proxgen.hpp>

namespace pg = proxgen;
namespace fe = proxgen::frontend;

namespace {

pg::Image synthetic(int n) {
    pg::Image img(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double u = double(x) / n, v = double(y) / n;
            double value = 0.1 + 0.3 * u * v;
            if (u > 0.2 && u < 0.6 && v > 0.2 && v < 0.7) value = 0.7;
            if ((u - 0.7) * (u - 0.7) + (v - 0.3) * (v - 0.3) < 0.02) value = 0.9;
            img(x, y) = float(value);
        }
    return img;
}

/// The centre n x n of a 2-D image (the first channel of a colour one).
pg::Image centre(const pg::Image& img, int n) {
    n = std::min({n, img.width(), img.height()});
    pg::Image out(n, n);
    const int x0 = (img.width() - n) / 2, y0 = (img.height() - n) / 2;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) out(x, y) = img(x0 + x, y0 + y, 0);
    return out;
}

pg::Image gaussian_kernel(int size, double sigma) {
    pg::Image k(size, size);
    double sum = 0;
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
            const double dx = x - size / 2, dy = y - size / 2;
            sum += k(x, y) = float(std::exp(-(dx * dx + dy * dy) / (2 * sigma * sigma)));
        }
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) k(x, y) = float(k(x, y) / sum);
    return k;
}

double psnr(const pg::Image& a, const pg::Image& ref) {
    double se = 0;
    for (std::size_t i = 0; i < a.size(); ++i) se += std::pow(double(a.data()[i]) - ref.data()[i], 2);
    return 10 * std::log10(double(a.size()) / se);
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw pg::Error("cannot read " + path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

int main(int argc, char** argv) try {
    std::string graph_path = PROXGEN_NODE_GRAPH_DIR "/deblur.json", image_path;
    int size = 256, iters = 300;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--image" && i + 1 < argc) image_path = argv[++i];
        else if (a == "--size" && i + 1 < argc) size = std::atoi(argv[++i]);
        else if (a == "--iters" && i + 1 < argc) iters = std::atoi(argv[++i]);
        else if (a.rfind("--", 0) != 0) graph_path = a;
        else {
            std::fprintf(stderr, "usage: proxgen_node_graph [GRAPH.json] [--image FILE] [--size N] [--iters N]\n");
            return 2;
        }
    }
    using clock = std::chrono::steady_clock;
    const auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    const auto process_start = clock::now();
    const pg::Image clean = image_path.empty() ? synthetic(size) : centre(pg::load_image(image_path), size);

    // The observations: conv(k, x) evaluated at the clean image, plus noise (two noise draws: the
    // second is the "new photo" of the edit below).
    fe::Bindings data;
    data.inputs["kernel"] = gaussian_kernel(9, 2.0);
    data.variables["x"] = clean.sizes();
    const auto observe_start = clock::now();
    const pg::Image blurred = fe::apply_linear(fe::parse_expression("conv(kernel, x)", data), clean);
    auto observe = [&](unsigned seed) {
        pg::Image b = blurred.copy();
        std::mt19937 rng(seed);
        std::normal_distribution<float> noise(0.0f, 0.01f);
        for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] += noise(rng);
        return b;
    };
    const pg::Image first_photo = observe(1), second_photo = observe(2);
    // not part of the host's work: apply_linear JIT-compiles its conv pipeline in every process
    const double observe_seconds = seconds_since(observe_start);

    // The host loads the graph and binds its inputs by name.
    data.variables.clear();
    data.inputs["blurred"] = first_photo;
    fe::LoadedProblem loaded = fe::parse_json(read_file(graph_path), data);
    pg::rt::Problem& problem = loaded.problem;
    std::printf("graph %s: %s\n", graph_path.c_str(), problem.to_string().c_str());
    std::printf("inputs:");
    for (const auto& n : problem.inputs()) std::printf(" %s", n.c_str());
    std::printf("; parameters:");
    for (const auto& n : problem.parameters()) std::printf(" %s = %g", n.c_str(), problem.parameter(n));
    std::printf("; image %dx%d\n", clean.width(), clean.height());

    pg::Options opt;
    opt.max_iters = iters;
    auto report = [&](const char* what, const pg::Result& r, const pg::Image& observation) {
        std::printf("%-34s %4d iterations, JIT %6.3f s, iterations %6.3f s, PSNR %.2f dB (observation %.2f dB), "
                    "pipelines compiled so far: %d\n",
                    what, r.iterations, r.compile_seconds, r.solve_seconds, psnr(r["x"], clean), psnr(observation, clean),
                    pg::jit_stats().pipelines_compiled);
    };
    const pg::Result first = pg::rt::solve(problem, opt);
    report("first solve (compiles):", first, first_photo);
    const int compiled = pg::jit_stats().pipelines_compiled;

    // The slider: a parameter of the graph. Data only: no recompilation, warm start.
    problem.set_parameter("lambda", 2 * problem.parameter("lambda"));
    const pg::Result slider = pg::rt::solve(problem, opt, first);
    report("lambda doubled (warm start):", slider, first_photo);

    // A new photo on the graph's input node: data only again.
    problem.set_input("blurred", second_photo);
    const pg::Result photo = pg::rt::solve(problem, opt, slider);
    report("new input image (warm start):", photo, second_photo);

    const int recompiled = pg::jit_stats().pipelines_compiled - compiled;
    std::printf("JIT once: %.3f s (%d kernels compiled, %d loaded from the disk cache %s); re-solves after "
                "data-only changes: %.3f s and %.3f s; pipelines compiled by the edits: %d\n",
                first.compile_seconds, compiled, pg::jit_stats().disk_loads, pg::jit_disk_cache().c_str(),
                slider.solve_seconds + slider.compile_seconds, photo.solve_seconds + photo.compile_seconds, recompiled);
    std::printf("wall time of the process: %.3f s, of which %.3f s made the synthetic observations "
                "(apply_linear's JIT, not cached on disk)\n",
                seconds_since(process_start), observe_seconds);
    if (recompiled != 0 || slider.compile_seconds != 0 || photo.compile_seconds != 0) {
        std::fprintf(stderr, "node_graph: a data-only edit recompiled %d pipelines\n", recompiled);
        return 1;
    }
    if (!(psnr(photo["x"], clean) > psnr(second_photo, clean))) {
        std::fprintf(stderr, "node_graph: the restored image is not better than the observation\n");
        return 1;
    }
    return 0;
} catch (const pg::Error& e) {
    std::fprintf(stderr, "node_graph: %s\n", e.what());
    return 1;
}
