// python/src/module.cpp — passinfra._core: the module, its exceptions, and the
// bindings of the other TUs.
#include <exception>

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

  passinfra_py::init_transform(m);
  passinfra_py::init_instrument(m);
  passinfra_py::init_tinyir(m);
}
