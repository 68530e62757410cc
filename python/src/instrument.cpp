// python/src/instrument.cpp — Python instruments as AnyInstrument<IR>, and the
// library's instruments bound to Python.
//
// A Python instrument becomes a PyInstrument<Hooks>, Hooks being the hooks its
// object has (hasattr): the hooks it lacks are absent from the C++ type, so
// AnyInstrument's hook mask leaves them out and they are never called.
#include <array>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pybind11/stl/filesystem.h>

#include "common.hpp"

namespace passinfra_py {

namespace {

enum Hook : unsigned {
  enter_hook = 1u << 0,
  exit_hook = 1u << 1,
  should_run_hook = 1u << 2,
  before_hook = 1u << 3,
  after_hook = 1u << 4,
};
constexpr unsigned hook_count = 5;
constexpr std::array<const char*, hook_count> hook_names{"enter_pass_ctx", "exit_pass_ctx", "should_run",
                                                         "run_before_pass", "run_after_pass"};

template <unsigned Hooks>
class PyInstrument {
 public:
  PyInstrument(py::object object, std::string name) : object_(std::move(object)), name_(std::move(name)) {}

  std::string name() const { return name_; }

  void enter_pass_ctx()
    requires((Hooks & enter_hook) != 0)
  {
    py::gil_scoped_acquire gil;
    object_.get().attr("enter_pass_ctx")();
  }
  void exit_pass_ctx()
    requires((Hooks & exit_hook) != 0)
  {
    py::gil_scoped_acquire gil;
    object_.get().attr("exit_pass_ctx")();
  }
  bool should_run(const IR& ir, const passinfra::PassInfo& info)
    requires((Hooks & should_run_hook) != 0)
  {
    py::gil_scoped_acquire gil;
    py::object result = object_.get().attr("should_run")(ir, PyPassInfo::from(info));
    const int truth = PyObject_IsTrue(result.ptr());
    if (truth < 0) throw py::error_already_set();
    return truth == 1;
  }
  void run_before_pass(const IR& ir, const passinfra::PassInfo& info)
    requires((Hooks & before_hook) != 0)
  {
    py::gil_scoped_acquire gil;
    object_.get().attr("run_before_pass")(ir, PyPassInfo::from(info));
  }
  void run_after_pass(const IR& ir, const passinfra::PassInfo& info)
    requires((Hooks & after_hook) != 0)
  {
    py::gil_scoped_acquire gil;
    object_.get().attr("run_after_pass")(ir, PyPassInfo::from(info));
  }

 private:
  GilRef object_;
  std::string name_;
};

// An object with none of the hooks: AnyInstrument needs one, so it gets an
// empty exit_pass_ctx (never a call into Python).
class PyInstrumentWithoutHooks {
 public:
  PyInstrumentWithoutHooks(py::object object, std::string name) : object_(std::move(object)), name_(std::move(name)) {}
  std::string name() const { return name_; }
  void exit_pass_ctx() {}

