// The oneDNN baseline's table covers the op registry: every catalogued op's row
// has a kernel factory or says why oneDNN cannot run it, and no entry names a row
// that does not exist.
#include "onednn_op.h"
#include "onednn_table.h"
#include "op_registry.h"

#include <gtest/gtest.h>

#include <set>

namespace tessera {
namespace {

TEST(OnednnTable, EveryOpHasAKernelOrAReason) {
    for (const ops::OpInfo &op : ops::op_catalog()) {
        const std::string &id = ops::op_row(op.name).id;
        auto it = onednn::onednn_table().find(id);
        ASSERT_TRUE(it != onednn::onednn_table().end()) << op.name << ": no oneDNN entry for row " << id;
        EXPECT_TRUE(it->second.make || !it->second.unsupported.empty())
            << op.name << ": row " << id << " has neither a kernel nor an unsupported reason";
    }
}

TEST(OnednnTable, NoStrayRows) {
    std::set<std::string> ids;
    for (const ops::OpRow &row : ops::op_registry()) ids.insert(row.id);
    for (const auto &entry : onednn::onednn_table()) EXPECT_TRUE(ids.count(entry.first)) << entry.first;
}

}  // namespace
}  // namespace tessera
