// Which oneDNN kernel runs each op registry row (generators/ops/op_registry.def),
// keyed by the row's id: a separate table because the baseline is an optional
// link unit. A row oneDNN cannot run at all says why instead; an op oneDNN lacks
// inside a supported row (erf, pow) is refused by its factory (Unsupported).
#pragma once

#include "onednn_common.h"
#include "op_config.h"

#include <map>
#include <memory>
#include <string>

namespace tessera::onednn {

struct OnednnRow {
    // Parses the configuration and builds the kernel; throws Unsupported.
    std::unique_ptr<Kernel> (*make)(const ops::OpConfig &config) = nullptr;
    std::string unsupported;  // when make is null: why oneDNN cannot run the row's ops
};

const std::map<std::string, OnednnRow> &onednn_table();

}  // namespace tessera::onednn
