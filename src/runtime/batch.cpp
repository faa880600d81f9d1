// rt::solve_batch: many problems of one structure per call. The members share the plan's
// structure, hence every compiled kernel (the JIT cache's key is the structure); small members run
// side by side, one worker thread per core, each running its kernels' parallel loops on its own
// thread (jit::SerialKernels), so a 64² image never pays the thread pool's hand-off per step.
#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "../jit/kernel.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::rt {

namespace {

/// Below this many unknowns per member, members run side by side: measured with
/// proxgen_bench_batch (TV deblurring, PC and ADMM), where one member's rows split over the cores
/// stopped paying for the hand-offs.
constexpr std::size_t kSideBySideBelow = 512 * 512;

/// Every variable's elements together: the planned state's size (one variable's shape, or the flat stack).
std::size_t unknowns(const Plan& planned) {
    std::size_t n = 1;
    for (int s : planned.ir().variable_shape) n *= std::size_t(s);
    return n;
}

Result failed_member(std::size_t i, const std::string& why) {
    Result r;
    r.status = Status::failed;
    r.message = fmt::format("batch member {}: {}", i, why);
    return r;
}

std::vector<Result> solve_members(const Problem& prob, const std::vector<BatchMember>& members, const Options& opt,
                                  const std::vector<Result>* warm) {
    if (warm && warm->size() != members.size())
        fail("solve_batch: {} warm starts for {} members (give one per member, or none)", warm->size(), members.size());
    // The problem itself must plan: its errors are the whole batch's, not a member's.
    const Algorithm planned_for = opt.algorithm == Algorithm::automatic ? Algorithm::pock_chambolle : opt.algorithm;
    const std::size_t size = unknowns(plan(prob, planned_for));

    std::vector<Result> out(members.size());
    std::vector<std::exception_ptr> internal(members.size());
    auto solve_one = [&](std::size_t i) {
        if (opt.stop && opt.stop->load(std::memory_order_relaxed)) {
            out[i].status = Status::interrupted;
            out[i].message = fmt::format("batch member {}: not started: Options::stop was set", i);
            return;
        }
        try {
            Problem member = prob;
            for (const auto& [name, image] : members[i].inputs) member.set_input(name, image);
            for (const auto& [name, value] : members[i].parameters) member.set_parameter(name, value);
            out[i] = warm ? solve(member, opt, (*warm)[i]) : solve(member, opt);
        } catch (const std::logic_error&) {
            internal[i] = std::current_exception();  // a ProxGen bug: thrown after the others
        } catch (const std::bad_alloc&) {
            out[i] = failed_member(i, "out of memory");
        } catch (const std::exception& e) {
            out[i] = failed_member(i, e.what());
        }
    };

    const bool one_at_a_time = opt.verbose || opt.callback || size >= kSideBySideBelow;
    const std::size_t workers =
        one_at_a_time ? 1 : std::min<std::size_t>(members.size(), std::max(1u, std::thread::hardware_concurrency()));
    if (workers <= 1) {
        for (std::size_t i = 0; i < members.size(); ++i) solve_one(i);
    } else {
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            jit::SerialKernels serial;
            for (std::size_t i; (i = next++) < members.size();) solve_one(i);
        };
        std::vector<std::thread> threads;
        for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work);
        work();
        for (auto& t : threads) t.join();
    }
    for (const auto& e : internal)
        if (e) std::rethrow_exception(e);
    return out;
}

}  // namespace

std::vector<Result> solve_batch(const Problem& prob, const std::vector<BatchMember>& members, const Options& opt) {
    return solve_members(prob, members, opt, nullptr);
}

std::vector<Result> solve_batch(const Problem& prob, const std::vector<BatchMember>& members, const Options& opt,
                                const std::vector<Result>& warm) {
    return solve_members(prob, members, opt, &warm);
}

}  // namespace proxgen::rt
