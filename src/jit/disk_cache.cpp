#include "disk_cache.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "call_context.hpp"
#include "compile.hpp"
#include "proxgen/error.hpp"

extern "C" char** environ;
extern const char* const proxgen_source_hash;  // generated at build time (cmake/source_hash.cmake)

namespace proxgen::jit {

namespace fs = std::filesystem;
using namespace Halide;

namespace {

constexpr char kMagic[8] = {'P', 'G', 'K', 'R', 'N', 'L', '0', '1'};

std::uint64_t fnv1a(const char* p, std::size_t n) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
    return h;
}

/// What the trailer of an entry says.
struct Entry {
    std::string key, function;
    std::vector<ArgInfo> args;
};

std::string encode_trailer(const Entry& e, std::uint64_t object_checksum) {
    std::ostringstream s;
    s << "proxgen-kernel 1\n" << e.key.size() << "\n" << e.key << "\n" << e.function << "\n"
      << fmt::format("{:016x}", object_checksum) << "\n" << e.args.size() << "\n";
    for (const auto& a : e.args) s << int(a.kind) << " " << int(a.output) << " " << a.dimensions << " " << a.name << "\n";
    return s.str();
}

/// Splits a whole entry file into the object and its parsed trailer; false if it is not one.
bool decode(const std::string& file, Entry& e, std::size_t& object_size) {
    if (file.size() < 16 || std::memcmp(file.data() + file.size() - 8, kMagic, 8) != 0) return false;
    std::uint64_t trailer_size = 0;
    std::memcpy(&trailer_size, file.data() + file.size() - 16, 8);
    if (trailer_size > file.size() - 16) return false;
    object_size = file.size() - 16 - trailer_size;
    std::istringstream s(file.substr(object_size, trailer_size));
    std::string header, checksum;
    std::size_t key_size = 0, n = 0;
    if (!std::getline(s, header) || header != "proxgen-kernel 1" || !(s >> key_size) || s.get() != '\n') return false;
    if (key_size > trailer_size) return false;
    e.key.resize(key_size);
    if (!s.read(e.key.data(), std::streamsize(key_size)) || s.get() != '\n') return false;
    if (!std::getline(s, e.function) || !std::getline(s, checksum) || !(s >> n) || n > 4096) return false;
    if (checksum != fmt::format("{:016x}", fnv1a(file.data(), object_size))) return false;
    for (std::size_t i = 0; i < n; ++i) {
        ArgInfo a;
        int kind = 0, output = 0;
        if (!(s >> kind >> output >> a.dimensions >> a.name) || kind < 0 || kind > 2) return false;
        a.kind = ArgInfo::Kind(kind);
        a.output = output != 0;
        e.args.push_back(std::move(a));
    }
    return true;
}

bool read_file(const std::string& path, std::string& out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream s;
    s << f.rdbuf();
    out = s.str();
    return bool(f) || f.eof();
}

/// A temporary name beside `path`, unique across threads and processes.
std::string temporary_name(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    return fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
}

/// Runs argv[0] (looked up on PATH) and waits; the process's stderr goes to `log`.
bool run_command(const std::vector<std::string>& argv, const std::string& log, std::string& error) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        error = fmt::format("cannot start {}: {}", argv[0], std::strerror(rc));
        return false;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    std::string text;
    read_file(log, text);
    error = fmt::format("{} failed: {}", fmt::join(argv, " "), text);
    return false;
}

/// Links object files into a shared object with the C compiler driver.
void link_shared(const std::string& compiler, const std::vector<std::string>& objects, const std::string& out,
                 const std::vector<std::string>& libs) {
    std::vector<std::string> argv{compiler, "-shared", "-o", out};
    argv.insert(argv.end(), objects.begin(), objects.end());
    argv.insert(argv.end(), libs.begin(), libs.end());
    std::string error;
    const std::string log = out + ".log";
    const bool ok = run_command(argv, log, error);
    std::remove(log.c_str());
    if (!ok) fail("JIT disk cache: linking a kernel failed: {}", error);
}

/// Appends the trailer to a linked object and publishes it under `path` (one rename).
void publish(const std::string& linked, const std::string& path, const Entry& e) {
    std::string object;
    if (!read_file(linked, object)) fail("JIT disk cache: cannot read {}", linked);
    const std::string trailer = encode_trailer(e, fnv1a(object.data(), object.size()));
    const std::uint64_t size = trailer.size();
    {
        std::ofstream f(linked, std::ios::binary | std::ios::app);
        f.write(trailer.data(), std::streamsize(trailer.size()));
        f.write(reinterpret_cast<const char*>(&size), 8);
        f.write(kMagic, 8);
        if (!f) fail("JIT disk cache: cannot write {}", linked);
    }
    if (std::rename(linked.c_str(), path.c_str()) != 0)
        fail("JIT disk cache: cannot rename {} to {}: {}", linked, path, std::strerror(errno));
}

