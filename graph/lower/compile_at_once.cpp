#include "compile_at_once.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace tessera::graph {

std::vector<std::exception_ptr> compile_jit_at_once(const std::vector<Halide::Pipeline> &pipelines,
                                                    const Halide::Target &target, int jobs,
                                                    const std::function<void(size_t, double)> &done) {
    if (jobs <= 0) jobs = int(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::exception_ptr> failed(pipelines.size());
    std::atomic<size_t> next{0};
    std::mutex report;
    auto work = [&] {
        for (size_t k = next++; k < pipelines.size(); k = next++) {
            const auto start = std::chrono::steady_clock::now();
            Halide::Pipeline p = pipelines[k];
            try {
                p.compile_jit(target);
            } catch (...) {
                failed[k] = std::current_exception();
            }
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            const std::lock_guard<std::mutex> lock(report);
            if (done) done(k, ms);
        }
    };
    std::vector<std::thread> workers;
    for (int w = 1; w < std::min<int>(jobs, int(pipelines.size())); w++) workers.emplace_back(work);
    work();
    for (std::thread &w : workers) w.join();
    return failed;
}

std::string failure_message(const std::exception_ptr &failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception &e) {
        return e.what();
    } catch (...) {
        return "the compile failed";
    }
}

}  // namespace tessera::graph
