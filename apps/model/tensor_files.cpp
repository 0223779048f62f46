#include "tensor_files.h"

#include "graph_error.h"
#include "npy.h"
#include "opened_model.h"

#include <algorithm>

namespace tessera::cli {

std::map<std::string, std::string> bind_files(const std::vector<std::string> &args, const std::vector<TensorSpec> &tensors,
                                              const std::string &flag) {
    std::map<std::string, std::string> out;
    for (const std::string &a : args) {
        const size_t eq = a.find('=');
        std::string name = eq == std::string::npos ? std::string() : a.substr(0, eq);
        const std::string path = eq == std::string::npos ? a : a.substr(eq + 1);
        if (name.empty()) {
            if (tensors.size() != 1) {
                throw UsageError(flag + " " + a + ": the model has " + std::to_string(tensors.size()) +
                                 " of them; write " + flag + " name=file");
            }
            name = tensors[0].name;
        }
        const bool known = std::any_of(tensors.begin(), tensors.end(), [&](const TensorSpec &t) { return t.name == name; });
        if (!known) throw UsageError(flag + " " + a + ": the model has no tensor '" + name + "'");
        out[name] = path;
    }
    return out;
}

graph::TensorData read_tensor_file(const std::string &flag, const std::string &path, const TensorSpec &t) {
    graph::TensorData d = graph::read_npy(path);
    if (d.is_float() != t.is_float() || d.shape != t.shape) {
        throw graph::GraphError(flag + " " + path + ": '" + t.name + "' takes " + t.describe() + ", the file holds " +
                                graph::dtype_name(d.dtype) + "[" + graph::shape_string(d.shape) + "]");
    }
    d.dtype = t.dtype;  // any integer file for an integer tensor: its values, as int64
    return d;
}

}  // namespace tessera::cli
