// Work that outlives the call that started it: the fused tier's kernels compiled while a solve
// iterates per card (Tier::automatic), which the next solve of that structure then finds in the
// kernel cache even when this one ended first.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

namespace proxgen::jit {

/// Runs job on a thread of its own; the returned flag is set when it has ended. An exception the
/// job throws is dropped (the caller that needs the job's result does the work again in the
/// foreground, and meets the error there). The process waits for jobs still running when it exits:
/// a compilation cannot be cancelled, and Halide's state must outlive it.
std::shared_ptr<const std::atomic<bool>> in_background(std::function<void()> job);

}  // namespace proxgen::jit
