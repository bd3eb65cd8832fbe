// test_set_hits_form (hits_form.h): the C tests' bridge to psv::set_hits_form.
#include <cstring>

#include "algo/algorithms.hpp"
#include "hits_form.h"

extern "C" int test_set_hits_form(psv_context *ctx, const char *form) {
    psv::HitsForm f;
    if (!std::strcmp(form, "auto")) f = psv::HitsForm::Auto;
    else if (!std::strcmp(form, "separate")) f = psv::HitsForm::Separate;
    else if (!std::strcmp(form, "stacked")) f = psv::HitsForm::Stacked;
    else return -1;
    try {
        psv::set_hits_form(ctx, f);
    } catch (...) {
        return -1;
    }
    return 0;
}
