// The GraphBLAS write step of w<mask> accum= t for one entry (psv_mxv's meaning), shared by the
// backends: the CPU loop and the CUDA kernel both call assign_entry.
#pragma once
#include "core/backend.hpp"
#include "core/ops.hpp"

namespace psv {

// A mask entry's value, true where nonzero, whatever the mask's type.
PSV_HD bool mask_value(const void *mask, psv_type mt, int64_t i) {
    switch (mt) {
    case PSV_BOOL: return static_cast<const uint8_t *>(mask)[i] != 0;
    case PSV_INT32: return static_cast<const int32_t *>(mask)[i] != 0;
    case PSV_INT64: return static_cast<const int64_t *>(mask)[i] != 0;
    case PSV_FP32: return static_cast<const float *>(mask)[i] != 0;
    default: return static_cast<const double *>(mask)[i] != 0;
    }
}

// Entry i of w<mask> accum= t; accum(x, y) is called only when a.accum != PSV_NOOP.
template <class T, class Accum>
PSV_HD void assign_entry(const AssignArgs &a, int64_t i, T *w, const T *t, const Accum &accum) {
    bool m = true;
    if (a.mask) {
        const bool mp = !a.mask_present || a.mask_present[i];
        m = mp && (a.structure || mask_value(a.mask, a.mask_type, i));
        if (a.complement) m = !m;
    } else if (a.complement) {
        m = false;  // the complement of "no mask" allows nothing
    }
    const bool wp = !a.w_present_in || a.w_present_in[i];
    const bool tp = !a.t_present || a.t_present[i];
    if (!m) {
        a.w_present[i] = a.replace ? 0 : wp;
        return;
    }
    if (a.accum != PSV_NOOP) {
        if (wp && tp) w[i] = accum(w[i], t[i]);
        else if (tp) w[i] = t[i];
        a.w_present[i] = wp || tp;
    } else {
        if (tp) w[i] = t[i];
        a.w_present[i] = tp;
    }
}

}  // namespace psv
