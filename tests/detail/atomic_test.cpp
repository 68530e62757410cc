// detail::Atomic and detail::LightMutex as core uses them (the compilers'
// built-ins and futex calls on Linux; std::atomic elsewhere). The cases start
// threads (std::thread), so the ThreadSanitizer build runs them too. The same
// cases run against the std::atomic implementation in tests/standalone/std_atomic.cpp.
#include "support/atomic_cases.hpp"
