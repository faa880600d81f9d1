// Batch throughput: n TV deblurring problems of one structure, each with its own blurred image,
// solved one by one (rt::solve in a loop, the plan's kernels cached: what a user writes today)
// against one rt::solve_batch call, in the same run, alternating, `--rounds` times, the best of
// each kept (this VM drifts by up to 1.5×). Default tolerances: every member stops on its own.
// Images per second, and whether the batch's members matched the loop's (iterations, x).
//   proxgen_bench_batch [--cases 64x1000,256x64] [--algorithms pc,admm] [--rounds 1]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <proxgen/proxgen.hpp>

#include "small_deblur.hpp"

namespace pg = proxgen;
namespace rt = pg::rt;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    pg::bench::reuse_the_heap();
    std::string cases = "64x1000,256x64", algorithms = "pc,admm";
    int rounds = 1;
    std::string only;  // "loop" or "batch": time one side alone (for a profiler)
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--cases") cases = argv[i + 1];
        if (k == "--algorithms") algorithms = argv[i + 1];
        if (k == "--rounds") rounds = std::atoi(argv[i + 1]);
        if (k == "--only") only = argv[i + 1];
    }
    std::printf("%-6s %-6s %-16s %12s %12s %7s %s\n", "size", "count", "algorithm", "loop img/s", "batch img/s",
                "ratio", "members equal the loop's");
    for (const std::string& c : pg::bench::comma_list(cases)) {
        const int n = std::atoi(c.c_str()), count = std::atoi(c.substr(c.find('x') + 1).c_str());
        const rt::Problem prob = pg::bench::small_deblur(n);
        std::vector<rt::BatchMember> members(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) members[std::size_t(i)].inputs["b"] = pg::bench::noise_image(n, unsigned(i + 1));
        for (const std::string& name : pg::bench::comma_list(algorithms)) {
            pg::Options opt;
            opt.algorithm = name == "admm" ? pg::Algorithm::admm : pg::Algorithm::pock_chambolle;
            rt::solve(prob, opt);  // compiles
            double best_loop = 1e30, best_batch = 1e30;
            bool equal = true;
            for (int r = 0; r < rounds; ++r) {
                std::vector<pg::Result> loop;
                auto t0 = std::chrono::steady_clock::now();
                if (only != "batch")
                for (const auto& m : members) {
                    rt::Problem one = prob;
                    one.set_input("b", m.inputs.at("b"));
                    loop.push_back(rt::solve(one, opt));
                }
                best_loop = std::min(best_loop, seconds_since(t0));
                t0 = std::chrono::steady_clock::now();
                std::vector<pg::Result> batch;
                if (only != "loop") batch = rt::solve_batch(prob, members, opt);
                best_batch = std::min(best_batch, seconds_since(t0));
                if (!only.empty()) continue;
                for (std::size_t i = 0; i < members.size(); ++i) {
                    const pg::Image &a = loop[i]["x"], &b = batch[i]["x"];
                    equal = equal && loop[i].iterations == batch[i].iterations && a.size() == b.size() &&
                            std::equal(a.data(), a.data() + a.size(), b.data());
                }
            }
            std::printf("%-6d %-6d %-16s %12.1f %12.1f %6.2fx %s\n", n, count, pg::name(opt.algorithm), count / best_loop,
                        count / best_batch, best_loop / best_batch, equal ? "bitwise" : "NO");
            std::fflush(stdout);
        }
    }
}
