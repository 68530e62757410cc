// Pass statistics (SPEC §13): Statistic, StatisticGroup, collect_statistics
// over static and dynamic pipelines, and the two output formats.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <passinfra/dynamic/statistics_report.hpp>
#include <passinfra/passinfra.hpp>

namespace {

using passinfra::Statistic;
using passinfra::StatisticList;

struct Counting {
  static constexpr passinfra::PassInfo info{"Counting", 0};
  Statistic visited{"visited", "Number of calls visited"};
  Statistic folded{"folded", "Number of calls folded"};
  StatisticList statistics() const { return {&folded, &visited}; }
  int transform(int ir, auto& /*ctx*/) const {
    ++visited;
    folded += 7;
    return ir + 1;
  }
};

struct Plain {
  static constexpr passinfra::PassInfo info{"Plain", 0};
  int transform(int ir, auto& /*ctx*/) const { return ir; }
};

// Counters registered at run time, by name.
struct Grouped {
  static constexpr passinfra::PassInfo info{"Grouped", 0};
  passinfra::StatisticGroup group;
  StatisticList statistics() const { return group.list(); }
  int transform(int ir, auto& /*ctx*/) const {
    group.get("ops." + std::to_string(ir % 2), "Number of ops of this kind") += 1;
    return ir + 1;
  }
};

static_assert(passinfra::HasStatistics<Counting>);
static_assert(!passinfra::HasStatistics<Plain>);

}  // namespace

TEST_CASE("Statistic: relaxed counts from const code, copies copy the value, reset") {
  const Statistic s{"n", "Number of things"};
  ++s;
  s += 41;
  CHECK(s.value() == 42);
  CHECK(s.name() == "n");
  CHECK(s.description() == "Number of things");
  Statistic copy = s;
  ++copy;
  CHECK(copy.value() == 43);
  CHECK(s.value() == 42);
  s.reset();
  CHECK(s.value() == 0);
}

TEST_CASE("Statistic: increments from many threads all count") {
  const Statistic s{"n", "d"};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) ++s;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(s.value() == 40000);
}

TEST_CASE("StatisticGroup: get registers once by name, the first description kept, addresses stable") {
  passinfra::StatisticGroup g;
  const Statistic& a = g.get("a", "first");
  const Statistic* address = &a;
  for (int i = 0; i < 100; ++i) g.get("x" + std::to_string(i), "more");
  const Statistic& again = g.get("a", "second");
  CHECK(&again == address);
  CHECK(again.description() == "first");
  CHECK(g.list().size() == 101);
  CHECK(g.list().front() == address);
  again += 3;
  passinfra::StatisticGroup copy = g;
  CHECK(copy.list().front()->value() == 3);
  CHECK(copy.list().front() != address);
}

TEST_CASE("collect_statistics: pipeline order, instances, required passes, static and dynamic nesting") {
  using IR = int;
  passinfra::PassRegistry<IR> registry;
  registry.add<Counting>();
  registry.add<Plain>();
  registry.add<Grouped>();
  auto pipeline = passinfra::parse_pipeline<IR>("sequential(Counting,Plain,sequential(Grouped,Counting))", registry);
  passinfra::PassContext<IR> ctx;
  CHECK(passinfra::run(pipeline, 0, ctx) == 3);
  CHECK(passinfra::run(pipeline, 0, ctx) == 3);  // the same instances: counts add up
  const auto entries = passinfra::collect_statistics(pipeline);
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].pass == "Counting");
  CHECK(entries[0].statistics == std::vector<passinfra::StatisticValue>{{"folded", "Number of calls folded", 14},
                                                                        {"visited", "Number of calls visited", 2}});
  CHECK(entries[1].pass == "Grouped");
  CHECK(entries[1].statistics == std::vector<passinfra::StatisticValue>{{"ops.1", "Number of ops of this kind", 2}});
  CHECK(entries[2].pass == "Counting");

  // Static Sequential children, and required AnyPasses given at construction.
  const passinfra::Sequential seq{Counting{}, Plain{}};
  CHECK(passinfra::collect_statistics(seq).size() == 1);
  const passinfra::AnyPass<IR> with_required(Plain{}, {passinfra::AnyPass<IR>(Counting{})});
  CHECK(passinfra::collect_statistics(with_required).size() == 1);
  CHECK(passinfra::collect_statistics(passinfra::AnyPass<IR>(Plain{})).empty());
}

// A Sequential of a thousand children: passes()'s std::tuple of that many
// is past g++'s template depth, so the walks over a pipeline go through
// for_each_child (this file would not compile otherwise).
TEST_CASE("collect_statistics: a static Sequential of 1000 children, and its AnyPass") {
  using IR = int;
  namespace mp = boost::mp11;
  using Long =
      mp::mp_rename<mp::mp_push_back<mp::mp_push_front<mp::mp_repeat_c<mp::mp_list<Plain>, 998>, Counting>, Grouped>,
                    passinfra::Sequential>;
  static_assert(Long::size == 1000);
  const Long seq;
  passinfra::PassContext<IR> ctx;
  CHECK(passinfra::run(seq, 0, ctx) == 2);
  const auto entries = passinfra::collect_statistics(seq);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].pass == "Counting");
  CHECK(entries[0].statistics == std::vector<passinfra::StatisticValue>{{"folded", "Number of calls folded", 7},
                                                                        {"visited", "Number of calls visited", 1}});
  CHECK(entries[1].pass == "Grouped");
  CHECK(entries[1].statistics == std::vector<passinfra::StatisticValue>{{"ops.1", "Number of ops of this kind", 1}});
  const passinfra::AnyPass<IR> erased(seq);
  CHECK(passinfra::collect_statistics(erased).size() == 2);
  CHECK(passinfra::run(erased, 0, ctx) == 2);
}

TEST_CASE("format_statistics: MLIR's list, merged by pass name, sorted, aligned") {
  const std::vector<passinfra::PassStatisticsEntry> entries = {
      {"InferType", {{"nodes", "Number of nodes typed", 3}}},
      {"FoldConstant", {{"visited", "Number of calls visited", 10}, {"folded", "Number of calls folded", 2}}},
      {"FoldConstant", {{"visited", "other text", 5}}},
  };
  const std::string rule = "===" + std::string(73, '-') + "===\n";
  CHECK(passinfra::format_statistics(entries) == rule + std::string(25, ' ') + "... Pass statistics report ...\n" +
                                                     rule +
                                                     "  FoldConstant\n"
                                                     "    (S)  2 folded  - Number of calls folded\n"
                                                     "    (S) 15 visited - Number of calls visited\n"
                                                     "  InferType\n"
                                                     "    (S) 3 nodes - Number of nodes typed\n"
                                                     "\n");
  CHECK(passinfra::format_statistics({}) ==
        rule + std::string(25, ' ') + "... Pass statistics report ...\n" + rule + "\n");
}

TEST_CASE("statistics_to_json: LLVM's -stats-json shape") {
  const std::vector<passinfra::PassStatisticsEntry> entries = {
      {"b", {{"x", "", 1}}}, {"a", {{"y", "", 2}, {"q\"", "", 3}}}, {"b", {{"x", "", 4}}}};
  CHECK(passinfra::statistics_to_json(entries) == "{\n\t\"a.q\\\"\": 3,\n\t\"a.y\": 2,\n\t\"b.x\": 5\n}\n");
  CHECK(passinfra::statistics_to_json({}) == "{\n}\n");
}
