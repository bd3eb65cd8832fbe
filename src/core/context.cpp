// Contexts' error messages, the handle registry, and the names of types, operators and statuses.
#include <mutex>
#include <unordered_map>

#include "core/objects.hpp"
#include "core/ops.hpp"
#include "core/test_hooks.hpp"

namespace psv {

namespace test_hooks {
FailAllocationFn fail_allocation = nullptr;
std::atomic<int64_t> live_buffers{0};
}  // namespace test_hooks

void ContextCore::set_error(const std::string &msg) {
    std::lock_guard<std::mutex> g(error_mutex);
    errors[std::this_thread::get_id()] = msg;
}

const char *ContextCore::last_error() {
    std::lock_guard<std::mutex> g(error_mutex);
    auto it = errors.find(std::this_thread::get_id());
    return it == errors.end() ? "" : it->second.c_str();
}

namespace {
std::mutex &registry_mutex() {
    static std::mutex m;
    return m;
}
std::unordered_map<const void *, Kind> &registry() {
    static auto *r = new std::unordered_map<const void *, Kind>();  // never destroyed: usable at exit
    return *r;
}
}  // namespace

void registry_add(const void *p, Kind k) {
    std::lock_guard<std::mutex> g(registry_mutex());
    registry()[p] = k;
}
void registry_remove(const void *p) {
    std::lock_guard<std::mutex> g(registry_mutex());
    registry().erase(p);
}
bool registry_has(const void *p, Kind k) {
    std::lock_guard<std::mutex> g(registry_mutex());
    auto it = registry().find(p);
    return it != registry().end() && it->second == k;
}

const char *type_name(psv_type t) {
    switch (t) {
    case PSV_BOOL: return "PSV_BOOL";
    case PSV_INT32: return "PSV_INT32";
    case PSV_INT64: return "PSV_INT64";
    case PSV_FP32: return "PSV_FP32";
    case PSV_FP64: return "PSV_FP64";
    default: return "(unknown type)";
    }
}

const char *op_name(psv_op op) {
    switch (op) {
    case PSV_NOOP: return "PSV_NOOP";
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) case PSV_##NAME: return "PSV_" #NAME;
#include "core/operators.def"
#undef PSV_OPERATOR
    default: return "(unknown operator)";
    }
}

}  // namespace psv
