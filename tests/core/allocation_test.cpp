// Zero heap allocations per static pipeline run (issue 6; DESIGN.md "Zero
// overhead"): a Sequential run under a static PassContext -- InstrumentSet<>,
// or static instruments held by value or by std::ref -- calls no operator new.
//
// This file replaces the global allocation functions of the whole test
// executable with counting versions that forward to malloc/free. They count
// only while a thread has armed them (AllocationCounter below), so every
// other test runs exactly as before. All forms are replaced -- plain, array,
// nothrow, aligned, sized delete -- so that a pointer never crosses between
// this malloc-based pair and another implementation; ASan and TSan intercept
// malloc/free underneath, so sanitizer builds keep their checks on the heap.
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>

namespace {

// Only the thread that armed the counter is counted (a thread_local bool has
// no dynamic initialization, so reading it inside operator new is safe).
thread_local bool counting_armed = false;
std::atomic<long> counted_allocations{0};

// Not inlined into the operators: g++ -Wmismatched-new-delete would see
// free() of a pointer that came from operator new at the call sites.
[[gnu::noinline]] void* allocate(std::size_t size, std::size_t alignment, bool nothrow) {
  if (counting_armed) counted_allocations.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  for (;;) {
    void* p = nullptr;
    if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      p = std::malloc(size);
    } else {
      // aligned_alloc wants a size that is a multiple of the alignment.
      p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    }
    if (p != nullptr) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    if (nothrow) {
      try {
        handler();
      } catch (...) {
        return nullptr;
      }
    } else {
      handler();
    }
  }
}

[[gnu::noinline]] void deallocate(void* p) noexcept { std::free(p); }

std::size_t align_of(std::align_val_t a) { return static_cast<std::size_t>(a); }

}  // namespace

