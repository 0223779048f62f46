// The op registry is complete: every catalogued op has a row, and every row a
// Halide builder, a plain C++ reference and a correctness case, so an op added
// without one of them fails here rather than at its first use.
#include "op_builder.h"
#include "op_cases.h"
#include "op_registry.h"
#include "reference.h"

#include <gtest/gtest.h>

#include <set>

namespace tessera {
namespace {

TEST(OpRegistry, RowsAreTheCatalogueInOrder) {
    std::vector<std::string> from_rows;
    std::set<std::string> ids;
    for (const ops::OpRow &row : ops::op_registry()) {
        EXPECT_TRUE(ids.insert(row.id).second) << "row '" << row.id << "' listed twice";
        EXPECT_FALSE(row.ops.empty()) << row.id;
        EXPECT_NE(row.signature, nullptr) << row.id;
        for (const ops::OpInfo &op : row.ops) from_rows.push_back(op.name);
    }
    std::vector<std::string> catalogue;
    for (const ops::OpInfo &op : ops::op_catalog()) catalogue.push_back(op.name);
    EXPECT_EQ(from_rows, catalogue);
    EXPECT_EQ(std::set<std::string>(catalogue.begin(), catalogue.end()).size(), catalogue.size())
        << "an op name is used twice";
}

TEST(OpRegistry, EveryOpHasABuilderAndAReference) {
    for (const ops::OpInfo &op : ops::op_catalog()) {
        const std::string &id = ops::op_row(op.name).id;
        auto builder = ops::op_builders().find(id);
        EXPECT_TRUE(builder != ops::op_builders().end() && builder->second) << op.name << ": no builder";
        auto ref = reference_table().find(id);
        EXPECT_TRUE(ref != reference_table().end() && ref->second) << op.name << ": no reference (row " << id << ")";
    }
}

TEST(OpRegistry, TablesHaveNoStrayRows) {
    std::set<std::string> ids;
    for (const ops::OpRow &row : ops::op_registry()) ids.insert(row.id);
    for (const auto &entry : ops::op_builders()) EXPECT_TRUE(ids.count(entry.first)) << entry.first;
    for (const auto &entry : reference_table()) EXPECT_TRUE(ids.count(entry.first)) << entry.first;
}

TEST(OpRegistry, EveryOpHasACorrectnessCase) {
    std::set<std::string> covered;
    for (const std::string &line : test::op_cases()) covered.insert(ops::parse_op_line(line).op);
    for (const ops::OpInfo &op : ops::op_catalog()) {
        EXPECT_TRUE(covered.count(op.name)) << op.name << ": no case in op_cases.h";
    }
}

TEST(OpRegistry, UnknownOpListsTheKnownOnes) {
    try {
        ops::op_row("convolve");
        FAIL() << "no error";
    } catch (const ops::OpError &e) {
        EXPECT_NE(std::string(e.what()).find("unknown op 'convolve' (known: matmul batch_matmul"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace tessera
