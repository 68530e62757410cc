// python/src/module.cpp — passinfra._core: the module, its exceptions, and the
// bindings of the other TUs.
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "common.hpp"

namespace {
PyObject* pass_error_type = nullptr;
}  // namespace

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  m.doc() = "passinfra's pass infrastructure over tinyir (pybind11); use the package `passinfra`";

  // passinfra::Error (bad input to the pass infrastructure) and tinyir::Error
  // (bad IR, type errors, parse errors) both arrive as passinfra.PassError,
  // a RuntimeError carrying the C++ message.
  auto& pass_error = py::register_exception<passinfra::Error>(m, "PassError", PyExc_RuntimeError);
  pass_error_type = pass_error.ptr();
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const tinyir::Error& e) {
      PyErr_SetString(pass_error_type, e.what());
    }
  });

  // set_log_sink(sink): passinfra's log (SPEC §9) goes to sink(level, message)
  // (level "DEBUG" ... "ERROR"), called with the GIL from any thread; None
  // restores the default sink (WARNING and above to stderr). An exception
  // raised by the sink is reported as unraisable and dropped.
  m.def(
      "set_log_sink",
      [](const std::optional<py::function>& sink) {
        if (!sink) {
          passinfra::set_log_sink({});
          return;
        }
        passinfra_py::GilRef ref(*sink);
        passinfra::set_log_sink([ref](passinfra::LogLevel level, std::string_view message) {
          py::gil_scoped_acquire gil;
          try {
            ref.get()(std::string(passinfra::to_string(level)), std::string(message));
          } catch (py::error_already_set& e) {
            e.discard_as_unraisable("passinfra log sink");
          }
        });
      },
      py::arg("sink"));

  passinfra_py::init_transform(m);
  passinfra_py::init_instrument(m);
  passinfra_py::init_tinyir(m);
}
