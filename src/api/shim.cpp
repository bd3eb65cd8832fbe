// The helpers that several API families share (declared in shim.hpp): option checks, and the
// creation of registered matrices and vectors.
#include "api/shim.hpp"
#include "core/kernels.h"
#include "dist/comm.hpp"
#include "dist/dist.hpp"

namespace psv {
namespace api {

void check_type(psv_type t) {
    if (!valid_type(t)) fail(PSV_ERROR_INVALID_VALUE, format("%d is not a psv_type", (int)t));
}

void check_option(psv_option option, int64_t value) {
    switch (option) {
    case PSV_OPT_TILE_WIDTH:
        if (value < 0 || value > kMaxDimension) fail(PSV_ERROR_INVALID_VALUE, "tile width must be 0 (auto) or positive");
        return;
    case PSV_OPT_MAX_TILES:
        if (value < -1 || value > INT32_MAX) fail(PSV_ERROR_INVALID_VALUE, "max tiles must be -1 (rule of Algorithm 1), 0 or positive");
        return;
    case PSV_OPT_WORKLOAD_SIZE:
        if (value < 0 || value > INT32_MAX) fail(PSV_ERROR_INVALID_VALUE, "workload size must be 0 (autotune) or positive");
        return;
    case PSV_OPT_KERNEL:
        if (!psv_kernel_known(value)) fail(PSV_ERROR_INVALID_VALUE, "unknown PSV_KERNEL_* value");
        return;
    case PSV_OPT_PROGRESS:
        if (value != 0 && value != 1) fail(PSV_ERROR_INVALID_VALUE, "progress is 0 or 1");
        return;
    case PSV_OPT_TRANSPOSE:
        if (value < PSV_TRANSPOSE_AUTO || value > PSV_TRANSPOSE_PUSH)
            fail(PSV_ERROR_INVALID_VALUE, "transpose is PSV_TRANSPOSE_AUTO, PSV_TRANSPOSE_CACHE or PSV_TRANSPOSE_PUSH");
        return;
    case PSV_OPT_HOT_COLUMNS:
        if (value < -1 || value > kMaxDimension) fail(PSV_ERROR_INVALID_VALUE, "hot columns must be -1 (chosen), 0 or positive");
        return;
    case PSV_OPT_RANK_ORDER:
        if (value < -1 || value > 1) fail(PSV_ERROR_INVALID_VALUE, "rank order is -1 (chosen), 0 (plain) or 1 (ranked)");
        return;
    case PSV_OPT_PLAN_CHOICE:
        if (value != PSV_CHOICE_MODEL && value != PSV_CHOICE_RULES)
            fail(PSV_ERROR_INVALID_VALUE, "plan choice is PSV_CHOICE_MODEL or PSV_CHOICE_RULES");
        return;
    default:
        fail(PSV_ERROR_INVALID_VALUE, format("%d is not a psv_option", (int)option));
    }
}

void set_option(FormatOptions &o, psv_option option, int64_t value) {
    switch (option) {
    case PSV_OPT_TILE_WIDTH: o.tile_width = value; break;
    case PSV_OPT_MAX_TILES: o.max_tiles = value; break;
    case PSV_OPT_WORKLOAD_SIZE: o.workload_size = value; break;
    case PSV_OPT_KERNEL: o.kernel = (psv_kernel)value; break;
    case PSV_OPT_TRANSPOSE: o.transpose = (int32_t)value; break;
    case PSV_OPT_HOT_COLUMNS: o.hot_columns = value; break;
    case PSV_OPT_RANK_ORDER: o.rank_order = (int32_t)value; break;
    case PSV_OPT_PLAN_CHOICE: o.plan_choice = (int32_t)value; break;
    default: o.progress = value != 0; break;
    }
}

psv_matrix *new_matrix(const std::shared_ptr<ContextCore> &core, CsrHost &&csr) {
    auto m = std::make_unique<psv_matrix_s>();
    m->ctx = core;
    if (core->multi()) m->store = dist::partition(core->parts, std::move(csr), core->defaults);
    else m->store = core->backend->build_matrix(std::move(csr), core->defaults);
    registry_add(m.get(), Kind::Matrix);
    return m.release();
}

psv_matrix *new_matrix_share(const std::shared_ptr<ContextCore> &core, CsrHost &&share, psv_op dup) {
    auto m = std::make_unique<psv_matrix_s>();
    m->ctx = core;
    m->store = dist::partition_share(core->parts, std::move(share), core->defaults, dup);
    registry_add(m.get(), Kind::Matrix);
    return m.release();
}

bool ranked(const ContextCore &core) { return core.multi() && core.parts.comm->ranked(); }

psv_vector *new_vector(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n) {
    auto v = std::make_unique<psv_vector_s>();
    v->ctx = core;
    v->type = type;
    v->n = n;
    v->full = n == 0;
    if (core->multi()) {
        v->layout = dist::block_layout(n, (int32_t)core->parts.size());
        dist::allocate_pieces(core->parts, *v->layout, type, v->piece_values, v->piece_present);
        registry_add(v.get(), Kind::Vector);
        return v.release();
    }
    Backend *be = core->backend.get();
    v->values = Buffer(be, (size_t)n * type_size(type));
    v->present = Buffer(be, (size_t)n);
    be->set_bytes(v->present.get(), 0, (size_t)n);
    registry_add(v.get(), Kind::Vector);
    return v.release();
}

psv_vector *adopt_vector(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n, Buffer &&values) {
    auto v = std::make_unique<psv_vector_s>();
    v->ctx = core;
    v->type = type;
    v->n = n;
    v->present = Buffer(core->backend.get(), (size_t)n);  // used once entries are deleted
    v->values = std::move(values);
    v->full = true;
    registry_add(v.get(), Kind::Vector);
    return v.release();
}

psv_vector *adopt_pieces(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n,
                         std::shared_ptr<const dist::Layout> layout, std::vector<Buffer> &&values) {
    auto v = std::make_unique<psv_vector_s>();
    v->ctx = core;
    v->type = type;
    v->n = n;
    std::vector<Buffer> unused;
    dist::allocate_pieces(core->parts, *layout, PSV_BOOL, unused, v->piece_present);  // used once entries are deleted
    v->layout = std::move(layout);
    v->piece_values = std::move(values);
    v->full = true;
    registry_add(v.get(), Kind::Vector);
    return v.release();
}

}  // namespace api
}  // namespace psv