 private:
  GilRef object_;
  std::string name_;
};

using MakeInstrument = Instrument (*)(py::object, std::string);

template <unsigned Hooks>
Instrument make_py_instrument(py::object object, std::string name) {
  if constexpr (Hooks == 0) {
    return Instrument(std::make_shared<PyInstrumentWithoutHooks>(std::move(object), std::move(name)));
  } else {
    return Instrument(std::make_shared<PyInstrument<Hooks>>(std::move(object), std::move(name)));
  }
}

template <std::size_t... Is>
constexpr std::array<MakeInstrument, sizeof...(Is)> make_table(std::index_sequence<Is...>) {
  return {&make_py_instrument<static_cast<unsigned>(Is)>...};
}
constexpr auto instrument_makers = make_table(std::make_index_sequence<1u << hook_count>{});

unsigned hooks_of(const py::handle& object) {
  unsigned hooks = 0;
  for (unsigned i = 0; i < hook_count; ++i)
    if (py::hasattr(object, hook_names[i])) hooks |= 1u << i;
  return hooks;
}

// The library's instruments, bound to Python.
struct PyPassTimingInstrument final : InstrumentBase {
  std::shared_ptr<passinfra::PassTimingInstrument> timing = std::make_shared<passinfra::PassTimingInstrument>();
  Instrument any() const override { return Instrument(timing); }
};

// The printing instruments: they write to passinfra's log at INFO (which
// `import passinfra` sends to stderr), for the passes named (None: every pass).
template <class T>
struct PyPrinter final : InstrumentBase {
  std::shared_ptr<T> printer;
  explicit PyPrinter(std::shared_ptr<T> p) : printer(std::move(p)) {}
  Instrument any() const override { return Instrument(printer); }
};

passinfra::PassFilter filter_of(const std::optional<std::vector<std::string>>& passes) {
  return passes ? passinfra::PassFilter::only(*passes) : passinfra::PassFilter();
}

template <class T>
void bind_printer(py::module_& m, const char* name, const char* doc) {
  py::class_<PyPrinter<T>, InstrumentBase>(m, name, doc)
      .def(py::init([](const std::optional<std::vector<std::string>>& passes) {
             return PyPrinter<T>(std::make_shared<T>(filter_of(passes)));
           }),
           py::arg("passes") = py::none())
      .def_property_readonly("printed", [](const PyPrinter<T>& self) { return self.printer->printed(); });
}

// PassBisect: LLVM's -opt-bisect-limit. `limit` None or -1 (LLVM's default)
// runs every pass; its BISECT lines go to passinfra's log at `log_level`.
struct PyPassBisect final : InstrumentBase {
  std::shared_ptr<passinfra::PassBisect> bisect;
  std::string log_level;
  Instrument any() const override { return Instrument(bisect); }
};

std::size_t bisect_limit_of(const std::optional<long long>& limit) {
  if (!limit || *limit == -1) return passinfra::PassBisect::no_limit;
  if (*limit < 0) {
    throw py::value_error("PassBisect: limit expected None, -1 (no limit) or a count >= 0; got " +
                          std::to_string(*limit));
  }
  return static_cast<std::size_t>(*limit);
}

py::object bisect_limit_to_python(std::size_t limit) {
  if (limit == passinfra::PassBisect::no_limit) return py::none();
  return py::int_(limit);
}

passinfra::LogLevel log_level_of(const std::string& level, const char* who) {
  for (auto l : {passinfra::LogLevel::debug, passinfra::LogLevel::info, passinfra::LogLevel::warning,
                 passinfra::LogLevel::error}) {
    if (passinfra::to_string(l) == level) return l;
  }
  throw py::value_error(std::string(who) + ": log_level expected one of 'DEBUG', 'INFO', 'WARNING', 'ERROR'; got '" +
                        level + "'");
}

// The text a report gives a Python exception: Python's own
// traceback.format_exception_only ("ValueError: message"), not pybind11's
// what(), which appends the whole interpreter stack. Other exceptions: as is.
std::exception_ptr described_for_python(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (py::error_already_set& e) {
    py::gil_scoped_acquire gil;
    try {
      py::object lines = py::module_::import("traceback").attr("format_exception_only")(e.type(), e.value());
      std::string text = py::str("").attr("join")(lines).cast<std::string>();
      while (!text.empty() && text.back() == '\n') text.pop_back();
      return std::make_exception_ptr(std::runtime_error(text));
    } catch (py::error_already_set& failed) {
      failed.discard_as_unraisable("passinfra.instrument.CrashReproducer: formatting the exception");
      return error;
    }
  } catch (...) {
    return error;
  }
}

// CrashReproducer for Python: the library's CrashReproducer, whose failure
// hook sees a Python exception as its Python text (described_for_python). The
// same exception_ptr gets the same substitute, so the reproducer still writes
// one report per exception (for the innermost failing pass).
class CrashReproducerForPython {
 public:
  explicit CrashReproducerForPython(std::shared_ptr<passinfra::CrashReproducer> reproducer)
      : reproducer_(std::move(reproducer)) {}

  std::string_view name() const noexcept { return reproducer_->name(); }
  void exit_pass_ctx() noexcept {
    reproducer_->exit_pass_ctx();
    original_ = nullptr;
    substitute_ = nullptr;
  }
  void run_before_pass(const IR& ir, const passinfra::PassInfo& info) { reproducer_->run_before_pass(ir, info); }
  void run_after_pass(const IR& ir, const passinfra::PassInfo& info) noexcept { reproducer_->run_after_pass(ir, info); }
  void run_after_pass_failed(const passinfra::PassInfo& info, const std::exception_ptr& error) {
    if (error != original_) {
      original_ = error;
      substitute_ = described_for_python(error);
    }
    reproducer_->run_after_pass_failed(info, substitute_);
  }

