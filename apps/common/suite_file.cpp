#include "suite_file.h"

#include "op_catalog.h"

#include <fstream>

namespace tessera {

std::vector<SuiteEntry> parse_suite(std::istream &in, const std::string &source_name) {
    std::vector<SuiteEntry> entries;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        number++;
        size_t hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (line.rfind("model ", 0) == 0) {
            throw SuiteError(source_name + ":" + std::to_string(number) +
                             ": a model suite, not an op suite: run it with tessera-bench --suite models");
        }
        try {
            ops::OpConfig config = ops::parse_op_line(line);
            ops::describe_op(config);  // unknown op/key, malformed or inconsistent values
            entries.push_back({number, config});
        } catch (const ops::OpError &e) {
            throw SuiteError(source_name + ":" + std::to_string(number) + ": " + e.what());
        }
    }
    if (entries.empty()) throw SuiteError(source_name + ": no operators in the suite");
    return entries;
}

std::vector<SuiteEntry> load_suite_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw SuiteError(path + ": cannot open suite file");
    return parse_suite(in, path);
}

std::string builtin_suite_path(const std::string &name) {
    const std::string path = std::string(TESSERA_SUITE_DIR) + "/" + name + ".suite";
    if (!std::ifstream(path)) throw SuiteError("unknown built-in suite '" + name + "' (no " + path + ")");
    return path;
}

}  // namespace tessera
