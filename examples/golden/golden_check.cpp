// golden_check: runs an example and compares what it prints with golden files.
//
//   golden_check <golden.stdout> [--stderr <golden.stderr>] -- <program> [args...]
//
// Passes when the program exits 0 and its stdout (and, if given, stderr) match
// the golden files line for line. A golden line is literal text, except that
//   <us>    matches a whole number              (timing: microseconds)
//   <pct>   matches a number with two decimals  (timing: percentages)
// so a PassTimingInstrument line is written
//   \tFoldConstant: <us>us [<us>us] (<pct>%; <pct>%)
// and checks the pass name and the nesting depth, but not the times.
//
// With PASSINFRA_UPDATE_GOLDEN=1 in the environment it (re)writes the golden
// files from the program's output instead, turning the numbers of timing lines
// into <us> and <pct>; check the diff before committing it.
//
// POSIX only (popen, mkstemp); ctest runs it as golden.<example>.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A golden line as a regex: the text escaped, the placeholders as patterns.
std::regex line_pattern(const std::string& golden) {
  static const std::string special = R"(\^$.|?*+()[]{})";
  std::string re;
  for (std::size_t i = 0; i < golden.size();) {
    if (golden.compare(i, 4, "<us>") == 0) {
      re += "[0-9]+";
      i += 4;
    } else if (golden.compare(i, 5, "<pct>") == 0) {
      re += "[0-9]+\\.[0-9][0-9]";
      i += 5;
    } else {
      if (special.find(golden[i]) != std::string::npos) re += '\\';
      re += golden[i++];
    }
  }
  return std::regex(re);
}

bool line_matches(const std::string& golden, const std::string& actual) {
  if (golden.find("<us>") == std::string::npos && golden.find("<pct>") == std::string::npos) return golden == actual;
  return std::regex_match(actual, line_pattern(golden));
}

// A line as shown in a difference report (long lines cut).
std::string shown(const std::string& line) {
  return line.size() <= 200 ? line : line.substr(0, 200) + "... (" + std::to_string(line.size()) + " characters)";
}

// Compares; prints the first differences. True when equal.
bool compare(std::string_view what, const std::string& golden_path, const std::string& golden,
             const std::string& actual) {
  const auto g = split_lines(golden);
  const auto a = split_lines(actual);
  int differences = 0;
  const std::size_t n = std::max(g.size(), a.size());
  for (std::size_t i = 0; i < n && differences < 5; ++i) {
    const bool have_g = i < g.size();
    const bool have_a = i < a.size();
    if (have_g && have_a && line_matches(g[i], a[i])) continue;
    if (differences++ == 0) std::cerr << what << " differs from " << golden_path << ":\n";
    std::cerr << "  line " << (i + 1) << ":\n"
              << "    expected: " << (have_g ? shown(g[i]) : "<end of output>") << "\n"
              << "    actual:   " << (have_a ? shown(a[i]) : "<end of output>") << "\n";
  }
  return differences == 0;
}

// Timing lines with their numbers replaced by placeholders.
std::string to_golden(const std::string& actual) {
  static const std::regex timing(
      R"(^(\t*[^\t:]+): [0-9]+us \[[0-9]+us\] \([0-9]+\.[0-9][0-9]%; [0-9]+\.[0-9][0-9]%\)$)");
  std::string out;
  for (const auto& line : split_lines(actual)) {
    out += std::regex_replace(line, timing, "$1: <us>us [<us>us] (<pct>%; <pct>%)");
    out += '\n';
  }
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

int main(int argc, char** argv) {
  std::string stdout_golden, stderr_golden;
  std::vector<std::string> command;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--stderr" && i + 1 < argc) {
      stderr_golden = argv[++i];
    } else if (stdout_golden.empty()) {
      stdout_golden = arg;
    } else {
      std::cerr << "golden_check: unexpected argument '" << arg << "'\n";
      return 2;
    }
  }
  for (; i < argc; ++i) command.emplace_back(argv[i]);
  if (stdout_golden.empty() || command.empty()) {
    std::cerr << "usage: golden_check <golden.stdout> [--stderr <golden.stderr>] -- <program> [args...]\n";
    return 2;
  }

  char stderr_path[] = "/tmp/golden_check_stderr_XXXXXX";
  const int fd = mkstemp(stderr_path);
  if (fd < 0) {
    std::perror("golden_check: mkstemp");
    return 2;
  }
  close(fd);

  std::string shell;
  for (const auto& c : command) shell += shell_quote(c) + " ";
  shell += "2>" + shell_quote(stderr_path);
  std::fflush(nullptr);
  FILE* pipe = popen(shell.c_str(), "r");
  if (!pipe) {
    std::perror("golden_check: popen");
    return 2;
  }
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  bool read_ok = true;
  const std::string err = read_file(stderr_path, read_ok);
  std::remove(stderr_path);

  bool ok = true;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "golden_check: " << command.front() << " did not exit with 0 (status " << status << ")\n"
              << "stderr:\n"
              << err;
    ok = false;
  }

  if (const char* update = std::getenv("PASSINFRA_UPDATE_GOLDEN"); update && std::string_view(update) == "1") {
    std::ofstream(stdout_golden, std::ios::binary) << to_golden(out);
    if (!stderr_golden.empty()) std::ofstream(stderr_golden, std::ios::binary) << to_golden(err);
    std::cout << "golden_check: wrote " << stdout_golden << (stderr_golden.empty() ? "" : " and " + stderr_golden)
              << "\n";
    return ok ? 0 : 1;
  }

  bool found = true;
  const std::string golden_out = read_file(stdout_golden, found);
  if (!found) {
    std::cerr << "golden_check: cannot read " << stdout_golden << "\n";
    return 2;
  }
  ok = compare("stdout", stdout_golden, golden_out, out) && ok;
  if (!stderr_golden.empty()) {
    const std::string golden_err = read_file(stderr_golden, found);
    if (!found) {
      std::cerr << "golden_check: cannot read " << stderr_golden << "\n";
      return 2;
    }
    ok = compare("stderr", stderr_golden, golden_err, err) && ok;
  }
  if (ok) std::cout << "golden_check: " << command.front() << " matches " << stdout_golden << "\n";
  return ok ? 0 : 1;
}
