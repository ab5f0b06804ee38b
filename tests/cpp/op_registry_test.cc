// Tests of src/nnvm/op.cc: one declaration per operator name, aliases only through add_alias.
#include <dmlc/logging.h>
#include <gtest/gtest.h>

#include <string>

#include "nnvm/op.h"

namespace nnvm {
namespace {

std::string RegisterError(const std::string& name) {
  try {
    Op::Register(name);
  } catch (const dmlc::Error& e) {
    return e.what();
  }
  return "";
}

TEST(OpRegistry, second_registration_of_a_name_is_an_error) {
  Op& first = Op::Register("_test_registry_twice");
  first.set_num_inputs(2);
  std::string msg = RegisterError("_test_registry_twice");
  EXPECT_NE(msg.find("_test_registry_twice is registered twice"), std::string::npos) << msg;
  EXPECT_NE(msg.find("add_alias"), std::string::npos) << msg;
  // The first declaration is untouched.
  EXPECT_EQ(Op::Get("_test_registry_twice"), &first);
  EXPECT_EQ(Op::Get("_test_registry_twice")->num_inputs, 2u);
}

TEST(OpRegistry, registering_an_existing_alias_is_an_error) {
  Op::Register("_test_registry_named").add_alias("_test_registry_alias");
  std::string msg = RegisterError("_test_registry_alias");
  EXPECT_NE(msg.find("alias of _test_registry_named"), std::string::npos) << msg;
}

TEST(OpRegistry, alias_naming_another_op_is_an_error) {
  Op::Register("_test_registry_a");
  Op& b = Op::Register("_test_registry_b");
  EXPECT_THROW(b.add_alias("_test_registry_a"), dmlc::Error);
  EXPECT_EQ(Op::Get("_test_registry_a")->name, "_test_registry_a");
  b.add_alias("_test_registry_b_alias");
  b.add_alias("_test_registry_b_alias");  // the same alias again for the same op is harmless
  EXPECT_EQ(Op::Get("_test_registry_b_alias"), &b);
}

}  // namespace
}  // namespace nnvm
