// python/src/instrument.cpp — Python instruments as AnyInstrument<IR>, and the
// library's instruments bound to Python.
//
// A Python instrument becomes a PyInstrument<Hooks>, Hooks being the hooks its
// object has (hasattr): the hooks it lacks are absent from the C++ type, so
// AnyInstrument's hook mask leaves them out and they are never called.
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
}

}  // namespace passinfra_py
