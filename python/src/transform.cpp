// python/src/transform.cpp — passes, Sequential, PassContext, the registry.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common.hpp"

namespace passinfra_py {

namespace {

// The Python PassContext objects alive, by the context they hold (read and
// written with the GIL held).
std::unordered_map<const Context*, PyContext*>& contexts() {
  static std::unordered_map<const Context*, PyContext*> map;
  return map;
}

// A Python value as a config / pass option value; TypeError naming `key`.
passinfra::ConfigValue to_config_value(const std::string& key, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<std::int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    passinfra::StringList list;
    for (const auto& item : value) {
      if (!py::isinstance<py::str>(item)) {
        throw py::type_error("option '" + key + "': a list option holds strings; got an element of type " +
                             std::string(py::str(py::type::of(item).attr("__name__"))));
      }
      list.push_back(item.cast<std::string>());
    }
    return list;
  }
  throw py::type_error("option '" + key + "': expected bool, int, float, str or a list of str; got " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

py::object from_config_value(const passinfra::ConfigValue& value) {
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, value);
}

passinfra::Config to_config(const py::dict& config) {
  passinfra::Config out;
  for (const auto& [key, value] : config) {
    if (!py::isinstance<py::str>(key)) throw py::type_error("PassContext: config keys are str");
    std::string k = key.cast<std::string>();
    out.push_back({k, to_config_value(k, value)});
  }
  return out;
}

passinfra::PassOptions to_options(const py::dict& options) {
  passinfra::PassOptions out;
  for (const auto& [key, value] : options) {
    std::string k = py::str(key);
    out.emplace(k, to_config_value(k, value));
  }
  return out;
}

// `pass` with its requirements, given by name, resolved through the registry.
Pass with_required(Pass pass, const std::vector<std::string>& required) {
  if (required.empty()) return pass;
  std::vector<Pass> passes;
  passes.reserve(required.size());
  for (const auto& name : required) passes.push_back(registry().create(name));
  return Pass(std::move(pass), std::move(passes));
}

std::string type_name(const py::handle& object) { return py::str(py::type::of(object).attr("__name__")); }

// The IR a Python pass body returned, or a TypeError naming the pass.
template <class T>
T result_of(const py::object& result, const std::string& pass, const char* expected) {
  if (!py::isinstance<T>(result)) {
    throw py::type_error("pass '" + pass + "' returned a " + type_name(result) + "; expected " + expected);
  }
  return result.cast<T>();
}

// A pass whose body is a Python callable.
Pass make_module_pass(py::function fn, const std::string& name, int opt_level,
                      const std::vector<std::string>& required) {
  auto owned_name = std::make_shared<const std::string>(name);
  GilRef body(std::move(fn));
  auto pass = passinfra::module_pass(passinfra::PassInfo(*owned_name, opt_level),
                                     [owned_name, body](IR ir, auto& /*ctx*/) -> IR {
                                       py::gil_scoped_acquire gil;
                                       py::object result = body.get()(std::move(ir), current_context_object());
                                       return result_of<IR>(result, *owned_name, "a passinfra.IRModule");
                                     });
  return with_required(Pass(std::move(pass)), required);
}

Pass make_function_pass(py::function fn, const std::string& name, int opt_level,
                        const std::vector<std::string>& required) {
  auto owned_name = std::make_shared<const std::string>(name);
  GilRef body(std::move(fn));
  auto pass = passinfra::function_pass(
      passinfra::PassInfo(*owned_name, opt_level),
      [owned_name, body](tinyir::Function func, const IR& mod, auto& /*ctx*/) -> tinyir::Function {
        py::gil_scoped_acquire gil;
        py::object result = body.get()(wrap(std::move(func)), mod, current_context_object());
        auto expr = result_of<PyExpr>(result, *owned_name, "a passinfra.tinyir.Function");
        auto out = tinyir::downcast<tinyir::FunctionNode>(expr.expr);
        if (!out) throw py::type_error("pass '" + *owned_name + "' returned an expression that is not a Function");
        return out;
      });
  return with_required(Pass(std::move(pass)), required);
}

void unregister(PyContext* self) {
  auto& map = contexts();
  if (auto it = map.find(self->context); it != map.end() && it->second == self) map.erase(it);
}

// Leaves a scope as if an exception were propagating through it (SPEC §5.4:
// a failing exit hook is logged and dropped, the body's exception wins).
struct ExceptionInFlight {};
void leave_with_exception_in_flight(std::unique_ptr<Context::Scope> scope) {
  struct Leave {
    std::unique_ptr<Context::Scope> scope;
    ~Leave() { scope.reset(); }
  };
  try {
    Leave leave{std::move(scope)};
    throw ExceptionInFlight{};
  } catch (const ExceptionInFlight&) {
  }
}

std::vector<Instrument> to_instruments(const std::vector<py::object>& objects) {
  std::vector<Instrument> list;
  list.reserve(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    try {
      list.push_back(to_instrument(objects[i]));
    } catch (const py::type_error& e) {
      throw py::type_error("instruments[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return list;
}

std::unique_ptr<PyContext> make_context(int opt_level, std::vector<std::string> required_pass,
                                        std::vector<std::string> disabled_pass, std::vector<py::object> instruments,
                                        py::dict config) {
  auto self = std::make_unique<PyContext>();
  passinfra::PassContextOptions options;
  options.opt_level = opt_level;
  options.required_pass = std::move(required_pass);
  options.disabled_pass = std::move(disabled_pass);
  options.config = to_config(config);
  self->owned =
      std::make_unique<Context>(std::move(options), passinfra::DynamicInstruments<IR>(to_instruments(instruments)));
  self->context = self->owned.get();
  self->instruments = std::move(instruments);
  self->config = std::move(config);
  contexts()[self->context] = self.get();
  return self;
}

}  // namespace

PyContext::~PyContext() {
  // A `with` never exited (its frame was dropped): exit now, before the
  // context goes; a failing exit hook is logged and dropped.
  while (!scopes.empty()) {
    auto scope = std::move(scopes.back());
    scopes.pop_back();
    leave_with_exception_in_flight(std::move(scope));
  }
  unregister(this);
}

passinfra::PassRegistry<IR>& registry() {
  static passinfra::PassRegistry<IR>& global = []() -> passinfra::PassRegistry<IR>& {
    auto& r = passinfra::PassRegistry<IR>::global();
    tinyir::register_passes(r);
    return r;
  }();
  return global;
}

py::object current_context_object() {
  Context& context = Context::current();
  if (auto it = contexts().find(&context); it != contexts().end()) {
    return py::cast(it->second, py::return_value_policy::reference);
  }
  if (&context == &Context::thread_default()) {
    // One wrapper per thread for its default context, kept for the thread's life.
    // A Python object may outlive the thread: the wrapper is never freed
    // (one per thread that asked), and refuses use once `alive` is gone.
    thread_local const auto alive = std::make_shared<const int>(0);
    thread_local PyContext* default_wrapper = nullptr;
    if (default_wrapper == nullptr) {
      default_wrapper = new PyContext();  // NOLINT(cppcoreguidelines-owning-memory): see above
      default_wrapper->context = &context;
      default_wrapper->thread_alive = alive;
      default_wrapper->thread = std::this_thread::get_id();
      default_wrapper->thread_bound = true;
    }
    return py::cast(default_wrapper, py::return_value_policy::reference);
  }
  // A context entered by C++ code: a wrapper that does not own it.
  auto wrapper = std::make_unique<PyContext>();
  wrapper->context = &context;
  return py::cast(wrapper.release(), py::return_value_policy::take_ownership);
}

void init_transform(py::module_& m) {
  py::class_<PyPassInfo>(m, "PassInfo")
      .def(py::init([](std::string name, int opt_level, std::vector<std::string> required) {
             return PyPassInfo{std::move(name), opt_level, std::move(required)};
           }),
           py::arg("name"), py::arg("opt_level") = 0, py::arg("required") = std::vector<std::string>{})
      .def_readonly("name", &PyPassInfo::name)
      .def_readonly("opt_level", &PyPassInfo::opt_level)
      .def_readonly("required", &PyPassInfo::required)
      .def("__str__", &PyPassInfo::str)
      .def("__repr__", [](const PyPassInfo& info) {
        return "PassInfo(name=" + std::string(py::repr(py::str(info.name))) +
               ", opt_level=" + std::to_string(info.opt_level) + ")";
      });

  py::class_<Pass>(m, "Pass")
      .def(py::init([](const Pass& other) { return other; }), py::arg("other"))
      .def_property_readonly("info", [](const Pass& p) { return PyPassInfo::from(p.info()); })
      .def(
          "__call__",
          [](const Pass& p, IR mod) {
            py::gil_scoped_release release;
            return p(std::move(mod));
          },
          py::arg("mod"), "run the pass on `mod` under PassContext.current()")
      .def("__str__", [](const Pass& p) { return passinfra::print_pipeline(p); });

  m.def("make_module_pass", &make_module_pass, py::arg("fn"), py::arg("name"), py::arg("opt_level"),
        py::arg("required"));
  m.def("make_function_pass", &make_function_pass, py::arg("fn"), py::arg("name"), py::arg("opt_level"),
        py::arg("required"));
  m.def(
      "make_sequential",
      [](const std::vector<Pass>& passes, int opt_level, const std::string& name,
         const std::vector<std::string>& required) {
        passinfra::DynamicSequential<IR> seq(passes, passinfra::PassInfo(name, opt_level));
        return with_required(Pass(std::move(seq)), required);
      },
      py::arg("passes"), py::arg("opt_level"), py::arg("name"), py::arg("required"));
  m.def(
      "create_pass",
      [](const std::string& name, const py::dict& options) { return registry().create(name, to_options(options)); },
      py::arg("name"), py::arg("options") = py::dict());
  m.def(
      "parse_pipeline", [](const std::string& text) { return passinfra::parse_pipeline<IR>(text, registry()); },
      py::arg("text"));
  m.def("registered_passes", [] { return registry().names(); });

  py::class_<PyContext>(m, "PassContext")
      .def(py::init([](int opt_level, std::optional<std::vector<std::string>> required_pass,
                       std::optional<std::vector<std::string>> disabled_pass,
                       std::optional<std::vector<py::object>> instruments, std::optional<py::dict> config) {
             return make_context(opt_level, required_pass.value_or(std::vector<std::string>{}),
                                 disabled_pass.value_or(std::vector<std::string>{}),
                                 instruments.value_or(std::vector<py::object>{}), config.value_or(py::dict()));
           }),
           py::arg("opt_level") = 2, py::arg("required_pass") = py::none(), py::arg("disabled_pass") = py::none(),
           py::arg("instruments") = py::none(), py::arg("config") = py::none())
      .def_property_readonly("opt_level", [](const PyContext& self) { return self.get().opt_level(); })
      .def_property_readonly("required_pass", [](const PyContext& self) { return self.get().required_pass(); })
      .def_property_readonly("disabled_pass", [](const PyContext& self) { return self.get().disabled_pass(); })
      .def_property_readonly("config",
                             [](const PyContext& self) {
                               py::dict out;
                               for (const auto& entry : self.get().config())
                                 out[py::str(entry.key)] = from_config_value(entry.value);
                               return out;
                             })
      .def_property_readonly("instruments",
                             [](PyContext& self) {
                               // The C++ list is cleared after a failing hook (SPEC §5): so is this one.
                               if (self.get().instruments().empty()) self.instruments.clear();
                               return self.instruments;
                             })
      .def(
          "override_instruments",
          [](PyContext& self, std::optional<std::vector<py::object>> given) {
            // None: no instruments (TVM's tests pass None)
            std::vector<py::object> instruments = given.value_or(std::vector<py::object>{});
            auto list = to_instruments(instruments);
            self.instruments = std::move(instruments);
            py::gil_scoped_release release;
            self.get().override_instruments(std::move(list));
          },
          py::arg("instruments"))
      .def(
          "__enter__",
          [](PyContext& self) -> PyContext& {
            std::unique_ptr<Context::Scope> scope;
            {
              py::gil_scoped_release release;
              scope.reset(new Context::Scope(self.get().enter()));
            }
            self.scopes.push_back(std::move(scope));
            return self;
          },
          py::return_value_policy::reference)
      .def("__exit__",
           [](PyContext& self, const py::object& type, const py::object&, const py::object&) {
             if (self.scopes.empty()) throw passinfra::Error("PassContext.__exit__: the context was not entered");
             auto scope = std::move(self.scopes.back());
             self.scopes.pop_back();
             const bool in_flight = !type.is_none();
             py::gil_scoped_release release;
             if (in_flight) {
               leave_with_exception_in_flight(std::move(scope));
             } else {
               // The exit hooks; a failing one propagates (SPEC §5.2). Not
               // through unique_ptr::reset, which is noexcept.
               delete scope.release();
             }
             return false;
           })
      .def_static("current", &current_context_object, "this thread's innermost entered PassContext");
}

}  // namespace passinfra_py