// The replaceable global allocation functions ([new.delete]).
void* operator new(std::size_t n) { return allocate(n, 0, false); }
void* operator new[](std::size_t n) { return allocate(n, 0, false); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0, true); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, align_of(a), false); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, align_of(a), false); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, align_of(a), true);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, align_of(a), true);
}
void operator delete(void* p) noexcept { deallocate(p); }
void operator delete[](void* p) noexcept { deallocate(p); }
void operator delete(void* p, std::size_t) noexcept { deallocate(p); }
void operator delete[](void* p, std::size_t) noexcept { deallocate(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete(void* p, std::align_val_t) noexcept { deallocate(p); }
void operator delete[](void* p, std::align_val_t) noexcept { deallocate(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { deallocate(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { deallocate(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { deallocate(p); }

namespace {

// AllocationCounter: counts this thread's operator new calls from
// construction to count() (not across its own lifetime: doctest's CHECKs
// allocate and must not be counted).
class AllocationCounter {
 public:
  AllocationCounter() {
    counted_allocations.store(0, std::memory_order_relaxed);
    counting_armed = true;
  }
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  ~AllocationCounter() { counting_armed = false; }

  // count(): stops counting and returns the number of allocations.
  long count() {
    counting_armed = false;
    return counted_allocations.load(std::memory_order_relaxed);
  }
};

template <class T>
T* escape(T* p) {
  asm volatile("" : : "r"(p) : "memory");
  return p;
}

// An IR that does not allocate itself.
struct IR {
  int value = 0;
};

template <int K, int Opt = 0>
struct Add {
  static constexpr passinfra::PassInfo info{"Add", Opt};
  IR transform(IR ir, auto&) const {
    ir.value += K;
    return ir;
  }
};

struct Setup {
  static constexpr passinfra::PassInfo info{"Setup", 0};
  IR transform(IR ir, auto&) const {
    ir.value *= 2;
    return ir;
  }
};

struct NeedsSetup {
  static constexpr passinfra::PassInfo info{"NeedsSetup", 1};
  using required = passinfra::requires_passes<Setup>;
  IR transform(IR ir, auto&) const {
    ir.value += 1000;
    return ir;
  }
};

// A pass that runs another pass itself, under the context it was given.
struct Nesting {
  static constexpr passinfra::PassInfo info{"Nesting", 0};
  IR transform(IR ir, auto& ctx) const { return passinfra::run(Add<7>{}, ir, ctx); }
};

auto lambda_pass = passinfra::module_pass({"Lambda", 0}, [](IR ir) {
  ir.value -= 1;
  return ir;
});

// The pipeline: gated children, a required pass, a nested pass run, a nested
// Sequential, a module_pass from a lambda, a child disabled by opt_level.
using Inner = passinfra::Sequential<Add<10>, Add<20, 1>>;
using Pipeline = passinfra::Sequential<Add<1>, NeedsSetup, Nesting, Inner, decltype(lambda_pass), Add<100, 3>>;

Pipeline make_pipeline() { return Pipeline(Add<1>{}, NeedsSetup{}, Nesting{}, Inner{}, lambda_pass, Add<100, 3>{}); }

IR run_pipeline(const Pipeline& pipeline, auto& ctx) { return passinfra::run(pipeline, IR{1}, ctx); }

// All five hooks, and passinfra's run_after_pass_failed (which makes `run`
// take its try/catch path): counts into plain integers.
struct AllHooks {
  long events = 0;
  void enter_pass_ctx() { ++events; }
  void exit_pass_ctx() { ++events; }
  bool should_run(const IR&, const passinfra::PassInfo&) {
    ++events;
    return true;
  }
  void run_before_pass(const IR&, const passinfra::PassInfo&) { ++events; }
  void run_after_pass(const IR&, const passinfra::PassInfo&) { ++events; }
  void run_after_pass_failed(const passinfra::PassInfo&, const std::exception_ptr&) { ++events; }
};

// A recording instrument whose storage is reserved before the run.
struct Recorder {
  std::vector<std::string_view>* names;
  void run_before_pass(const IR&, const passinfra::PassInfo& info) { names->push_back(info.name); }
};

// The expected result of run_pipeline at opt_level 2:
// 1 +1 =2, Setup *2 =4, NeedsSetup +1000 =1004, Nesting +7 =1011, Inner +10 +20 =1041, Lambda -1 =1040.
constexpr int expected_value = 1040;

}  // namespace

TEST_CASE("core/allocation: the counting operator new counts every form while armed, and only then") {
  struct alignas(64) Wide {
    char bytes[64];
  };
  long armed = 0;
  {
    AllocationCounter counter;
    // escape(): the optimizer may drop a new/delete pair whose pointer does
    // not escape; these must really call the operators.
    delete escape(new int(1));
    delete[] escape(new int[4]);
    delete escape(new (std::nothrow) int(2));
    delete escape(new Wide);
    std::vector<int> v(10);
    escape(v.data());
    armed = counter.count();
  }
  CHECK(armed == 5);
  long disarmed = 0;
  {
    AllocationCounter counter;
    (void)counter.count();  // disarms
    delete escape(new int(3));
    disarmed = counted_allocations.load();
  }
  CHECK(disarmed == 0);
}

TEST_CASE("core/allocation: a static Sequential run with InstrumentSet<> allocates nothing") {
  const Pipeline pipeline = make_pipeline();
  auto ctx = passinfra::make_pass_context<IR>({});
  // Names listed: PassEnabled takes its by-name path, which must not allocate either.
  auto named =
      passinfra::make_pass_context<IR>({.opt_level = 2, .required_pass = {"Add"}, .disabled_pass = {"Lambda"}});
  IR plain, by_name, scoped;
  long allocations = 0;
  {
    AllocationCounter counter;
    plain = run_pipeline(pipeline, ctx);
    by_name = run_pipeline(pipeline, named);
    scoped = ctx.with([&] { return run_pipeline(pipeline, ctx); });
    allocations = counter.count();
  }
  CHECK(allocations == 0);
  CHECK(plain.value == expected_value);
  CHECK(scoped.value == expected_value);
  CHECK(by_name.value == expected_value + 1 + 100);  // Lambda disabled; Add<100, 3> required
}

TEST_CASE("core/allocation: a static Sequential run with static instruments allocates nothing") {
  const Pipeline pipeline = make_pipeline();
  AllHooks by_ref;
  std::vector<std::string_view> names;
  names.reserve(64);
  Recorder recorder{&names};
  auto ctx = passinfra::make_pass_context<IR>({}, std::ref(by_ref), AllHooks{}, recorder);
  IR out, scoped;
  long allocations = 0;
  {
    AllocationCounter counter;
    out = run_pipeline(pipeline, ctx);
    {
      auto scope = ctx.enter();  // enter and exit hooks
      scoped = run_pipeline(pipeline, ctx);
    }
    allocations = counter.count();
  }
  CHECK(allocations == 0);
  CHECK(out.value == expected_value);
  CHECK(scoped.value == expected_value);
  CHECK(by_ref.events > 0);
  CHECK(ctx.instruments().get<1>().events == by_ref.events);
  CHECK(names.size() == 2 * 10);  // sequential, Add, Setup, NeedsSetup, Nesting, Add<7>, Inner, Add, Add, Lambda
}

TEST_CASE("core/allocation: PassTimingInstrument in a static set allocates nothing in steady state") {
  const Pipeline pipeline = make_pipeline();
  passinfra::PassTimingInstrument timing;
  auto ctx = passinfra::make_pass_context<IR>({}, std::ref(timing));
  (void)run_pipeline(pipeline, ctx);  // the first run on a thread makes its buffer
  timing.clear();                     // keeps the buffer's capacity
  IR out;
  long allocations = 0;
  {
    AllocationCounter counter;
    out = run_pipeline(pipeline, ctx);
    allocations = counter.count();
  }
  CHECK(allocations == 0);
  CHECK(out.value == expected_value);
  CHECK(timing.profile().size() == 1);  // the top-level Sequential
}

// A parent of IR units, for nests: units() allocates the slot vector (the IR's
// own cost); a serial Nest must add nothing to it (docs/spec.md §11.12).
namespace {
struct Units {
  std::vector<IR> items;
};
}  // namespace

template <>
struct passinfra::unit_traits<Units, IR> {
  static std::vector<passinfra::UnitSlot<IR>> units(const Units& p) {
    std::vector<passinfra::UnitSlot<IR>> out;
    out.reserve(p.items.size());
    for (const IR& ir : p.items) out.push_back({"@f", ir});  // a short name: no allocation
    return out;
  }
  static Units replace_units(Units p, std::vector<passinfra::UnitSlot<IR>> slots) {
    for (std::size_t i = 0; i < slots.size(); ++i) p.items[i] = slots[i].ir;
    return p;
  }
};

TEST_CASE("core/allocation: a serial Nest allocates only what the IR's units() and replace_units() do") {
  using Traits = passinfra::unit_traits<Units, IR>;
  const passinfra::Nest<IR, Add<1>, NeedsSetup, Nesting, Inner> nest;
  AllHooks hooks;
  auto ctx = passinfra::make_pass_context<Units>({}, std::ref(hooks));
  Units by_nest{std::vector<IR>(8, IR{1})};
  Units by_hand{std::vector<IR>(8, IR{1})};
  long nest_allocations = 0;
  long hand_allocations = 0;
  {
    AllocationCounter counter;
    by_nest = passinfra::run(nest, std::move(by_nest), ctx);
    nest_allocations = counter.count();
  }
  {
    AllocationCounter counter;
    auto slots = Traits::units(by_hand);
    for (auto& s : slots) s.ir.value = ((s.ir.value + 1) * 2 + 1000 + 7) + 10 + 20;
    by_hand = Traits::replace_units(std::move(by_hand), std::move(slots));
    hand_allocations = counter.count();
  }
  CHECK(hand_allocations == 1);  // the slot vector
  CHECK(nest_allocations == hand_allocations);
  for (std::size_t i = 0; i < 8; ++i) CHECK(by_nest.items[i].value == by_hand.items[i].value);
  CHECK(hooks.events > 0);
}
