// A process that solves a small problem and prints what the JIT did:
//     compiled=<kernels compiled> loaded=<kernels loaded from the disk cache> result=<hash of x>
// to stdout, or to FILE with `cache_probe FILE`; `cache_probe --corrupt DIR` damages every kernel
// in the cache directory DIR instead (half truncated, half with bytes overwritten).
// tests/jit_cache/check_disk_cache.cmake runs it several times against one PROXGEN_CACHE_DIR.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <proxgen/proxgen.hpp>

namespace pg = proxgen;

namespace {
int corrupt(const std::string& dir) {
    int i = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() != ".so" || name.rfind("runtime-", 0) == 0) continue;
        const auto size = std::filesystem::file_size(e.path());
        if (i++ % 2 == 0) {
            std::filesystem::resize_file(e.path(), size / 2);
        } else {
            std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(std::streamoff(size / 2));
            const char junk[32] = "not an ELF object, not a kernel";
            f.write(junk, sizeof junk);
        }
    }
    std::printf("corrupted %d entries\n", i);
    return i > 0 ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--corrupt") return corrupt(argv[2]);
    try {
        pg::Image b({40, 28});
        for (int y = 0; y < 28; ++y)
            for (int x = 0; x < 40; ++x) b(x, y) = float((x * 7 + y * 13) % 17) / 17.0f;
        auto x = pg::variable(40, 28);
        auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
        std::uint64_t h = 1469598103934665603ull;
        // one algorithm: the test compiles everything six times (first run, after corruption, four
        // concurrent writers), and a second algorithm would only double that
        for (pg::Algorithm a : {pg::Algorithm::pock_chambolle}) {
            pg::Options opt;
            opt.algorithm = a;
            opt.max_iters = 30;
            opt.eps_abs = opt.eps_rel = 0;
            const pg::Image r = pg::solve(prob, opt)[x];
            const auto* bytes = reinterpret_cast<const unsigned char*>(r.data());
            for (std::size_t i = 0; i < r.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
        }
        const pg::JitStats s = pg::jit_stats();
        char line[128];
        std::snprintf(line, sizeof line, "compiled=%d loaded=%d result=%016llx\n", s.pipelines_compiled, s.disk_loads,
                      static_cast<unsigned long long>(h));
        if (argc == 2) std::ofstream(argv[1]) << line;
        else std::fputs(line, stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cache_probe: %s\n", e.what());
        return 1;
    }
}
