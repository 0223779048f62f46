#include "thread_env.h"

#include "reexec.h"

#include <string>

namespace tessera::bench {

void ensure_thread_environment(int threads, const char *omp_wait, char **argv) {
    const std::string n = std::to_string(threads);
    reexec_with_environment(argv,
                            {{"HL_NUM_THREADS", n},
                             {"OMP_NUM_THREADS", n},
                             {"TESSERA_NUM_THREADS", n},
                             // "default": libgomp's own policy (spin a while, then sleep): the variable unset.
                             {"OMP_WAIT_POLICY", std::string(omp_wait) == "default" ? "" : omp_wait},
                             {"OMP_PROC_BIND", "false"}},
                            "TESSERA_BENCH_REEXEC");
}

}  // namespace tessera::bench
