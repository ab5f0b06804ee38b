// Typed, cached reads of the variables registered in env_vars.cc.
#include "common/env.h"

#include <dmlc/logging.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace mxnet {
namespace env {
namespace {

struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::string> values;  // name -> validated text
};

Cache& GetCache() {
  static Cache* cache = new Cache();  // never destroyed: read from threads at exit
  return *cache;
}

const VarInfo& Find(const char* name) {
  for (const VarInfo& v : AllVars()) {
    if (std::strcmp(v.name, name) == 0) return v;
  }
  LOG(FATAL) << "environment variable " << name
             << " is read but not registered in src/common/env_vars.cc";
  throw;  // unreachable
}

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ParseFloat(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ParseBool(const std::string& s, bool* out) {
  if (s == "1" || s == "true" || s == "True" || s == "TRUE") { *out = true; return true; }
  if (s == "0" || s == "false" || s == "False" || s == "FALSE") { *out = false; return true; }
  return false;
}

bool InChoices(const char* choices, const std::string& s) {
  const char* p = choices;
  while (*p) {
    const char* bar = std::strchr(p, '|');
    size_t n = bar ? static_cast<size_t>(bar - p) : std::strlen(p);
    if (s.size() == n && std::strncmp(p, s.data(), n) == 0) return true;
    if (!bar) break;
    p = bar + 1;
  }
  return false;
}

const char* Expected(const VarInfo& v) {
  if (v.choices[0] != '\0') return v.choices;
  if (std::strcmp(v.type, "int") == 0) return "an integer";
  if (std::strcmp(v.type, "bool") == 0) return "0 or 1";
  if (std::strcmp(v.type, "float") == 0) return "a number";
  return "a string";
}

bool Valid(const VarInfo& v, const std::string& s) {
  int64_t i;
  double d;
  bool b;
  if (std::strcmp(v.type, "int") == 0) return ParseInt(s, &i);
  if (std::strcmp(v.type, "float") == 0) return ParseFloat(s, &d);
  if (std::strcmp(v.type, "bool") == 0) return ParseBool(s, &b);
  if (v.choices[0] != '\0') return InChoices(v.choices, s);
  return true;
}

// The validated text of a variable: its value when set and well-formed, else the default.
std::string Text(const char* name) {
  Cache& cache = GetCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  auto it = cache.values.find(name);
  if (it != cache.values.end()) return it->second;
  const VarInfo& info = Find(name);
  std::string text = info.default_value;
  if (const char* raw = std::getenv(name)) {
    if (Valid(info, raw)) {
      text = raw;
    } else {
      LOG(WARNING) << "environment variable " << name << "='" << raw << "' is malformed: expected "
                   << Expected(info) << "; using the default '" << info.default_value << "'";
    }
  }
  cache.values.emplace(name, text);
  return text;
}

}  // namespace

int64_t GetInt(const char* name) {
  int64_t v = 0;
  ParseInt(Text(name), &v);
  return v;
}

bool GetBool(const char* name) {
  bool v = false;
  ParseBool(Text(name), &v);
  return v;
}

double GetFloat(const char* name) {
  double v = 0;
  ParseFloat(Text(name), &v);
  return v;
}

std::string GetString(const char* name) { return Text(name); }

bool IsSet(const char* name) {
  Find(name);
  return std::getenv(name) != nullptr;
}

namespace {
std::atomic<uint64_t> cache_generation{0};
}  // namespace

void ResetCache() {
  Cache& cache = GetCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.values.clear();
  cache_generation.fetch_add(1, std::memory_order_release);
}

uint64_t CacheGeneration() { return cache_generation.load(std::memory_order_acquire); }

}  // namespace env
}  // namespace mxnet
