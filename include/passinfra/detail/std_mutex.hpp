// passinfra/detail/std_mutex.hpp — std::mutex and std::lock_guard without the
// rest of <mutex>.
//
// Why (issue 18): <mutex> adds std::timed_mutex, std::recursive_mutex,
// std::scoped_lock, std::call_once and std::unique_lock (with <bits/chrono.h>)
// to every translation unit that includes it; the instruments and the
// registry use a plain mutex and std::lock_guard. Under libstdc++ those two
// are <bits/std_mutex.h> (which <memory> already includes, for shared_ptr's
// atomic operations); elsewhere this is <mutex>. Either way they are the
// std types.
#pragma once

#if defined(__GLIBCXX__) && __has_include(<bits/std_mutex.h>)
#include <bits/std_mutex.h>
#else
#include <mutex>
#endif
