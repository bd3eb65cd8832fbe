// The shims of contexts: backend availability, creation (a backend and its algorithm steps),
// free, the last error, the backend kind and default options.
#include "api/shim.hpp"

#include <cstring>
#include <string>

#include "api/internal.h"
#include "dist/comm.hpp"

using namespace psv;
using namespace psv::api;

namespace {
// The message of the calling thread's last failed psv_context_create (which has no context to
// keep it in), for psv_internal_context_create_error.
thread_local OrphanMessage create_error;

// Whether a context of `backend` runs on the CPU (AUTO: where no CUDA device is usable).
bool runs_on_cpu(psv_backend backend) {
    if (backend < PSV_BACKEND_AUTO || backend > PSV_BACKEND_CUDA)
        fail(PSV_ERROR_INVALID_VALUE, format("%d is not a psv_backend", (int)backend));
    return backend == PSV_BACKEND_CPU || (backend == PSV_BACKEND_AUTO && !cuda_backend_available());
}
}  // namespace

extern "C" {

const char *psv_internal_context_create_error(void) { return create_error.text; }

int32_t psv_backend_available(psv_backend backend) {
    switch (backend) {
    case PSV_BACKEND_CPU:
    case PSV_BACKEND_AUTO: return 1;
    case PSV_BACKEND_CUDA:
        try {
            return cuda_backend_available() ? 1 : 0;
        } catch (...) {
            return 0;
        }
    default: return 0;
    }
}

psv_status psv_context_create(psv_backend backend, int32_t device, psv_context **out) {
    return psv_context_create_multi(backend, 1, &device, out);  // one part on `device`
}

psv_status psv_context_create_multi(psv_backend backend, int32_t nparts, const int32_t *devices,
                                    psv_context **out) {
    ContextCore *ctx = nullptr;
    create_error.set("");
    return guard("psv_context_create_multi", ctx, [&] {
        need(out, "ctx");
        if (nparts < 1 || nparts > PSV_MAX_PARTS)
            fail(PSV_ERROR_INVALID_VALUE, format("nparts = %d outside 1 .. %d", (int)nparts, (int)PSV_MAX_PARTS));
        const bool cpu = runs_on_cpu(backend);
        if (devices)
            for (int32_t p = 0; p < nparts; ++p)
                if (devices[p] < 0)
                    fail(PSV_ERROR_INVALID_VALUE, nparts == 1 ? std::string("device must be >= 0")
                                                              : format("devices[%d] = %d is negative", (int)p, (int)devices[p]));
        auto core = std::make_shared<ContextCore>();
        auto make = [&](int32_t p) { return cpu ? create_cpu_backend() : create_cuda_backend(devices ? devices[p] : 0); };
        core->backend = make(0);
        core->steps = create_algo_steps(*core->backend);
        if (nparts > 1) {
            core->parts.part.push_back(Part{core->backend.get(), core->steps.get()});
            for (int32_t p = 1; p < nparts; ++p) {
                core->more_backends.push_back(make(p));
                core->more_steps.push_back(create_algo_steps(*core->more_backends.back()));
                core->parts.part.push_back(Part{core->more_backends.back().get(), core->more_steps.back().get()});
            }
            core->parts.comm = dist::local_comm(nparts);
        }
        auto c = std::make_unique<psv_context_s>();
        c->core = std::move(core);
        registry_add(c.get(), Kind::Context);
        *out = c.release();
        return PSV_SUCCESS;
    }, &create_error);
}

psv_status psv_unique_id(psv_backend backend, psv_id *id) {
    ContextCore *ctx = nullptr;
    create_error.set("");
    return guard("psv_unique_id", ctx, [&] {
        need(id, "id");
        const bool cuda = !runs_on_cpu(backend);
        if (cuda && !cuda_backend_available())
            fail(PSV_ERROR_BACKEND_UNAVAILABLE, "the CUDA backend is not built or no device is present");
        uint8_t bytes[PSV_ID_BYTES];
        dist::make_rank_id(cuda && dist::nccl_available(), bytes);
        static_assert(sizeof(psv_id) == PSV_ID_BYTES, "psv_id's size");
        std::memcpy(id->opaque, bytes, sizeof bytes);
        return PSV_SUCCESS;
    }, &create_error);
}

psv_status psv_context_create_rank(psv_backend backend, const psv_id *id, int32_t nranks, int32_t rank,
                                   int32_t device, psv_context **out) {
    ContextCore *ctx = nullptr;
    create_error.set("");
    return guard("psv_context_create_rank", ctx, [&] {
        need(id, "id");
        need(out, "ctx");
        if (nranks < 1 || nranks > PSV_MAX_PARTS)
            fail(PSV_ERROR_INVALID_VALUE, format("nranks = %d outside 1 .. %d", (int)nranks, (int)PSV_MAX_PARTS));
        if (rank < 0 || rank >= nranks)
            fail(PSV_ERROR_INVALID_VALUE, format("rank = %d outside 0 .. %d", (int)rank, (int)nranks - 1));
        if (device < 0) fail(PSV_ERROR_INVALID_VALUE, "device must be >= 0");
        const bool cpu = runs_on_cpu(backend);
        const dist::RankId rid = dist::read_rank_id(reinterpret_cast<const uint8_t *>(id->opaque));
        auto core = std::make_shared<ContextCore>();
        core->backend = cpu ? create_cpu_backend() : create_cuda_backend(device);
        core->steps = create_algo_steps(*core->backend);
        core->parts.part.assign((size_t)nranks, Part{});
        core->parts.part[rank] = Part{core->backend.get(), core->steps.get()};
        core->parts.comm = dist::join_ranks(rid, nranks, rank, *core->backend);
        core->rank = rank;
        auto c = std::make_unique<psv_context_s>();
        c->core = std::move(core);
        registry_add(c.get(), Kind::Context);
        *out = c.release();
        return PSV_SUCCESS;
    }, &create_error);
}

psv_status psv_context_rank(const psv_context *c, int32_t *rank) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_rank", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(rank, "rank");
        *rank = ctx->rank;
        return PSV_SUCCESS;
    });
}

