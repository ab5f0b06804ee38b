// Tests of graph partitioning through the C API (MXBuildSubgraphByOpNames, MXOptimizeForBackend):
// a group that would close a cycle through an outside node is split, inputs keep their order,
// and bad backend names fail naming them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mxnet/c_api.h"

namespace {

// data -> exp -> cos -> add(cos, exp): exp and add may not share a node (cos sits between).
const char* kGraph = R"({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "exp", "name": "e", "inputs": [[0, 0, 0]]},
    {"op": "cos", "name": "c", "inputs": [[1, 0, 0]]},
    {"op": "elemwise_add", "name": "add", "inputs": [[2, 0, 0], [1, 0, 0]]}
  ],
  "arg_nodes": [0], "heads": [[3, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

SymbolHandle Load(const char* json) {
  SymbolHandle h = nullptr;
  EXPECT_EQ(MXSymbolCreateFromJSON(json, &h), 0) << MXGetLastError();
  return h;
}

std::string Json(SymbolHandle s) {
  const char* out = nullptr;
  EXPECT_EQ(MXSymbolSaveToJSON(s, &out), 0) << MXGetLastError();
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

std::vector<std::string> Arguments(SymbolHandle s) {
  uint32_t n = 0;
  const char** names = nullptr;
  EXPECT_EQ(MXSymbolListArguments(s, &n, &names), 0);
  return std::vector<std::string>(names, names + n);
}

}  // namespace

TEST(SubgraphCApi, group_closing_a_cycle_through_an_outside_node_is_split) {
  SymbolHandle sym = Load(kGraph);
  const char* ops[] = {"exp", "elemwise_add"};
  SymbolHandle part = nullptr;
  ASSERT_EQ(MXBuildSubgraphByOpNames(sym, "default", 2, ops, &part), 0) << MXGetLastError();
  const std::string json = Json(part);
  EXPECT_EQ(Count(json, "\"op\": \"_CachedOp\""), 2u) << json;
  EXPECT_EQ(Count(json, "\"op\": \"cos\""), 1u);
  EXPECT_EQ(Arguments(part), Arguments(sym));
  MXSymbolFree(part);
  MXSymbolFree(sym);
}

TEST(SubgraphCApi, no_op_names_give_an_unchanged_copy) {
  SymbolHandle sym = Load(kGraph);
  SymbolHandle part = nullptr;
  ASSERT_EQ(MXBuildSubgraphByOpNames(sym, "default", 0, nullptr, &part), 0) << MXGetLastError();
  EXPECT_EQ(Json(part), Json(sym));
  MXSymbolFree(part);
  MXSymbolFree(sym);
}

TEST(SubgraphCApi, unknown_backend_fails_naming_it) {
  SymbolHandle sym = Load(kGraph);
  SymbolHandle part = nullptr;
  int new_args = -1, new_aux = -1;
  EXPECT_EQ(MXOptimizeForBackend(sym, "NoSuchBackend", 1, &part, 0, nullptr, 0, nullptr, 0,
                                 nullptr, nullptr, 0, nullptr, nullptr, nullptr, 0, nullptr,
                                 nullptr, 0, nullptr, nullptr, false, &new_args, nullptr, nullptr,
                                 &new_aux, nullptr, nullptr),
            -1);
  const std::string err = MXGetLastError();
  EXPECT_NE(err.find("NoSuchBackend"), std::string::npos) << err;
  EXPECT_NE(err.find("ONEDNN"), std::string::npos) << err;  // the registered ones are listed
  EXPECT_EQ(MXSetSubgraphPropertyOpNamesV2("NoSuchBackend", 0, nullptr), -1);
  MXSymbolFree(sym);
}

TEST(SubgraphCApi, optimize_for_reports_no_new_parameters) {
  SymbolHandle sym = Load(kGraph);
  SymbolHandle part = nullptr;
  int new_args = -1, new_aux = -1;
  const char* keys[] = {"dedup_subgraph"};
  const char* vals[] = {"True"};
  ASSERT_EQ(MXOptimizeForBackend(sym, "ONEDNN", 1, &part, 0, nullptr, 0, nullptr, 1, keys, vals,
                                 0, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr,
                                 nullptr, false, &new_args, nullptr, nullptr, &new_aux, nullptr,
                                 nullptr),
            0)
      << MXGetLastError();
  EXPECT_EQ(new_args, 0);
  EXPECT_EQ(new_aux, 0);
  EXPECT_EQ(Json(part), Json(sym));  // nothing the ONEDNN backend fuses
  MXSymbolFree(part);
  MXSymbolFree(sym);
}
