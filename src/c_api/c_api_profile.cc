// C API, profiler: configuration, state, dumps, aggregate statistics and custom objects.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api/c_api_common.h"
#include "profiler/profile_objects.h"
#include "profiler/profiler.h"

using namespace mxnet;  // NOLINT(build/namespaces)
using profiler::Profiler;

namespace {

void CheckWorker(int profile_process, const char* fn) {
  API_CHECK(profile_process == 0,
            fn << ": argument profile_process must be 0 (this process, \"worker\"), given "
               << profile_process << "; profiling a server process needs a distributed "
                                     "KVStore, which this build does not have");
}

template <typename T>
T* Object(ProfileHandle h, const char* fn, const char* what) {
  API_CHECK(h != nullptr, fn << ": the handle is NULL (expected a " << what << " handle)");
  T* obj = dynamic_cast<T*>(static_cast<profiler::ProfileObject*>(h));
  API_CHECK(obj != nullptr, fn << ": the handle is not a " << what << " handle");
  return obj;
}

template <typename T>
void Release(std::unique_ptr<T> obj, ProfileHandle* out) {
  *out = static_cast<profiler::ProfileObject*>(obj.release());  // freed by MXProfileDestroyHandle
}

}  // namespace

int MXSetProcessProfilerConfig(int num_params, const char* const* keys, const char* const* vals,
                               KVStoreHandle /*kvstoreHandle*/) {
  API_BEGIN();
  API_CHECK(num_params >= 0, "MXSetProcessProfilerConfig: argument num_params must be >= 0, "
                             "given " << num_params);
  if (num_params > 0) {
    API_NOT_NULL(keys);
    API_NOT_NULL(vals);
  }
  std::vector<std::pair<std::string, std::string>> kv;
  for (int i = 0; i < num_params; ++i) {
    API_CHECK(keys[i] != nullptr && vals[i] != nullptr,
              "MXSetProcessProfilerConfig: key or value " << i << " is NULL");
    kv.emplace_back(keys[i], vals[i]);
  }
  Profiler::Get()->SetConfig(profiler::ParseConfig(kv));
  API_END();
}

int MXSetProfilerConfig(int num_params, const char* const* keys, const char* const* vals) {
  return MXSetProcessProfilerConfig(num_params, keys, vals, nullptr);
}

int MXSetProcessProfilerState(int state, int profile_process, KVStoreHandle /*kvStoreHandle*/) {
  API_BEGIN();
  CheckWorker(profile_process, "MXSetProcessProfilerState");
  API_CHECK(state == 0 || state == 1, "MXSetProcessProfilerState: argument state expected 0 "
                                      "(stop) or 1 (run), given " << state);
  Profiler::Get()->SetState(state == 1);
  API_END();
}

int MXSetProfilerState(int state) { return MXSetProcessProfilerState(state, 0, nullptr); }

int MXSetProfilerScope(const char* scope) {
  API_BEGIN();
  API_NOT_NULL(scope);
  Profiler::Get()->SetScope(scope);
  API_END();
}

int MXDumpProcessProfile(int finished, int profile_process, KVStoreHandle /*kvStoreHandle*/) {
  API_BEGIN();
  CheckWorker(profile_process, "MXDumpProcessProfile");
  Profiler::Get()->Dump(finished != 0);
  API_END();
}

int MXDumpProfile(int finished) { return MXDumpProcessProfile(finished, 0, nullptr); }

int MXAggregateProfileStatsPrintEx(const char** out_str, int reset, int format, int sort_by,
                                   int ascending) {
  API_BEGIN();
  API_NOT_NULL(out_str);
  thread_local std::string text;
  text = Profiler::Get()->AggregateStats(reset != 0, format, sort_by, ascending != 0);
  *out_str = text.c_str();
  API_END();
}

int MXAggregateProfileStatsPrint(const char** out_str, int reset) {
  return MXAggregateProfileStatsPrintEx(out_str, reset, 0, profiler::kSortTotal, 0);
}

