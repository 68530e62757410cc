// examples/tutorial.hpp — small helpers shared by the tutorial examples.
//
// tutorial::section(title)           prints a tutorial section header: a blank line, the
//                                    title and a rule under it
// tutorial::LogLines(stream)         while alive, every passinfra log line (INFO and above)
//                                    goes to `stream` as "[passinfra] INFO: <message>"
//
// passinfra's default log sink shows WARNING and above on stderr and drops INFO
// (SPEC §9). TVM writes its LOG(INFO) lines (PrintIR's module, the instrument
// failure notes) to stderr; the examples install a LogLines sink so they are seen.
#pragma once

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include <passinfra/core/log.hpp>

namespace tutorial {

// section(title): "\n<title>\n------" (the rule as long as the title).
inline void section(std::string_view title) {
  std::cout << '\n' << title << '\n' << std::string(title.size(), '-') << '\n';
}

// LogLines: a passinfra log sink printing INFO and above to a stream.
class LogLines {
 public:
  explicit LogLines(std::ostream& out)
      : scoped_([&out](passinfra::LogLevel level, std::string_view message) {
          if (level < passinfra::LogLevel::info) return;
          std::cout.flush();  // keep the order of stdout and stderr lines on a terminal
          out << "[passinfra] " << passinfra::to_string(level) << ": " << message << std::endl;
        }) {}

 private:
  passinfra::ScopedLogSink scoped_;
};

}  // namespace tutorial