psv_status psv_context_nparts(const psv_context *c, int32_t *nparts) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_nparts", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(nparts, "nparts");
        *nparts = ctx->multi() ? (int32_t)ctx->parts.size() : 1;
        return PSV_SUCCESS;
    });
}

void psv_context_free(psv_context **ctx) {
    if (!ctx || !*ctx) return;
    psv_context *c = *ctx;
    if (!registry_has(c, Kind::Context)) return;  // freed or garbage: nothing to do
    registry_remove(c);
    {
        std::lock_guard<std::recursive_mutex> g(c->core->mutex);
        c->core->alive = false;
    }
    c->magic = kMagicFreed;
    delete c;
    *ctx = nullptr;
}

const char *psv_context_last_error(const psv_context *ctx) {
    if (!ctx) return "(NULL context)";
    if (!registry_has(ctx, Kind::Context) || ctx->magic != kMagicContext) return "(not a live psv_context)";
    return ctx->core->last_error();
}

psv_status psv_context_backend(const psv_context *c, psv_backend *backend) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_backend", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(backend, "backend");
        *backend = ctx->backend->kind();
        return PSV_SUCCESS;
    });
}

psv_status psv_context_set_option(psv_context *c, psv_option option, int64_t value) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_set_option", ctx, [&] {
        ctx = check_context(c, "ctx");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_option(option, value);
        set_option(ctx->defaults, option, value);
        return PSV_SUCCESS;
    });
}

psv_status psv_context_tuning(const psv_context *c, psv_tuning_info *info) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_tuning", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(info, "info");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        *info = ctx->backend->tuning().info;
        return PSV_SUCCESS;
    });
}

const char *psv_context_tuning_text(const psv_context *c) {
    if (!c) return "(NULL context)";
    if (!registry_has(c, Kind::Context) || c->magic != kMagicContext) return "(not a live psv_context)";
    ContextCore *ctx = c->core.get();
    std::lock_guard<std::recursive_mutex> g(ctx->mutex);
    try {
        ctx->tuning_text = ctx->backend->tuning().text;
    } catch (...) {
        ctx->tuning_text = "(out of memory)";
    }
    return ctx->tuning_text.c_str();
}

psv_status psv_context_tune(psv_context *c, const char *path, int32_t effort, int32_t progress) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_tune", ctx, [&] {
        ctx = check_context(c, "ctx");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (effort != 0 && effort != 1) fail(PSV_ERROR_INVALID_VALUE, "effort is 0 (quick) or 1 (full)");
        if (progress != 0 && progress != 1) fail(PSV_ERROR_INVALID_VALUE, "progress is 0 or 1");
        if (ctx->multi()) fail(PSV_ERROR_INVALID_VALUE, "a multi-part context cannot be tuned: tune a one-part context on each device");
        ctx->backend->tune(path ? std::string(path) : std::string(), effort, progress != 0);
        return PSV_SUCCESS;
    });
}

}  // extern "C"
