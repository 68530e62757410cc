// detail::unified_diff: passinfra's own LCS line diff, in GNU diff -u format.
#include <doctest/doctest.h>

#include <string>

#include <passinfra/detail/line_diff.hpp>

using passinfra::detail::unified_diff;

TEST_CASE("line_diff: equal texts give no diff") {
  CHECK(unified_diff("a\nb\n", "a\nb\n", "x", "y").empty());
  CHECK(unified_diff("", "", "x", "y").empty());
}

TEST_CASE("line_diff: one changed line, with three lines of context") {
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  const std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  CHECK(unified_diff(before, after, "old", "new") ==
        "--- old\n"
        "+++ new\n"
        "@@ -2,7 +2,7 @@\n"
        " 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST_CASE("line_diff: changes far apart make two hunks, close ones merge") {
  std::string before, after_far, after_near;
  for (int i = 1; i <= 20; ++i) before += std::to_string(i) + "\n";
  after_far = before;
  after_far.replace(after_far.find("2\n"), 2, "two\n");
  after_far.replace(after_far.find("\n18\n") + 1, 3, "eighteen\n");
  CHECK(unified_diff(before, after_far, "a", "b", 1) ==
        "--- a\n+++ b\n"
        "@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n"
        "@@ -17,3 +17,3 @@\n 17\n-18\n+eighteen\n 19\n");
  after_near = before;
  after_near.replace(after_near.find("\n4\n") + 1, 2, "four\n");
  after_near.replace(after_near.find("\n6\n") + 1, 2, "six\n");
  CHECK(unified_diff(before, after_near, "a", "b", 1) ==
        "--- a\n+++ b\n"
        "@@ -3,5 +3,5 @@\n 3\n-4\n+four\n 5\n-6\n+six\n 7\n");
}

TEST_CASE("line_diff: insertions and deletions at the ends, and empty sides") {
  CHECK(unified_diff("", "a\nb\n", "a", "b") == "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  CHECK(unified_diff("a\n", "", "a", "b") == "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n");
  CHECK(unified_diff("a\nb\n", "x\na\nb\n", "a", "b") == "--- a\n+++ b\n@@ -1,2 +1,3 @@\n+x\n a\n b\n");
  CHECK(unified_diff("a\nb\nc\n", "a\nc\n", "a", "b", 0) == "--- a\n+++ b\n@@ -2 +1,0 @@\n-b\n");
}

TEST_CASE("line_diff: a missing newline at the end is shown") {
  CHECK(unified_diff("a\nb", "a\nb\n", "x", "y") ==
        "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST_CASE("line_diff: the LCS keeps the common lines of a reordering") {
  CHECK(unified_diff("a\nb\nc\nd\n", "b\nc\na\nd\n", "x", "y") ==
        "--- x\n+++ y\n@@ -1,4 +1,4 @@\n-a\n b\n c\n+a\n d\n");
}