std::string find_compiler() {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    std::vector<std::string> all;
    while (std::getline(dirs, dir, ':')) all.push_back(dir.empty() ? "." : dir);
    for (const char* cc : {"cc", "gcc", "clang"})
        for (const auto& d : all) {
            const std::string p = d + "/" + cc;
            if (::access(p.c_str(), X_OK) == 0) return p;
        }
    return {};
}

std::string default_directory() {
    if (const char* d = std::getenv("PROXGEN_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/proxgen";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/proxgen";
    return {};
}

/// The kernel pack's kernels (src/pack/kernel_pack.cpp): $PROXGEN_KERNEL_PACK ("off" or empty:
/// none); else the first that exists of the installed layout beside the running program
/// (<prefix>/bin/../share/proxgen/kernel_pack: an installed `proxgen`, wherever the prefix was
/// moved), the pack built with the library in its build tree, and the install prefix's.
std::string pack_directory() {
    constexpr const char* kernels = "/kernels-v1";
    if (const char* d = std::getenv("PROXGEN_KERNEL_PACK")) {
        const std::string base = d;
        return base.empty() || base == "off" ? std::string() : base + kernels;
    }
    std::vector<std::string> candidates;
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back((exe.parent_path().parent_path() / "share/proxgen/kernel_pack").string());
#ifdef PROXGEN_DEFAULT_KERNEL_PACK
    candidates.push_back(PROXGEN_DEFAULT_KERNEL_PACK);
#endif
#ifdef PROXGEN_INSTALLED_KERNEL_PACK
    candidates.push_back(PROXGEN_INSTALLED_KERNEL_PACK);
#endif
    for (const std::string& base : candidates)
        if (std::filesystem::is_directory(base + kernels, ec)) return base + kernels;
    return {};
}

std::string& off_reason() {
    static std::string r;
    return r;
}

/// halide_default_do_par_for of the loaded runtime: its thread pool, for calls not made serially.
halide_do_par_for_t& pool_par_for() {
    static halide_do_par_for_t f = nullptr;
    return f;
}

int dispatch_par_for(void* user_context, halide_task_t task, int min, int size, uint8_t* closure) {
    const auto* ctx = static_cast<const CallContext*>(static_cast<Halide::JITUserContext*>(user_context));
    if (ctx && ctx->serial) return serial_par_for(user_context, task, min, size, closure);
    count_pooled_loop();
    return pool_par_for()(user_context, task, min, size, closure);
}
}  // namespace

std::string cache_version(const Target& t) {
    return fmt::format("proxgen-src-{}|halide-{}|{}", proxgen_source_hash, PROXGEN_HALIDE_VERSION, t.to_string());
}

DiskCache::DiskCache(std::string dir, std::string compiler, Target target)
    : dir_(std::move(dir)), compiler_(std::move(compiler)), target_(std::move(target)), pack_(pack_directory()) {
    if (pack_ == dir_) pack_.clear();  // (the pack being built: one directory)
}

const std::string& DiskCache::why_off() { return off_reason(); }

DiskCache* DiskCache::instance() {
    static DiskCache* cache = []() -> DiskCache* {
        const std::string base = default_directory();
        if (base.empty() || base == "off") {
            off_reason() = base.empty() ? "no cache directory (set PROXGEN_CACHE_DIR or HOME)" : "PROXGEN_CACHE_DIR=off";
            return nullptr;
        }
        // a Halide runtime already in the process's global scope would take over our kernels' calls
        if (::dlsym(RTLD_DEFAULT, "halide_do_par_for")) {
            off_reason() = "the process already contains a Halide runtime";
            return nullptr;
        }
        std::string compiler = find_compiler();
        if (compiler.empty()) {
            off_reason() = "no C compiler driver (cc, gcc, clang) on PATH to link kernels";
            return nullptr;
        }
        std::error_code ec;
        const std::string dir = base + "/kernels-v1";
        fs::create_directories(dir, ec);
        if (ec || ::access(dir.c_str(), W_OK) != 0) {
            off_reason() = fmt::format("cannot write to {}", dir);
            return nullptr;
        }
        const Target t = host_target().with_feature(Target::UserContext).with_feature(Target::NoRuntime);
        auto* c = new DiskCache(dir, compiler, t);
        try {
            c->load_runtime();
        } catch (const std::exception& e) {
            off_reason() = e.what();
            delete c;
            return nullptr;
        }
        return c;
    }();
    return cache;
}

std::string DiskCache::path_of(const std::string& key, const std::string& dir) const {
    return fmt::format("{}/{:016x}.so", dir, fnv1a(key.data(), key.size()));
}

void DiskCache::load_runtime() {
    const Target rt = host_target().without_feature(Target::NoRuntime);
    const std::string key = "runtime|" + cache_version(rt);
    auto runtime_path = [&](const std::string& dir) {
        return fmt::format("{}/runtime-{:016x}.so", dir, fnv1a(key.data(), key.size()));
    };
    const std::string path = runtime_path(dir_);
    // owned: an entry of the user's cache, deleted when it does not load (the pack is read-only)
    auto try_load_from = [&](const std::string& from, bool owned) -> bool {
        std::string file;
        Entry e;
        std::size_t n = 0;
        if (!read_file(from, file)) return false;
        if (!decode(file, e, n) || e.key != key) {
            if (owned) std::remove(from.c_str());
            return false;
        }
        runtime_ = ::dlopen(from.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!runtime_ && owned) std::remove(from.c_str());
        return runtime_ != nullptr;
    };
    auto try_load = [&] { return try_load_from(path, true); };
    if (!try_load() && !(!pack_.empty() && try_load_from(runtime_path(pack_), false))) {
        const std::string tmp = temporary_name(path);
        {
            auto lock = compiler_lock();
            compile_standalone_runtime(tmp + ".o", rt);
        }
        link_shared(compiler_, {tmp + ".o"}, tmp, {"-lpthread", "-ldl", "-lm"});
        std::remove((tmp + ".o").c_str());
        publish(tmp, path, Entry{key, "", {}});
        if (!try_load()) fail("JIT disk cache: cannot load the Halide runtime {}: {}", path, ::dlerror());
    }
    using SetHandler = halide_error_handler_t (*)(halide_error_handler_t);
    auto set_handler = reinterpret_cast<SetHandler>(::dlsym(runtime_, "halide_set_error_handler"));
    if (!set_handler) fail("JIT disk cache: the Halide runtime {} has no halide_set_error_handler", path);
    set_handler(&record_error);
    // kernels loaded from shared objects reach their parallel loops through this runtime: serial
    // for a call made under SerialKernels, the runtime's thread pool otherwise
    using SetParFor = halide_do_par_for_t (*)(halide_do_par_for_t);
    auto set_par_for = reinterpret_cast<SetParFor>(::dlsym(runtime_, "halide_set_custom_do_par_for"));
    pool_par_for() = reinterpret_cast<halide_do_par_for_t>(::dlsym(runtime_, "halide_default_do_par_for"));
    if (!set_par_for || !pool_par_for()) fail("JIT disk cache: the Halide runtime {} has no halide_set_custom_do_par_for", path);
    set_par_for(&dispatch_par_for);
}

KernelPtr DiskCache::load(const std::string& key, const std::string& name) {
    if (KernelPtr k = load_from(path_of(key, dir_), key, name, true)) return k;
    return pack_.empty() ? nullptr : load_from(path_of(key, pack_), key, name, false);
}

KernelPtr DiskCache::load_from(const std::string& path, const std::string& key, const std::string& name, bool owned) {
    std::string file;
    if (!read_file(path, file)) return nullptr;
    Entry e;
    std::size_t object_size = 0;
    if (!decode(file, e, object_size)) {  // truncated, overwritten or not ours: rebuild
        if (owned) std::remove(path.c_str());
        return nullptr;
    }
    if (e.key != key) return nullptr;  // another key with the same hash: replaced by store()
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* fn = handle ? ::dlsym(handle, (e.function + "_argv").c_str()) : nullptr;
    if (!fn) {
        if (handle) ::dlclose(handle);
        if (owned) std::remove(path.c_str());
        return nullptr;
    }
    std::shared_ptr<const void> keep(handle, [](const void* h) { ::dlclose(const_cast<void*>(h)); });
    return std::make_shared<Kernel>(name, reinterpret_cast<Kernel::ArgvFunction>(fn), std::move(e.args), keep);
}

std::shared_ptr<void> DiskCache::claim(const std::string& key) {
    const std::string path = path_of(key, dir_) + ".lock";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return nullptr;
    int rc;
    while ((rc = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
        ::close(fd);
        return nullptr;
    }
    return std::shared_ptr<int>(new int(fd), [](int* f) {
        ::close(*f);  // releases the lock
        delete f;
    });
}

KernelPtr DiskCache::store(const std::string& key, const std::string& name, const Module& m, const std::string& fn,
                           const std::vector<ArgInfo>& args) {
    const std::string path = path_of(key, dir_);
    const std::string tmp = temporary_name(path);
    m.compile({{OutputFileType::object, tmp + ".o"}});
    link_shared(compiler_, {tmp + ".o"}, tmp, {});
    std::remove((tmp + ".o").c_str());
    publish(tmp, path, Entry{key, fn, args});
    KernelPtr k = load_from(path, key, name, true);
    if (!k) fail("JIT disk cache: the kernel just written to {} does not load: {}", path, ::dlerror());
    return k;
}

void parallel_for(int tasks, const std::function<void(int)>& body) {
    // DiskCache::instance() loads the runtime (once) whose pool this is
    const halide_do_par_for_t pool =
        tasks < 2 || SerialKernels::active() || DiskCache::instance() == nullptr ? nullptr : pool_par_for();
    if (pool == nullptr) {
        for (int i = 0; i < tasks; ++i) body(i);
        return;
    }
    auto task = [](void*, int i, uint8_t* closure) {
        (*reinterpret_cast<const std::function<void(int)>*>(closure))(i);
        return 0;
    };
    pool(nullptr, task, 0, tasks, reinterpret_cast<uint8_t*>(const_cast<std::function<void(int)>*>(&body)));
}

}  // namespace proxgen::jit
