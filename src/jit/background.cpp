#include "background.hpp"

#include <mutex>
#include <thread>
#include <vector>

namespace proxgen::jit {

namespace {

/// The jobs' threads. A function-local static, constructed at the first job, so destroyed (the
/// threads joined) before the libraries' statics constructed when they were loaded.
class Jobs {
public:
    ~Jobs() {
        std::lock_guard lock(m_);
        for (auto& j : jobs_) j.thread.join();
    }
    std::shared_ptr<const std::atomic<bool>> start(std::function<void()> job) {
        auto done = std::make_shared<std::atomic<bool>>(false);
        std::lock_guard lock(m_);
        // threads whose job ended are joined here: a long-lived process keeps no list of old ones
        std::erase_if(jobs_, [](Job& j) {
            if (!*j.done) return false;
            j.thread.join();
            return true;
        });
        jobs_.push_back({std::thread([job = std::move(job), done] {
                             try {
                                 job();
                             } catch (...) {
                             }
                             *done = true;
                         }),
                         done});
        return done;
    }

private:
    struct Job {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::mutex m_;
    std::vector<Job> jobs_;
};

}  // namespace

std::shared_ptr<const std::atomic<bool>> in_background(std::function<void()> job) {
    static Jobs jobs;
    return jobs.start(std::move(job));
}

}  // namespace proxgen::jit
