// Layouts: the default one (contiguous equal blocks) and the bitonic one of a matrix's rows.
#include <algorithm>
#include <numeric>

#include "dist/dist.hpp"

namespace psv {
namespace dist {

int32_t Layout::owner_of_position(int64_t pos) const {
    // the last part whose first position is <= pos (empty parts before it are skipped)
    return (int32_t)(std::upper_bound(offset.begin(), offset.end(), pos) - offset.begin()) - 1;
}

bool Layout::same(const Layout &o) const {
    return this == &o || (n == o.n && nparts == o.nparts && offset == o.offset && global == o.global);
}

LayoutPtr block_layout(int64_t n, int32_t nparts) {
    auto L = std::make_shared<Layout>();
    L->n = n;
    L->nparts = nparts;
    L->offset.resize((size_t)nparts + 1);
    const int64_t base = n / nparts, extra = n % nparts;
    L->offset[0] = 0;
    for (int32_t p = 0; p < nparts; ++p) L->offset[p + 1] = L->offset[p] + base + (p < extra ? 1 : 0);
    return L;
}

LayoutPtr bitonic_layout(const std::vector<int64_t> &len, int32_t nparts) {
    const int64_t n = (int64_t)len.size();
    if (nparts == 1) return block_layout(n, 1);  // one piece in index order: the identity
    // rows by length, longest first, ties by index: a stable LSD radix sort of (longest - length),
    // 16 bits a pass (R-MAT 27's 134 M rows take two passes)
    std::vector<int32_t> order((size_t)n), tmp((size_t)n);
    std::iota(order.begin(), order.end(), 0);
    const int64_t longest = n ? *std::max_element(len.begin(), len.end()) : 0;
    std::vector<int64_t> at((size_t)65537);
    for (int shift = 0; shift < 64 && (longest >> shift) != 0; shift += 16) {
        std::fill(at.begin(), at.end(), 0);
        for (int64_t i = 0; i < n; ++i) ++at[(size_t)(((longest - len[i]) >> shift) & 0xffff) + 1];
        for (size_t d = 1; d < at.size(); ++d) at[d] += at[d - 1];
        for (int64_t k = 0; k < n; ++k) {
            const int32_t i = order[k];
            tmp[(size_t)at[(size_t)(((longest - len[i]) >> shift) & 0xffff)]++] = i;
        }
        order.swap(tmp);
    }
    tmp = std::vector<int32_t>();
    // Rank r goes to round r / P; even rounds deal parts 0..P-1, odd rounds P-1..0.
    std::vector<int32_t> part_of((size_t)n);
    for (int64_t r = 0; r < n; ++r) {
        const int64_t round = r / nparts, k = r % nparts;
        part_of[order[r]] = (int32_t)(round % 2 == 0 ? k : nparts - 1 - k);
    }
    auto L = std::make_shared<Layout>();
    L->n = n;
    L->nparts = nparts;
    L->offset.assign((size_t)nparts + 1, 0);
    for (int64_t i = 0; i < n; ++i) ++L->offset[(size_t)part_of[i] + 1];
    for (int32_t p = 0; p < nparts; ++p) L->offset[p + 1] += L->offset[p];
    L->global.resize((size_t)n);
    L->position.resize((size_t)n);
    std::vector<int64_t> next(L->offset.begin(), L->offset.end() - 1);
    for (int64_t i = 0; i < n; ++i) {  // ascending i: each piece in index order
        const int64_t pos = next[part_of[i]]++;
        L->global[pos] = (int32_t)i;
        L->position[i] = (int32_t)pos;
    }
    return L;
}

}  // namespace dist
}  // namespace psv
