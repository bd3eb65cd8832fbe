/* The PSV_KERNEL_* values as the kernel table (kernels.def) lists them: a range check and the
 * names. Plain C99 and C++ (the command-line tool is C). */
#ifndef PSV_CORE_KERNELS_H
#define PSV_CORE_KERNELS_H

#include <stdint.h>
#include <string.h>

#include "psv/psv.h"

/* How many PSV_KERNEL_* values the table lists. */
enum {
    psv_kernel_count = 0
#define PSV_KERNEL_ENTRY(NAME, TEXT) +1
#include "kernels.def"
#undef PSV_KERNEL_ENTRY
};

/* 1 if k is a PSV_KERNEL_* value, else 0 (int64_t: an option's value is checked before it is
 * narrowed). */
static inline int psv_kernel_known(int64_t k) {
    switch (k) {
#define PSV_KERNEL_ENTRY(NAME, TEXT) case PSV_KERNEL_##NAME:
#include "kernels.def"
#undef PSV_KERNEL_ENTRY
        return 1;
    default: return 0;
    }
}

/* The kernel's name ("auto", "tile-composite", ...), or "?" for an unknown value. */
static inline const char *psv_kernel_name(int32_t k) {
    switch (k) {
#define PSV_KERNEL_ENTRY(NAME, TEXT) case PSV_KERNEL_##NAME: return TEXT;
#include "kernels.def"
#undef PSV_KERNEL_ENTRY
    default: return "?";
    }
}

/* The PSV_KERNEL_* value named name, or -1 for none. */
static inline int32_t psv_kernel_by_name(const char *name) {
#define PSV_KERNEL_ENTRY(NAME, TEXT) \
    if (strcmp(name, TEXT) == 0) return PSV_KERNEL_##NAME;
#include "kernels.def"
#undef PSV_KERNEL_ENTRY
    return -1;
}

#endif
