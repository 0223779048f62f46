// Reductions without reuse (sums, maxima, pooling windows, depthwise): vectors
// accumulating in registers, rows streamed, lanes rfactored where the reduction
// runs along the contiguous dim.
#pragma once

#include "attachment.h"
#include "device_spec.h"
#include "schedule_builder.h"
#include "tensor_expr.h"

#include <string>
#include <vector>

namespace tessera::rules {

// A reduction without reuse (sum, max, pooling window, depthwise): vectorised along
// its innermost pure dimension, a block of vectors accumulating in registers with
// the reduction loops just outside. As an output it is also parallelised and the
// loop inside one task is returned (for its producers); otherwise it is computed
// at `at` (or around the consumer's whole rows, when it tiles them) and returns
// where it is computed.
Attachment schedule_reduction(schedule::ScheduleBuilder &script, const std::vector<analysis::TensorExpr> &stages,
                        const hal::DeviceSpec &d, bool is_output, const Attachment &at);

}  // namespace tessera::rules
