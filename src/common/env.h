// The one registry through which every MXNET_*/DMLC_* environment variable is read.
#ifndef MXNET_COMMON_ENV_H_
#define MXNET_COMMON_ENV_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace env {

/*! \brief One row of the registry: docs/env_var.md is generated from these rows. */
struct VarInfo {
  const char* name;
  const char* type;           // "int", "bool", "float", "string"
  const char* default_value;  // as text, exactly as documented
  const char* choices;        // "A|B|C" for strings with a closed set of values, else ""
  const char* description;
};

/*! \brief Every registered variable, in documentation order. */
const std::vector<VarInfo>& AllVars();

/*!
 * \brief Typed reads. Each value is parsed once on first read and cached.
 * A malformed value logs a warning naming the variable, the value and what was expected,
 * and the documented default is used instead. Reading an unregistered name is a
 * programming error and throws dmlc::Error.
 */
int64_t GetInt(const char* name);
bool GetBool(const char* name);
double GetFloat(const char* name);
std::string GetString(const char* name);

/*! \brief True when the variable is set in the environment (even if malformed). */
bool IsSet(const char* name);

/*! \brief Forget cached values so the next read sees the environment again (tests, fork,
 *  MXSetEnv). */
void ResetCache();

/*! \brief A number that changes at each ResetCache(): a reader that keeps a value derived
 *  from variables recomputes it when this differs from the one it saw (cheap, lock-free). */
uint64_t CacheGeneration();

}  // namespace env
}  // namespace mxnet

#endif  // MXNET_COMMON_ENV_H_
