// passinfra/core.hpp is the cheap include (DESIGN.md, issue 8): it must not
// pull in the dynamic layer, the instruments, or <memory>; nor (issue 18)
// <algorithm>, <cmath>, <map>, <mutex>, <chrono>, <ostream>, <atomic>,
// <limits> or Boost.Hana. (<functional> is allowed: InstrumentSet unwraps
// std::reference_wrapper.) Built as part of passinfra_header_tests; a failure
// here fails the build.
//
// core.hpp must be the first include of this file: anything included before
// it could define what is checked below.
#include <passinfra/core.hpp>

#include <type_traits>

// ---- <memory> ----------------------------------------------------------
// The include guards of <memory> (libstdc++, libc++) and of the libstdc++
// headers that hold unique_ptr and shared_ptr (reachable without <memory>).
#if defined(_GLIBCXX_MEMORY) || defined(_LIBCPP_MEMORY)
#error "passinfra/core.hpp includes <memory> (find the include with g++ -H)"
#endif
#if defined(_UNIQUE_PTR_H) || defined(_SHARED_PTR_H)
#error "passinfra/core.hpp includes libstdc++'s bits/unique_ptr.h or bits/shared_ptr.h (find it with g++ -H)"
#endif

// ---- heavy standard headers (issue 18: the include costs what it needs) --
// Each of these was in core.hpp for one or two cold uses: <algorithm> (the
// ranges algorithms), <cmath> (special functions), <map>, <mutex> (pulls in
// <chrono>), <ostream> (operator<< of PassInfo is a template over the stream,
// with <iosfwd>). libstdc++'s <functional> includes bits/stl_algo.h, which is
// allowed: the reference TU of benchmarks/compile_time.sh has <functional>.
#if defined(_GLIBCXX_ALGORITHM) || defined(_LIBCPP_ALGORITHM)
#error "passinfra/core.hpp includes <algorithm> (find the include with g++ -H)"
#endif
#if defined(_GLIBCXX_CMATH) || defined(_LIBCPP_CMATH)
#error "passinfra/core.hpp includes <cmath> (find the include with g++ -H)"
#endif
#if defined(_GLIBCXX_MAP) || defined(_LIBCPP_MAP)
#error "passinfra/core.hpp includes <map> (find the include with g++ -H)"
#endif
#if defined(_GLIBCXX_MUTEX) || defined(_LIBCPP_MUTEX)
#error "passinfra/core.hpp includes <mutex> (find the include with g++ -H)"
#endif
#if defined(_GLIBCXX_CHRONO) || defined(_LIBCPP_CHRONO)
#error "passinfra/core.hpp includes <chrono> (find the include with g++ -H)"
#endif
#if defined(_GLIBCXX_OSTREAM) || defined(_LIBCPP_OSTREAM)
#error "passinfra/core.hpp includes <ostream> (find the include with g++ -H)"
#endif
// <limits>: for one range check (config.hpp reads an option as a narrower
// type): g++ 12 compiled it in 2% of core.hpp's cost (47 M instructions).
#if defined(_GLIBCXX_NUMERIC_LIMITS) || defined(_LIBCPP_LIMITS)
#error "passinfra/core.hpp includes <limits> (find the include with g++ -H)"
#endif
// <atomic>: libstdc++'s brings atomic wait's machinery (pthread, <bits/chrono.h>);
// core uses detail/atomic.hpp (the built-ins) where that is available.
#if !defined(PASSINFRA_STD_ATOMIC) || !PASSINFRA_STD_ATOMIC
#if defined(_GLIBCXX_ATOMIC) || defined(_LIBCPP_ATOMIC)
#error "passinfra/core.hpp includes <atomic> (find the include with g++ -H)"
#endif
#endif

// ---- Boost.Hana -----------------------------------------------------------
// InstrumentSet and Sequential keep their elements in detail::FlatTuple
// (detail/inline.hpp); Hana's headers cost core.hpp's includers ~134 M of
// g++'s ~3,090 M instructions (issue 18). Every Hana header includes
// boost/hana/config.hpp, which includes boost/hana/version.hpp.
#if defined(BOOST_HANA_CONFIG_HPP) || defined(BOOST_HANA_VERSION_HPP)
#error "passinfra/core.hpp includes Boost.Hana (find the include with g++ -H)"
#endif

// Sanity: the check looks at the right macros (this standard library is one of the two).
#if !defined(__GLIBCXX__) && !defined(_LIBCPP_VERSION)
#error "core_is_light.cpp knows the <memory> guards of libstdc++ and libc++ only; add this library's"
#endif

// ---- the dynamic layer and the instruments ------------------------------
// The layers exist (else this test would prove nothing) ...
#if !__has_include(<passinfra/dynamic.hpp>) || !__has_include(<passinfra/dynamic/any_pass.hpp>)
#error "passinfra/dynamic.hpp is missing: update core_is_light.cpp"
#endif

// ... but none of their entities is declared after core.hpp. Probe: names in
// a namespace that passinfra nominates with a using-directive. Qualified
// lookup of passinfra::X finds a real passinfra::X first, and the probe's X
// only when passinfra declares none.
namespace core_is_light_probe {
template <class IR>
class AnyPass;
template <class IR>
class AnyInstrument;
template <class IR>
class DynamicSequential;
template <class IR>
class ContextRef;
template <class IR>
class PassRegistry;
class PassTimingInstrument;
}  // namespace core_is_light_probe

namespace passinfra {
using namespace core_is_light_probe;
}  // namespace passinfra

namespace core_is_light {

struct Ir {};
namespace probe = core_is_light_probe;

static_assert(std::is_same_v<passinfra::AnyPass<Ir>, probe::AnyPass<Ir>>,
              "passinfra/core.hpp declares passinfra::AnyPass: it includes the dynamic layer");
static_assert(std::is_same_v<passinfra::AnyInstrument<Ir>, probe::AnyInstrument<Ir>>,
              "passinfra/core.hpp declares passinfra::AnyInstrument: it includes the dynamic layer");
static_assert(std::is_same_v<passinfra::DynamicSequential<Ir>, probe::DynamicSequential<Ir>>,
              "passinfra/core.hpp declares passinfra::DynamicSequential: it includes the dynamic layer");
static_assert(std::is_same_v<passinfra::ContextRef<Ir>, probe::ContextRef<Ir>>,
              "passinfra/core.hpp declares passinfra::ContextRef: it includes the dynamic layer");
static_assert(std::is_same_v<passinfra::PassRegistry<Ir>, probe::PassRegistry<Ir>>,
              "passinfra/core.hpp declares passinfra::PassRegistry: it includes the dynamic layer");
static_assert(std::is_same_v<passinfra::PassTimingInstrument, probe::PassTimingInstrument>,
              "passinfra/core.hpp declares passinfra::PassTimingInstrument: it includes the instruments");

// DynamicInstruments is forward-declared by the core (PassContext<IR>'s
// default); it must stay incomplete here.
template <class T>
concept Complete = requires { sizeof(T); };
static_assert(!Complete<passinfra::DynamicInstruments<Ir>>,
              "passinfra/core.hpp defines passinfra::DynamicInstruments: it includes the dynamic layer");
// Sanity: the probe sees a complete core type as complete.
static_assert(Complete<passinfra::PassInfo>);

}  // namespace core_is_light
