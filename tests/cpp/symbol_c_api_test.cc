// Tests of the symbol C API (MXSymbol*) as a C program uses it: build an MLP with BatchNorm,
// list its names and attributes, save and reload JSON, compose, copy, and bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <map>
#include <string>
#include <vector>

#include "mxnet/c_api.h"

namespace {

AtomicSymbolCreator FindCreator(const char* wanted) {
  uint32_t n = 0;
  AtomicSymbolCreator* creators = nullptr;
  EXPECT_EQ(MXSymbolListAtomicSymbolCreators(&n, &creators), 0);
  for (uint32_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    EXPECT_EQ(MXSymbolGetAtomicSymbolName(creators[i], &name), 0);
    if (std::strcmp(name, wanted) == 0) return creators[i];
  }
  return nullptr;
}

std::vector<std::string> Names(int (*fn)(SymbolHandle, uint32_t*, const char***), SymbolHandle s) {
  uint32_t n = 0;
  const char** arr = nullptr;
  EXPECT_EQ(fn(s, &n, &arr), 0);
  return std::vector<std::string>(arr, arr + n);
}

SymbolHandle Var(const char* name) {
  SymbolHandle h = nullptr;
  EXPECT_EQ(MXSymbolCreateVariable(name, &h), 0);
  return h;
}

SymbolHandle Op(const char* op, std::vector<const char*> keys, std::vector<const char*> vals) {
  SymbolHandle h = nullptr;
  EXPECT_EQ(MXSymbolCreateAtomicSymbol(FindCreator(op), static_cast<uint32_t>(keys.size()),
                                       keys.data(), vals.data(), &h),
            0)
      << MXGetLastError();
  return h;
}

// data -> FullyConnected(fc1) -> BatchNorm(bn) ; inputs not given become fc1_weight ...
SymbolHandle BuildNet() {
  SymbolHandle data = Var("data");
  SymbolHandle fc = Op("FullyConnected", {"num_hidden", "lr_mult"}, {"4", "0.5"});
  const char* fc_keys[] = {"data"};
  EXPECT_EQ(MXSymbolCompose(fc, "fc1", 1, fc_keys, &data), 0) << MXGetLastError();
  SymbolHandle bn = Op("BatchNorm", {"fix_gamma"}, {"False"});
  EXPECT_EQ(MXSymbolCompose(bn, "bn", 1, nullptr, &fc), 0) << MXGetLastError();
  MXSymbolFree(data);
  MXSymbolFree(fc);
  return bn;
}

TEST(SymbolCApi, compose_names_missing_inputs_after_the_node) {
  SymbolHandle net = BuildNet();
  EXPECT_EQ(Names(MXSymbolListArguments, net),
            (std::vector<std::string>{"data", "fc1_weight", "fc1_bias", "bn_gamma", "bn_beta"}));
  EXPECT_EQ(Names(MXSymbolListAuxiliaryStates, net),
            (std::vector<std::string>{"bn_moving_mean", "bn_moving_var"}));
  std::vector<std::string> outs = Names(MXSymbolListOutputs, net);
  ASSERT_FALSE(outs.empty());
  EXPECT_EQ(outs[0], "bn_output");
  const char* name = nullptr;
  int ok = 0;
  ASSERT_EQ(MXSymbolGetName(net, &name, &ok), 0);
  EXPECT_EQ(ok, 1);
  EXPECT_STREQ(name, "bn");
  MXSymbolFree(net);
}

TEST(SymbolCApi, hidden_keys_are_stored_prefixed_and_listed_both_ways) {
  SymbolHandle net = BuildNet();
  SymbolHandle internals = nullptr;
  ASSERT_EQ(MXSymbolGetInternals(net, &internals), 0);
  std::vector<std::string> outs = Names(MXSymbolListOutputs, internals);
  size_t fc_index = 0;
  for (; fc_index < outs.size() && outs[fc_index] != "fc1_output"; ++fc_index) {}
  ASSERT_LT(fc_index, outs.size());
  SymbolHandle fc = nullptr;
  ASSERT_EQ(MXSymbolGetOutput(internals, static_cast<uint32_t>(fc_index), &fc), 0);
  const char* value = nullptr;
  int ok = 0;
  ASSERT_EQ(MXSymbolGetAttr(fc, "lr_mult", &value, &ok), 0);
  ASSERT_EQ(ok, 1);
  EXPECT_STREQ(value, "0.5");
  ASSERT_EQ(MXSymbolGetAttr(fc, "__lr_mult__", &value, &ok), 0);
  EXPECT_EQ(ok, 1);
  ASSERT_EQ(MXSymbolGetAttr(fc, "no_such_key", &value, &ok), 0);
  EXPECT_EQ(ok, 0);

  uint32_t n = 0;
  const char** kv = nullptr;
  ASSERT_EQ(MXSymbolListAttrShallow(fc, &n, &kv), 0);
  std::map<std::string, std::string> shallow;
  for (uint32_t i = 0; i < n; ++i) shallow[kv[2 * i]] = kv[2 * i + 1];
  EXPECT_EQ(shallow["__lr_mult__"], "0.5");
  EXPECT_EQ(shallow["lr_mult"], "0.5");
  EXPECT_EQ(shallow["num_hidden"], "4");

  ASSERT_EQ(MXSymbolListAttr(net, &n, &kv), 0);
  std::map<std::string, std::string> deep;
  for (uint32_t i = 0; i < n; ++i) deep[kv[2 * i]] = kv[2 * i + 1];
  EXPECT_EQ(deep["fc1_weight$lr_mult"], "0.5");  // created inputs carry the node's attrs
  EXPECT_EQ(deep["bn_moving_mean$__init__"], "[\"zero\", {}]");

  ASSERT_EQ(MXSymbolSetAttr(fc, "wd_mult", "2"), 0);
  ASSERT_EQ(MXSymbolGetAttr(fc, "__wd_mult__", &value, &ok), 0);
  EXPECT_EQ(ok, 1);
  EXPECT_STREQ(value, "2");
  EXPECT_EQ(MXSymbolSetAttr(fc, "weight_lr_mult", "2"), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("deprecated"), std::string::npos);
  MXSymbolFree(fc);
  MXSymbolFree(internals);
  MXSymbolFree(net);
}

TEST(SymbolCApi, json_round_trip_keeps_the_text) {
  SymbolHandle net = BuildNet();
  const char* json = nullptr;
  ASSERT_EQ(MXSymbolSaveToJSON(net, &json), 0);
  std::string first = json;
  EXPECT_NE(first.find("\"mxnet_version\": [\"int\", 10901]"), std::string::npos);
  EXPECT_NE(first.find("[6, 0, 1]"), std::string::npos) << first;  // moving mean, version 1
  SymbolHandle back = nullptr;
  ASSERT_EQ(MXSymbolCreateFromJSON(first.c_str(), &back), 0) << MXGetLastError();
  ASSERT_EQ(MXSymbolSaveToJSON(back, &json), 0);
  EXPECT_EQ(first, std::string(json));

  char path[] = "/tmp/mxnet_symbol_c_api_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(MXSymbolSaveToFile(net, path), 0);
  SymbolHandle from_file = nullptr;
  ASSERT_EQ(MXSymbolCreateFromFile(path, &from_file), 0) << MXGetLastError();
  ASSERT_EQ(MXSymbolSaveToJSON(from_file, &json), 0);
  EXPECT_EQ(first, std::string(json));
  std::remove(path);
  MXSymbolFree(from_file);
  MXSymbolFree(back);
  MXSymbolFree(net);
}

TEST(SymbolCApi, group_children_copy_and_print) {
  SymbolHandle a = Var("a");
  SymbolHandle b = Var("b");
  SymbolHandle parts[] = {a, b};
  SymbolHandle group = nullptr;
  ASSERT_EQ(MXSymbolCreateGroup(2, parts, &group), 0);
  uint32_t n = 0;
  ASSERT_EQ(MXSymbolGetNumOutputs(group, &n), 0);
  EXPECT_EQ(n, 2u);
  const char* name = nullptr;
  int ok = 1;
  ASSERT_EQ(MXSymbolGetName(group, &name, &ok), 0);
  EXPECT_EQ(ok, 0);

  SymbolHandle plus = Op("elemwise_add", {}, {});
  ASSERT_EQ(MXSymbolCompose(plus, "sum", 2, nullptr, parts), 0) << MXGetLastError();
  SymbolHandle children = nullptr;
  ASSERT_EQ(MXSymbolGetChildren(plus, &children), 0);
  EXPECT_EQ(Names(MXSymbolListOutputs, children), (std::vector<std::string>{"a", "b"}));
  SymbolHandle copy = nullptr;
  ASSERT_EQ(MXSymbolCopy(plus, &copy), 0);
  ASSERT_EQ(MXSymbolSetAttr(copy, "name", "renamed"), 0);
  ASSERT_EQ(MXSymbolGetName(plus, &name, &ok), 0);
  EXPECT_STREQ(name, "sum");  // the copy has its own nodes
  const char* text = nullptr;
  ASSERT_EQ(MXSymbolPrint(plus, &text), 0);
  EXPECT_NE(std::string(text).find("Op:elemwise_add, Name=sum"), std::string::npos) << text;
  for (SymbolHandle h : {a, b, group, plus, children, copy}) MXSymbolFree(h);
}

TEST(SymbolCApi, bad_input_fails_with_a_message) {
  SymbolHandle h = nullptr;
  EXPECT_EQ(MXSymbolCreateFromJSON("{\"nodes\": [{\"op\": \"NoSuchOp\", \"name\": \"n0\", "
                                   "\"inputs\": []}], \"arg_nodes\": [], \"heads\": [[0, 0, 0]]}",
                                   &h),
            -1);
  std::string err = MXGetLastError();
  EXPECT_NE(err.find("n0"), std::string::npos) << err;
  EXPECT_NE(err.find("NoSuchOp"), std::string::npos) << err;
  EXPECT_EQ(MXSymbolCreateFromJSON("{\"nodes\": [", &h), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("malformed"), std::string::npos);

  const char* keys[] = {"num_hidden"};
  const char* vals[] = {"many"};
  EXPECT_EQ(MXSymbolCreateAtomicSymbol(FindCreator("FullyConnected"), 1, keys, vals, &h), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("num_hidden"), std::string::npos);

  SymbolHandle fc = Op("FullyConnected", {"num_hidden"}, {"3"});
  SymbolHandle x = Var("x");
  const char* bad_keys[] = {"no_such_input"};
  EXPECT_EQ(MXSymbolCompose(fc, "fc", 1, bad_keys, &x), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("no_such_input"), std::string::npos);
  EXPECT_EQ(MXSymbolGetOutput(x, 3, &h), -1);
  MXSymbolFree(fc);
  MXSymbolFree(x);
}

TEST(SymbolCApi, infer_shape_and_type_fill_arguments_outputs_and_aux) {
  SymbolHandle net = BuildNet();  // data -> fc1(4) -> bn
  const char* keys[] = {"data"};
  const uint32_t ind[] = {0, 2};
  const uint32_t dims[] = {3, 7};
  uint32_t n_in = 0, n_out = 0, n_aux = 0;
  const uint32_t *in_ndim = nullptr, *out_ndim = nullptr, *aux_ndim = nullptr;
  const uint32_t **in_data = nullptr, **out_data = nullptr, **aux_data = nullptr;
  int complete = 0;
  ASSERT_EQ(MXSymbolInferShape(net, 1, keys, ind, dims, &n_in, &in_ndim, &in_data, &n_out,
                               &out_ndim, &out_data, &n_aux, &aux_ndim, &aux_data, &complete),
            0)
      << MXGetLastError();
  EXPECT_EQ(complete, 1);
  ASSERT_EQ(n_in, 5u);  // data, fc1_weight, fc1_bias, bn_gamma, bn_beta
  ASSERT_EQ(in_ndim[1], 2u);
  EXPECT_EQ(in_data[1][0], 4u);
  EXPECT_EQ(in_data[1][1], 7u);
  ASSERT_EQ(n_out, 1u);
  EXPECT_EQ(out_data[0][0], 3u);
  EXPECT_EQ(out_data[0][1], 4u);
  ASSERT_EQ(n_aux, 2u);
  EXPECT_EQ(aux_ndim[0], 1u);
  EXPECT_EQ(aux_data[0][0], 4u);

  // nothing known: not an error, complete = 0 and unknown shapes come back as ()
  ASSERT_EQ(MXSymbolInferShapePartial(net, 0, nullptr, ind, dims, &n_in, &in_ndim, &in_data,
                                      &n_out, &out_ndim, &out_data, &n_aux, &aux_ndim,
                                      &aux_data, &complete),
            0);
  EXPECT_EQ(complete, 0);
  EXPECT_EQ(in_ndim[0], 0u);

  const char* bad_keys[] = {"no_such_input"};
  EXPECT_EQ(MXSymbolInferShape(net, 1, bad_keys, ind, dims, &n_in, &in_ndim, &in_data, &n_out,
                               &out_ndim, &out_data, &n_aux, &aux_ndim, &aux_data, &complete),
            -1);
  EXPECT_NE(std::string(MXGetLastError()).find("no_such_input"), std::string::npos);

  const int types[] = {0};  // float32
  uint32_t t_in = 0, t_out = 0, t_aux = 0;
  const int *tin = nullptr, *tout = nullptr, *taux = nullptr;
  ASSERT_EQ(MXSymbolInferType(net, 1, keys, types, &t_in, &tin, &t_out, &tout, &t_aux, &taux,
                              &complete),
            0)
      << MXGetLastError();
  EXPECT_EQ(complete, 1);
  ASSERT_EQ(t_out, 1u);
  EXPECT_EQ(tout[0], 0);
  EXPECT_EQ(t_aux, 2u);
  MXSymbolFree(net);
}

}  // namespace
