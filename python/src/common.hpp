// python/src/common.hpp — what the TUs of passinfra._core share.
//
// IR / Pass / Context / Instrument       tinyir::Module and the dynamic layer over it
// GilRef                                 a Python object that C++ may drop without the GIL
// PyPassInfo                             a PassInfo that owns its strings (passinfra.transform.PassInfo)
// PyExpr                                 a tinyir expression as a Python object
// PyContext                              the Python PassContext: owns (or, for a thread's default
//                                        context, refers to) a PassContext<IR>, and the Python
//                                        instrument objects it was given
// InstrumentBase                         base of the C++ instruments bound to Python (any())
// registry()                             PassRegistry<IR>::global(), tinyir's passes registered
// to_instrument(obj)                     a Python or C++ instrument as an AnyInstrument<IR>
// current_context_object()               PassContext.current() as a Python object
// init_transform / init_instrument / init_tinyir   the bindings of each TU
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "passinfra/passinfra.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace passinfra_py {

namespace py = pybind11;

using IR = tinyir::Module;
using Pass = passinfra::AnyPass<IR>;
using Context = passinfra::PassContext<IR>;
using Instrument = passinfra::AnyInstrument<IR>;

// GilRef: a shared Python object whose last owner may be C++ code running
// without the GIL (a pass or instrument list dropped in a C++ pipeline):
// the deleter takes the GIL to drop the reference.
class GilRef {
 public:
  GilRef() = default;
  explicit GilRef(py::object object)
      : object_(new py::object(std::move(object)), [](py::object* p) {
          if (Py_IsInitialized() != 0) {
            py::gil_scoped_acquire gil;
            delete p;
          } else {
            p->release();  // the interpreter is gone: nothing to drop
            delete p;
          }
        }) {}
  const py::object& get() const noexcept { return *object_; }

 private:
  std::shared_ptr<py::object> object_;
};

// PyPassInfo: passinfra.transform.PassInfo, owning its strings.
struct PyPassInfo {
  std::string name;
  int opt_level = 0;
  std::vector<std::string> required;

  static PyPassInfo from(const passinfra::PassInfo& info) {
    return {std::string(info.name), info.opt_level, {info.required.begin(), info.required.end()}};
  }
  std::string str() const {
    std::vector<std::string_view> views(required.begin(), required.end());
    return passinfra::to_string(passinfra::PassInfo(name, opt_level, views));
  }
};

// PyContext: passinfra.transform.PassContext.
struct PyContext {
  std::unique_ptr<Context> owned;  // null for a context made elsewhere (a thread's default)
  Context* context = nullptr;
  // A thread's default context (PassContext.current() outside any `with`)
  // lives as long as that thread: its wrapper is usable on that thread only,
  // and says so (passinfra.PassError) elsewhere or after the thread ended.
  std::weak_ptr<const int> thread_alive;
  std::thread::id thread{};
  bool thread_bound = false;
  std::vector<py::object> instruments;  // the Python objects given, in order
  py::dict config;
  std::vector<std::unique_ptr<Context::Scope>> scopes;  // one per `with` entered, innermost last

  PyContext() = default;
  PyContext(const PyContext&) = delete;
  // get(): the context, or passinfra::Error for a thread's default context
  // used from another thread or after its thread ended.
  Context& get() const {
    if (thread_bound && (thread_alive.expired() || std::this_thread::get_id() != thread)) {
      throw passinfra::Error(
          "PassContext: this is the default context of another thread (PassContext.current() taken there, outside "
          "any `with`), which lives and may be used only on that thread; call PassContext.current() on this thread, "
          "or create a PassContext(...) and use it in a `with`");
    }
    return *context;
  }
  PyContext& operator=(const PyContext&) = delete;
  ~PyContext();
};

// PyExpr: a tinyir expression as a Python object (tinyir's handles are
// shared_ptr<const ...>, which pybind11 cannot hold).
struct PyExpr {
  tinyir::Expr expr;
};
// One class per kind (passinfra.tinyir.expr.Call, ...); wrap(e) makes the one of e's kind.
struct PyVar : PyExpr {};
struct PyConstant : PyExpr {};
struct PyCall : PyExpr {};
struct PyLet : PyExpr {};
struct PyTuple : PyExpr {};
struct PyTupleGetItem : PyExpr {};
struct PyFunction : PyExpr {};
// An operator, as Call.op (passinfra.tinyir.Op, with .name).
struct PyOp {
  std::string name;
};
py::object wrap(tinyir::Expr e);

// InstrumentBase: a C++ instrument bound to Python.
struct InstrumentBase {
  virtual ~InstrumentBase() = default;
  virtual Instrument any() const = 0;
};

passinfra::PassRegistry<IR>& registry();
Instrument to_instrument(const py::handle& object);
py::object current_context_object();

void init_transform(py::module_& m);
void init_instrument(py::module_& m);
void init_tinyir(py::module_& m);

}  // namespace passinfra_py