 private:
  std::shared_ptr<passinfra::CrashReproducer> reproducer_;
  std::exception_ptr original_;
  std::exception_ptr substitute_;
};

// CrashReproducer: on a failing pass, the report (pass, error, pipeline, the
// pass's input IR) is written to `path`, replacing what was there.
struct PyCrashReproducer final : InstrumentBase {
  std::shared_ptr<passinfra::CrashReproducer> reproducer;
  std::shared_ptr<CrashReproducerForPython> adapter;
  std::filesystem::path path;
  Instrument any() const override { return Instrument(adapter); }
};

}  // namespace

Instrument to_instrument(const py::handle& object) {
  if (py::isinstance<InstrumentBase>(object)) return object.cast<const InstrumentBase&>().any();
  std::string name = py::str(py::type::of(object).attr("__name__"));
  const unsigned hooks = hooks_of(object);
  if (hooks == 0) {
    // Without a hook it must at least say it is an instrument.
    py::object base = py::module_::import("passinfra.instrument").attr("PassInstrument");
    if (!py::isinstance(object, base)) {
      throw py::type_error(
          "expected a pass instrument (a passinfra.instrument.PassInstrument, an object with one of "
          "the hooks enter_pass_ctx, exit_pass_ctx, should_run, run_before_pass, run_after_pass, "
          "or a C++ instrument); got a " +
          name);
    }
  }
  return instrument_makers[hooks](py::reinterpret_borrow<py::object>(object), std::move(name));
}

void init_instrument(py::module_& m) {
  m.def(
      "instrument_hooks",
      [](const py::object& object) {
        // The hooks passinfra calls on `object`, as AnyInstrument sees them.
        py::list out;
        if (!py::isinstance<InstrumentBase>(object) && hooks_of(object) == 0) return out;  // placeholder
        Instrument instrument = to_instrument(object);
        if (instrument.has_enter_pass_ctx()) out.append("enter_pass_ctx");
        if (instrument.has_exit_pass_ctx()) out.append("exit_pass_ctx");
        if (instrument.has_should_run()) out.append("should_run");
        if (instrument.has_run_before_pass()) out.append("run_before_pass");
        if (instrument.has_run_after_pass()) out.append("run_after_pass");
        if (instrument.has_run_after_pass_failed()) out.append("run_after_pass_failed");
        return out;
      },
      py::arg("instrument"));

  py::class_<InstrumentBase>(m, "CppInstrument").def_property_readonly("name", [](const InstrumentBase& self) {
    return self.any().name();
  });

  py::class_<PyPassTimingInstrument, InstrumentBase>(m, "PassTimingInstrument")
      .def(py::init<>())
      .def("render", [](const PyPassTimingInstrument& self) { return self.timing->render(); })
      .def("render_list", [](const PyPassTimingInstrument& self) { return self.timing->render_list(); })
      .def(
          "to_chrome_trace_json",
          [](const PyPassTimingInstrument& self, int pid) { return self.timing->to_chrome_trace_json(pid); },
          py::arg("pid") = 1)
      .def("clear", [](PyPassTimingInstrument& self) { self.timing->clear(); });

  bind_printer<passinfra::PrintIRBefore>(m, "PrintIRBefore",
                                         "logs \"Before Running Pass: <name>\" and the IR before each pass");
  bind_printer<passinfra::PrintIRAfter>(m, "PrintIRAfter",
                                        "logs \"After Running Pass: <name>\" and the IR after each pass");
  py::class_<PyPrinter<passinfra::PrintIRChanged>, InstrumentBase>(
      m, "PrintIRChanged", "logs the IR (or a unified diff) after each pass that changed it")
      .def(py::init([](const std::optional<std::vector<std::string>>& passes, bool diff, std::size_t context) {
             passinfra::PrintIRChangedOptions options;
             options.diff = diff;
             options.context = context;
             return PyPrinter<passinfra::PrintIRChanged>(
                 std::make_shared<passinfra::PrintIRChanged>(filter_of(passes), passinfra::TextSink{}, options));
           }),
           py::arg("passes") = py::none(), py::arg("diff") = false, py::arg("context") = 3)
      .def_property_readonly("printed",
                             [](const PyPrinter<passinfra::PrintIRChanged>& self) { return self.printer->printed(); });

  py::class_<PyPassBisect, InstrumentBase>(
      m, "PassBisect",
      "runs passes 1..limit (numbered as should_run is asked) and skips the later ones, logging\n"
      "\"BISECT: running pass (k) <name>\" / \"BISECT: NOT running pass (k) <name>\" (LLVM's "
      "-opt-bisect-limit)")
      .def(py::init([](const std::optional<long long>& limit, const std::string& log_level) {
             const passinfra::LogLevel level = log_level_of(log_level, "PassBisect");
             PyPassBisect self;
             self.bisect = std::make_shared<passinfra::PassBisect>(bisect_limit_of(limit), passinfra::TextSink(level));
             self.log_level = log_level;
             return self;
           }),
           py::arg("limit") = py::none(), py::arg("log_level") = "INFO")
      .def_property(
          "limit", [](const PyPassBisect& self) { return bisect_limit_to_python(self.bisect->limit()); },
          [](PyPassBisect& self, const std::optional<long long>& limit) {
            self.bisect->set_limit(bisect_limit_of(limit));
          })
      .def_property_readonly("count", [](const PyPassBisect& self) { return self.bisect->count(); })
      .def_property_readonly("log_level", [](const PyPassBisect& self) { return self.log_level; })
      .def("reset", [](PyPassBisect& self) { self.bisect->reset(); });

  py::class_<passinfra::CrashReport>(
      m, "CrashReport", "what a CrashReproducer wrote: pass_name, error, pipeline, ir, unit (inside a nest)")
      .def(py::init(
               [](std::string pass_name, std::string error, std::string pipeline, std::string ir, std::string unit) {
                 return passinfra::CrashReport{std::move(pass_name), std::move(error), std::move(pipeline),
                                               std::move(ir), std::move(unit)};
               }),
           py::arg("pass_name"), py::arg("error"), py::arg("pipeline") = "", py::arg("ir") = "", py::arg("unit") = "")
      .def_readonly("pass_name", &passinfra::CrashReport::pass)
      .def_readonly("error", &passinfra::CrashReport::error)
      .def_readonly("pipeline", &passinfra::CrashReport::pipeline)
      .def_readonly("ir", &passinfra::CrashReport::ir)
      .def_readonly("unit", &passinfra::CrashReport::unit)
      .def("__eq__", [](const passinfra::CrashReport& a, const passinfra::CrashReport& b) { return a == b; })
      .def("__repr__", [](const passinfra::CrashReport& r) {
        return "CrashReport(pass_name=" + std::string(py::repr(py::str(r.pass))) +
               ", error=" + std::string(py::repr(py::str(r.error))) + ")";
      });

  m.def(
      "format_crash_report",
      [](const passinfra::CrashReport& report, const std::string& comment_prefix) {
        return passinfra::format_crash_report(report, comment_prefix);
      },
      py::arg("report"), py::arg("comment_prefix") = "// ");
  m.def(
      "parse_crash_report",
      [](const std::string& text, const std::string& comment_prefix) {
        return passinfra::parse_crash_report(text, comment_prefix);
      },
      py::arg("text"), py::arg("comment_prefix") = "// ");

  py::class_<PyCrashReproducer, InstrumentBase>(
      m, "CrashReproducer",
      "when a pass fails, writes to `path` a report naming the pass and the error, with the pass's\n"
      "input IR (a file tinyir.parse reads); the exception continues unchanged")
      .def(py::init([](std::filesystem::path path, std::string pipeline, std::string comment_prefix) {
             passinfra::CrashReproducerOptions options;
             options.pipeline = std::move(pipeline);
             options.comment_prefix = std::move(comment_prefix);
             PyCrashReproducer self;
             self.reproducer = std::make_shared<passinfra::CrashReproducer>(path, std::move(options));
             self.adapter = std::make_shared<CrashReproducerForPython>(self.reproducer);
             self.path = std::move(path);
             return self;
           }),
           py::arg("path"), py::arg("pipeline") = "", py::arg("comment_prefix") = "// ")
      .def_property_readonly("path", [](const PyCrashReproducer& self) { return self.path; })
      .def_property_readonly("pipeline",
                             [](const PyCrashReproducer& self) { return self.reproducer->options().pipeline; })
      .def_property_readonly("comment_prefix",
                             [](const PyCrashReproducer& self) { return self.reproducer->options().comment_prefix; })
      .def("reports", [](const PyCrashReproducer& self) { return self.reproducer->reports(); })
      .def("last_report", [](const PyCrashReproducer& self) { return self.reproducer->last_report(); });
}

}  // namespace passinfra_py
