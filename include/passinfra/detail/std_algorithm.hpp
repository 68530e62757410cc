// passinfra/detail/std_algorithm.hpp — the classic std algorithms (std::sort,
// std::stable_sort, std::find, std::upper_bound, std::copy, std::min /
// std::max, ...) without the rest of <algorithm>.
//
// Why (issue 18): C++20's <algorithm> adds the std::ranges algorithms
// (<bits/ranges_algo.h>) and the parallel algorithms' declarations, ~150 M
// instructions of g++'s time on passinfra.hpp, and passinfra uses neither.
// Under libstdc++ the classic algorithms are <bits/stl_algobase.h> and
// <bits/stl_algo.h> (<functional> includes the latter itself, for its
// searchers); elsewhere, or in libstdc++'s parallel mode, this is <algorithm>.
// Either way the calls are the same std functions.
#pragma once

#if defined(__GLIBCXX__) && !defined(_GLIBCXX_PARALLEL) && __has_include(<bits/stl_algo.h>) && \
    __has_include(<bits/stl_algobase.h>)
#include <bits/stl_algo.h>
#include <bits/stl_algobase.h>
#else
#include <algorithm>
#endif
