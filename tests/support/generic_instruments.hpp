// tests/support/generic_instruments.hpp — small instruments generic over the IR.
//
// VetoNames{names}          should_run says no for these pass names
// HookLog{events}           records "<hook> <pass>" for should_run, before, after, after_failed
// ThrowAt{hook, pass}       throws TestError(9) from that hook for that pass name
#pragma once

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

namespace pitest {

struct VetoNames {
  std::vector<std::string> names;
  template <class IR>
  bool should_run(const IR&, const passinfra::PassInfo& info) const {
    return std::find(names.begin(), names.end(), info.name) == names.end();
  }
};

struct HookLog {
  std::vector<std::string>* events = nullptr;
  template <class IR>
  bool should_run(const IR&, const passinfra::PassInfo& info) {
    events->push_back("should_run " + std::string(info.name));
    return true;
  }
  template <class IR>
  void run_before_pass(const IR&, const passinfra::PassInfo& info) {
    events->push_back("before " + std::string(info.name));
  }
  template <class IR>
  void run_after_pass(const IR&, const passinfra::PassInfo& info) {
    events->push_back("after " + std::string(info.name));
  }
  void run_after_pass_failed(const passinfra::PassInfo& info, std::exception_ptr) {
    events->push_back("after_failed " + std::string(info.name));
  }
};

enum class At { should_run, before, after };

struct ThrowAt {
  At at;
  std::string pass;
  template <class IR>
  bool should_run(const IR&, const passinfra::PassInfo& info) const {
    if (at == At::should_run && info.name == pass) throw_test_error(9, "ThrowAt should_run " + pass);
    return true;
  }
  template <class IR>
  void run_before_pass(const IR&, const passinfra::PassInfo& info) const {
    if (at == At::before && info.name == pass) throw_test_error(9, "ThrowAt before " + pass);
  }
  template <class IR>
  void run_after_pass(const IR&, const passinfra::PassInfo& info) const {
    if (at == At::after && info.name == pass) throw_test_error(9, "ThrowAt after " + pass);
  }
};

}  // namespace pitest