int MXProcessProfilePause(int paused, int profile_process, KVStoreHandle /*kvStoreHandle*/) {
  API_BEGIN();
  CheckWorker(profile_process, "MXProcessProfilePause");
  Profiler::Get()->SetPaused(paused != 0);
  API_END();
}

int MXProfilePause(int paused) { return MXProcessProfilePause(paused, 0, nullptr); }

int MXProfileCreateDomain(const char* domain, ProfileHandle* out) {
  API_BEGIN();
  API_NOT_NULL(domain);
  API_NOT_NULL(out);
  Release(std::make_unique<profiler::ProfileDomain>(domain), out);
  API_END();
}

namespace {
int CreateDuration(ProfileHandle domain, const char* name, ProfileHandle* out, const char* fn) {
  API_BEGIN();
  API_CHECK(name != nullptr, fn << ": argument name is NULL");
  API_CHECK(out != nullptr, fn << ": argument out is NULL");
  auto* d = Object<profiler::ProfileDomain>(domain, fn, "domain");
  Release(std::make_unique<profiler::ProfileDuration>(d->name, name), out);
  API_END();
}
}  // namespace

int MXProfileCreateTask(ProfileHandle domain, const char* task_name, ProfileHandle* out) {
  return CreateDuration(domain, task_name, out, "MXProfileCreateTask");
}

int MXProfileCreateFrame(ProfileHandle domain, const char* frame_name, ProfileHandle* out) {
  return CreateDuration(domain, frame_name, out, "MXProfileCreateFrame");
}

int MXProfileCreateEvent(const char* event_name, ProfileHandle* out) {
  API_BEGIN();
  API_NOT_NULL(event_name);
  API_NOT_NULL(out);
  Release(std::make_unique<profiler::ProfileDuration>(profiler::EventCategory(), event_name),
          out);
  API_END();
}

int MXProfileCreateCounter(ProfileHandle domain, const char* counter_name, ProfileHandle* out) {
  API_BEGIN();
  API_NOT_NULL(counter_name);
  API_NOT_NULL(out);
  auto* d = Object<profiler::ProfileDomain>(domain, "MXProfileCreateCounter", "domain");
  Release(std::make_unique<profiler::ProfileCounter>(d->name, counter_name), out);
  API_END();
}

int MXProfileDestroyHandle(ProfileHandle frame_handle) {
  API_BEGIN();
  std::unique_ptr<profiler::ProfileObject> obj(
      Object<profiler::ProfileObject>(frame_handle, "MXProfileDestroyHandle", "profiler object"));
  API_END();
}

int MXProfileDurationStart(ProfileHandle duration_handle) {
  API_BEGIN();
  Object<profiler::ProfileDuration>(duration_handle, "MXProfileDurationStart",
                                    "task, frame or event")->Start();
  API_END();
}

int MXProfileDurationStop(ProfileHandle duration_handle) {
  API_BEGIN();
  Object<profiler::ProfileDuration>(duration_handle, "MXProfileDurationStop",
                                    "task, frame or event")->Stop();
  API_END();
}

int MXProfileSetCounter(ProfileHandle counter_handle, uint64_t value) {
  API_BEGIN();
  Object<profiler::ProfileCounter>(counter_handle, "MXProfileSetCounter", "counter")->Set(value);
  API_END();
}

int MXProfileAdjustCounter(ProfileHandle counter_handle, int64_t value) {
  API_BEGIN();
  Object<profiler::ProfileCounter>(counter_handle, "MXProfileAdjustCounter", "counter")
      ->Adjust(value);
  API_END();
}

int MXProfileSetMarker(ProfileHandle domain, const char* instant_marker_name,
                       const char* scope) {
  API_BEGIN();
  API_NOT_NULL(instant_marker_name);
  API_NOT_NULL(scope);
  auto* d = Object<profiler::ProfileDomain>(domain, "MXProfileSetMarker", "domain");
  profiler::SetMarker(d->name, instant_marker_name, scope);
  API_END();
}
