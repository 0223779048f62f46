#include "ptxas_report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace tessera::gpu {

std::vector<PtxasKernel> parse_ptxas_log(const std::string &log) {
    static const std::regex entry(R"(Compiling entry function '(\w+)')");
    static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used(R"(Used (\d+) registers)");
    static const std::regex smem(R"((\d+) bytes smem)");
    std::vector<PtxasKernel> kernels;
    std::istringstream in(log);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, entry)) {
            kernels.push_back(PtxasKernel{m[1].str()});
            continue;
        }
        if (kernels.empty()) continue;
        PtxasKernel &k = kernels.back();
        if (std::regex_search(line, m, frame)) {
            k.stack_bytes = std::stoll(m[1].str());
            k.spill_store_bytes = std::stoll(m[2].str());
            k.spill_load_bytes = std::stoll(m[3].str());
        }
        if (std::regex_search(line, m, used)) k.registers = std::stoi(m[1].str());
        if (std::regex_search(line, m, smem)) k.shared_bytes = std::stoll(m[1].str());
    }
    return kernels;
}

PtxasResult run_ptxas(const std::string &ptxas, const std::string &ptx, const std::string &arch) {
    char path[] = "/tmp/tessera_ptxas_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file for the PTX");
    close(fd);
    {
        std::ofstream out(path);
        out << ptx;
    }
    const std::string command = "'" + ptxas + "' -v -arch=" + arch + " '" + path + "' -o /dev/null 2>&1";
    PtxasResult result;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) {
        std::remove(path);
        throw std::runtime_error("cannot run " + command);
    }
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.log.append(buffer, n);
    const int status = pclose(pipe);
    std::remove(path);
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.kernels = parse_ptxas_log(result.log);
    return result;
}

}  // namespace tessera::gpu
