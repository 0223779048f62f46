#include "attachment.h"

namespace tessera::rules {

void compute_at_row(schedule::ScheduleBuilder &script, const std::string &f, const Attachment &at) {
    if (at.var.empty()) {
        script.compute_root(f);
        return;
    }
    script.compute_at(f, at.consumer, at.var);
    script.store_on_stack(f);
}

}  // namespace tessera::rules
