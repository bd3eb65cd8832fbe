// The objects behind the opaque handles of psv.h, and the handle registry that makes a freed,
// garbage or foreign handle an error code instead of a crash.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/algo_steps.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"

namespace psv {

namespace dist {
struct Layout;  // src/dist/dist.hpp: which part owns each index of a partitioned vector
class Comm;     // src/dist/comm.hpp: the exchanges between parts
}

// One part of a multi-part context (psv_context_create_multi): a backend and its steps; both
// nullptr for a part that another rank holds (psv_context_create_rank).
struct Part {
    Backend *backend = nullptr;
    AlgoSteps *steps = nullptr;
};

// The parts of a partitioned context and how they exchange: all held by this process (a
// multi-part context), or one each per rank.
struct PartSet {
    std::vector<Part> part;
    std::shared_ptr<dist::Comm> comm;
    size_t size() const { return part.size(); }
    bool empty() const { return part.empty(); }
    const Part &operator[](size_t p) const { return part[p]; }
    bool holds(int32_t p) const { return part[(size_t)p].backend != nullptr; }
};

enum class Kind : uint32_t { Context = 1, Matrix, Vector, Semiring };

// Magic numbers (GraphBLAS GB_MAGIC style): set at creation, overwritten on free.
constexpr uint64_t kMagicContext = 0x7073762d63747831ull;   // "psv-ctx1"
constexpr uint64_t kMagicMatrix = 0x7073762d6d617431ull;    // "psv-mat1"
constexpr uint64_t kMagicVector = 0x7073762d76656331ull;    // "psv-vec1"
constexpr uint64_t kMagicSemiring = 0x7073762d73656d31ull;  // "psv-sem1"
constexpr uint64_t kMagicFreed = 0x7073762d66726565ull;     // "psv-free"

// What a context owns; objects share it, so a context freed before its objects leaves them
// freeable (their buffers go back to the backend) but unusable.
struct ContextCore {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<AlgoSteps> steps;  // the algorithms' steps on that backend
    // A multi-part context (two parts or more): parts[0] is backend/steps above, the others own
    // theirs in more_backends/more_steps. A rank context: parts[rank] is backend/steps above, the
    // others are held by other ranks. Empty for a one-part context.
    PartSet parts;
    int32_t rank = 0;  // the part a rank context holds (0 otherwise)
    std::vector<std::unique_ptr<Backend>> more_backends;
    std::vector<std::unique_ptr<AlgoSteps>> more_steps;
    bool multi() const { return !parts.empty(); }
    FormatOptions defaults;
    HitsForm hits_form = HitsForm::Auto;  // psv_hits's form (set_hits_form: tests, measurements)
    std::recursive_mutex mutex;  // serializes calls on this context
    std::atomic<bool> alive{true};
    std::string tuning_text;  // psv_context_tuning_text's last answer
    std::mutex error_mutex;
    std::unordered_map<std::thread::id, std::string> errors;

    void set_error(const std::string &msg);
    const char *last_error();
};

// Handle registry: every live handle is registered with its kind; lookups never dereference a
// pointer that is not registered.
void registry_add(const void *p, Kind k);
void registry_remove(const void *p);
bool registry_has(const void *p, Kind k);

}  // namespace psv

struct psv_context_s {
    uint64_t magic = psv::kMagicContext;
    std::shared_ptr<psv::ContextCore> core;
};

struct psv_semiring_s {
    uint64_t magic = psv::kMagicSemiring;
    std::shared_ptr<psv::ContextCore> ctx;
    psv_op add = PSV_PLUS, multiply = PSV_TIMES;  // as given
    psv_type type = PSV_FP32;
};

struct psv_matrix_s {
    uint64_t magic = psv::kMagicMatrix;
    std::shared_ptr<psv::ContextCore> ctx;
    std::unique_ptr<psv::MatrixStore> store;
    std::unique_ptr<psv::MatrixStore> transpose;  // built on first use, then cached
    int32_t index_base = 0;  // psv_matrix_read: 1 for Matrix Market or METIS files (1-based ids)
    std::vector<int64_t> labels;  // PSV_READ_RELABEL: the file's id of each row/column, else empty
    std::string plan_text[2];     // psv_matrix_plan's last answers (valid until the next call)
};

struct psv_vector_s {
    uint64_t magic = psv::kMagicVector;
    std::shared_ptr<psv::ContextCore> ctx;
    psv_type type = PSV_FP32;
    int64_t n = 0;
    psv::Buffer values;   // n values in the backend's memory
    psv::Buffer present;  // n bytes; meaningful only when !full
    bool full = false;    // every entry present
    // Multi-part contexts: the vector is partitioned by `layout` (values/present above stay
    // empty); piece p lives in part p's memory, in the layout's order (src/dist).
    std::shared_ptr<const psv::dist::Layout> layout;
    std::vector<psv::Buffer> piece_values, piece_present;
    const uint8_t *present_or_null() const { return full ? nullptr : present.as<uint8_t>(); }
};
