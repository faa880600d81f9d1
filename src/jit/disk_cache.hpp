// Internal: the persistent cache of compiled kernels, so that a process solving a problem whose
// structure an earlier process (on this machine, same ProxGen sources, same Halide, same target)
// already compiled loads shared objects instead of compiling.
//
// Where: $PROXGEN_CACHE_DIR, else $XDG_CACHE_HOME/proxgen, else ~/.cache/proxgen;
// PROXGEN_CACHE_DIR=off disables it (kernels are then JIT-compiled in memory, per process).
// It also needs a C compiler driver on PATH to link shared objects (cc, gcc or clang): without
// one the cache is off. Layout: <dir>/kernels-v1/<64-bit hash of the key>.so, one file per
// kernel: the ELF shared object followed by a trailer (the full key, the entry point, the
// argument table and a checksum of the object), so an entry is published by one atomic rename.
// Entries whose trailer, key or checksum does not match, or that fail to load, are deleted and
// rebuilt; a different key that hashes to the same name is treated as a miss and replaced.
// <hash>.so.lock (empty) is the claim on compiling that kernel: processes starting the same new
// structure at once compile each kernel once, the others waiting for it (DiskCache::claim).
// The Halide runtime the kernels call is itself one cached shared object, loaded once.
//
// The kernel pack: kernels built with the library (src/pack/kernel_pack.cpp: the per-card tier's
// kernels of the common cards, and the runtime) in a directory of the same layout, read after the
// user's cache and never written: $PROXGEN_KERNEL_PACK, else the build's <build>/kernel_pack
// (PROXGEN_KERNEL_PACK=off: none). Its keys carry the same source hash, Halide version and target
// as every key, so a pack from other sources or for another machine is simply never hit.
#pragma once

#include <memory>
#include <string>

#include <Halide.h>

#include "kernel.hpp"

namespace proxgen::jit {

class DiskCache {
public:
    /// The process's cache, or nullptr when it is off (see above; the reason is in why_off()).
    static DiskCache* instance();
    static const std::string& why_off();

    /// The kernel stored under `key`, or nullptr (miss, or a corrupt entry, which is deleted).
    KernelPtr load(const std::string& key, const std::string& name);
    /// Compiles the module's function `fn` (taking a user context, without its own runtime) to
    /// a shared object, publishes it under `key` and loads it. Throws on a compile/link failure.
    KernelPtr store(const std::string& key, const std::string& name, const Halide::Module& m, const std::string& fn,
                    const std::vector<ArgInfo>& args);
    /// An exclusive claim on compiling `key` among every process and thread using this cache
    /// directory (an flock on <hash>.so.lock beside the entry): a process that would compile a kernel
    /// another one is compiling waits here, then finds it stored. Held until the returned handle is
    /// released (or the process ends); an empty handle where the directory cannot lock (its
    /// processes then may compile the same kernel at once, as before).
    std::shared_ptr<void> claim(const std::string& key);
    /// The target kernels for this cache are compiled for (host, user_context, no_runtime).
    const Halide::Target& target() const { return target_; }
    const std::string& directory() const { return dir_; }

    DiskCache(std::string dir, std::string compiler, Halide::Target target);

private:
    void load_runtime();
    std::string path_of(const std::string& key, const std::string& dir) const;
    /// The kernel in the entry at `path`; owned: the user's cache (a bad entry is deleted).
    KernelPtr load_from(const std::string& path, const std::string& key, const std::string& name, bool owned);
    std::string dir_, compiler_;
    Halide::Target target_;
    std::string pack_;  ///< the kernel pack's directory, read after dir_ ("": none)
    void* runtime_ = nullptr;
};

/// The version part of every key: ProxGen's source hash, Halide's version and the target.
std::string cache_version(const Halide::Target& t);

}  // namespace proxgen::jit
