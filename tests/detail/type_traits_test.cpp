// passinfra/detail/inline.hpp's type traits: the same answers as the
// standard ones they stand in for (the pass concepts ask them for every pass
// of a Sequential; issue 18).
#include <doctest/doctest.h>

#include <concepts>
#include <string>
#include <type_traits>

#include <passinfra/detail/inline.hpp>

namespace {

struct Plain {};
struct Abstract {
  virtual void f() = 0;
};
struct NonMovable {
  NonMovable() = default;
  NonMovable(NonMovable&&) = delete;
};
struct Explicit {
  explicit Explicit(int) {}
};
struct FromInt {
  FromInt(int) {}  // NOLINT(google-explicit-constructor)
};
struct OnlyImplicit {
  operator int() const { return 0; }  // NOLINT(google-explicit-constructor)
};
enum class Scoped { a };
union U {
  int i;
};

template <class T>
constexpr bool same_object_answer() {
  using passinfra::detail::is_object_type;
  return is_object_type<T> == std::is_object_v<T> && is_object_type<const T> == std::is_object_v<const T> &&
         is_object_type<volatile T> == std::is_object_v<volatile T>;
}

template <class From, class To>
constexpr bool same_convertible_answer() {
  return passinfra::detail::convertible_to_type<From, To> == std::convertible_to<From, To>;
}

}  // namespace

TEST_CASE("detail/type_traits: is_object_type answers as std::is_object_v") {
  static_assert(same_object_answer<int>());
  static_assert(same_object_answer<void>());
  static_assert(same_object_answer<int&>());
  static_assert(same_object_answer<int&&>());
  static_assert(same_object_answer<void()>());
  static_assert(same_object_answer<void() const>());
  static_assert(same_object_answer<void (*)()>());
  static_assert(same_object_answer<int[3]>());
  static_assert(same_object_answer<int[]>());
  static_assert(same_object_answer<Plain>());
  static_assert(same_object_answer<Abstract>());
  static_assert(same_object_answer<U>());
  static_assert(same_object_answer<Scoped>());
  static_assert(same_object_answer<std::nullptr_t>());
  static_assert(same_object_answer<int Plain::*>());
  static_assert(same_object_answer<std::string>());
  CHECK(passinfra::detail::is_object_type<Plain>);
  CHECK_FALSE(passinfra::detail::is_object_type<const volatile void>);
}

TEST_CASE("detail/type_traits: convertible_to_type answers as std::convertible_to") {
  static_assert(same_convertible_answer<int, long>());
  static_assert(same_convertible_answer<int, Explicit>());  // explicit only: no
  static_assert(same_convertible_answer<int, FromInt>());   // implicit: yes
  static_assert(same_convertible_answer<OnlyImplicit, int>());
  static_assert(same_convertible_answer<NonMovable, NonMovable>());  // from an xvalue, as std::declval gives
  static_assert(same_convertible_answer<NonMovable&, NonMovable>());
  static_assert(same_convertible_answer<const Plain&, Plain>());
  static_assert(same_convertible_answer<Plain&&, Plain>());
  static_assert(same_convertible_answer<Plain, Plain&>());
  static_assert(same_convertible_answer<Plain, const Plain&>());
  static_assert(same_convertible_answer<int, std::string>());
  static_assert(same_convertible_answer<const char*, std::string>());
  static_assert(same_convertible_answer<Abstract&, Abstract&>());
  static_assert(same_convertible_answer<void, int>());
  static_assert(same_convertible_answer<int*, void*>());
  static_assert(same_convertible_answer<void*, int*>());
  CHECK(passinfra::detail::convertible_to_type<const char*, std::string>);
  CHECK_FALSE(passinfra::detail::convertible_to_type<int, Explicit>);
}
