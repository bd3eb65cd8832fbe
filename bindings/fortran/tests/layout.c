/* layout.c -- the C side of the Fortran struct-layout test: sizes and offsets of the
   info structs as the C compiler lays them out, for comparison with bind(C) types. */
#include <stddef.h>
#include <psv/psv.h>

int64_t psv_test_c_sizeof(int32_t which) {
    switch (which) {
    case 0: return (int64_t)sizeof(psv_matrix_info);
    case 1: return (int64_t)sizeof(psv_tile_info);
    default: return (int64_t)sizeof(psv_tuning_info);
    }
}
int64_t psv_test_c_offset(int32_t which) {
    switch (which) {
    case 0: return (int64_t)offsetof(psv_matrix_info, padding_ratio);
    case 1: return (int64_t)offsetof(psv_matrix_info, kernel);
    case 2: return (int64_t)offsetof(psv_matrix_info, build_seconds);
    case 3: return (int64_t)offsetof(psv_matrix_info, reserved);
    case 4: return (int64_t)offsetof(psv_tile_info, index_bits);
    case 5: return (int64_t)offsetof(psv_tile_info, reserved);
    case 6: return (int64_t)offsetof(psv_matrix_info, runner_up_kernel);
    case 7: return (int64_t)offsetof(psv_matrix_info, hot_columns);
    default: return (int64_t)offsetof(psv_tuning_info, samples);
    }
}
