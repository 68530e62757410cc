// PassFilter and TextSink: what the printing instruments look at and where they write.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include <passinfra/instruments/output.hpp>

#include "support/recorder.hpp"

using namespace pitest;
using passinfra::PassFilter;
using passinfra::TextSink;

TEST_CASE("PassFilter: all by default, a list matches exact names only") {
  CHECK(PassFilter{}.matches("anything"));
  CHECK(PassFilter{}.matches_all());
  CHECK(PassFilter::all().matches(""));
  const PassFilter some{"InferType", "FoldConstant"};
  CHECK(some.matches("InferType"));
  CHECK(some.matches("FoldConstant"));
  CHECK_FALSE(some.matches("inferType"));
  CHECK_FALSE(some.matches("InferTyp"));
  CHECK_FALSE(some.matches_all());
  CHECK_FALSE(PassFilter::only({}).matches("InferType"));
  CHECK(PassFilter::only({"A"}).matches("A"));
}

TEST_CASE("TextSink: a stream gets the text and one newline; the log gets one message without it") {
  std::ostringstream out;
  TextSink(out).write("one\ntwo");
  TextSink(out).write("three\n");
  CHECK(out.str() == "one\ntwo\nthree\n");

  LogCapture capture;
  TextSink().write("alpha\nbeta\n");
  TextSink(passinfra::LogLevel::warning).write("gamma");
  CHECK(capture.lines == std::vector<std::string>{"INFO alpha\nbeta", "WARNING gamma"});
  CHECK(TextSink().to_log());
  CHECK(TextSink(out).stream() == &out);
}
