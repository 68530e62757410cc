// python/src/tinyir.cpp — tinyir (examples/tinyir) bound to Python with Relay's
// spellings: IRModule, expressions, their builders, parse/print, workloads.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>

#include <unordered_map>

#include "common.hpp"

namespace passinfra_py {

namespace {

constexpr const char* kind_name(tinyir::ExprKind kind) {
  switch (kind) {
    case tinyir::ExprKind::Var:
      return "Var";
    case tinyir::ExprKind::Constant:
      return "Constant";
    case tinyir::ExprKind::Call:
      return "Call";
    case tinyir::ExprKind::Let:
      return "Let";
    case tinyir::ExprKind::Tuple:
      return "Tuple";
    case tinyir::ExprKind::TupleGetItem:
      return "TupleGetItem";
    case tinyir::ExprKind::Function:
      return "Function";
  }
  return "Expr";
}

template <class T>
std::shared_ptr<const T> expect(const PyExpr& e, const char* what) {
  auto node = tinyir::downcast<T>(e.expr);
  if (!node) {
    throw py::type_error(std::string("expected a ") + what + "; got a " +
                         (e.expr ? kind_name(e.expr->kind) : "null expression"));
  }
  return node;
}

tinyir::AttrValue to_attr(const std::string& key, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return tinyir::AttrValue(value.cast<bool>() ? 1 : 0);
  if (py::isinstance<py::int_>(value)) return tinyir::AttrValue(value.cast<long long>());
  if (py::isinstance<py::float_>(value)) return tinyir::AttrValue(value.cast<double>());
  if (py::isinstance<py::str>(value)) return tinyir::AttrValue(value.cast<std::string>());
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    tinyir::Ints ints;
    for (const auto& item : value) {
      if (!py::isinstance<py::int_>(item)) throw py::type_error("attribute '" + key + "': a list attribute holds ints");
      ints.push_back(item.cast<std::int64_t>());
    }
    return tinyir::AttrValue(std::move(ints));
  }
  throw py::type_error("attribute '" + key + "': expected int, float, str or a list of int");
}

tinyir::Attrs to_attrs(const py::dict& attrs) {
  tinyir::Attrs out;
  for (const auto& [key, value] : attrs) {
    if (value.is_none()) continue;  // Relay's "not given"
    std::string k = py::str(key);
    out.set(k, to_attr(k, value));
  }
  return out;
}

// const(value, dtype): a Python number (a scalar with data) or a nested list /
// an object with .shape and .flatten() (numpy): a tensor with data.
PyExpr make_const(const py::object& value, std::optional<std::string> dtype) {
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return {tinyir::make_scalar(value.cast<float>(),
                                dtype.value_or(py::isinstance<py::int_>(value) ? "int32" : "float32"))};
  }
  if (py::hasattr(value, "shape") && py::hasattr(value, "dtype")) {
    // an array (numpy): its values as float32, row-major (tinyir's constants hold floats)
    std::vector<std::int64_t> shape = value.attr("shape").cast<std::vector<std::int64_t>>();
    std::string dt = dtype ? *dtype : std::string(py::str(value.attr("dtype")));
    auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(value);
    if (!array) throw py::type_error("const(value): the array cannot be read as float32");
    std::vector<float> data(array.data(), array.data() + array.size());
    return {tinyir::make_constant(tinyir::tensor_type(std::move(shape), std::move(dt)), std::move(data))};
  }
  throw py::type_error("const(value, dtype): expected a number or an array (with .shape and .flatten()); got " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

// The text Relay prints: `/* ty=... span=... */` after each binding whose type
// has been inferred (none before InferType) or that has a span (AnnotateSpans,
// parse), the metadata section.
tinyir::PrintOptions typed_text() {
  tinyir::PrintOptions options;
  options.show_types = true;
  options.show_spans = true;
  return options;
}

template <class T>
const T& node(const PyExpr& e) {
  return *expect<T>(e, kind_name(T::kKind));
}

py::object shape_of(const tinyir::Type& type) {
  const tinyir::TensorType* tensor = tinyir::as_tensor(type);
  if (tensor == nullptr) return py::none();
  return py::tuple(py::cast(tensor->shape));
}
py::object dtype_of(const tinyir::Type& type) {
  const tinyir::TensorType* tensor = tinyir::as_tensor(type);
  if (tensor == nullptr) return py::none();
  return py::str(tensor->dtype);
}

py::dict attrs_dict(const tinyir::Attrs& attrs) {
  py::dict out;
  for (const auto& [key, value] : attrs) {
    py::object v;
    if (value.is_int()) {
      v = py::int_(value.as_int());
    } else if (value.is_double()) {
      v = py::float_(value.as_double());
    } else if (value.is_string()) {
      v = py::str(value.as_string());
    } else {
      v = py::tuple(py::cast(value.as_ints()));
    }
    out[py::str(key)] = v;
  }
  return out;
}

py::list wrap_all(const std::vector<tinyir::Expr>& exprs) {
  py::list out;
  for (const auto& e : exprs) out.append(wrap(e));
  return out;
}

// bind_params_by_name(func, params): Relay's: the parameters named in `params`
// replaced by constants (a value: a Constant, a number or an array).
py::object bind_params_by_name(const PyExpr& func, const py::dict& params) {
  const auto fn = expect<tinyir::FunctionNode>(func, "Function");
  std::unordered_map<const tinyir::VarNode*, tinyir::Expr> binds;
  std::vector<tinyir::Var> kept;
  for (const tinyir::Var& p : fn->params) {
    py::str name(p->name);
    if (!params.contains(name)) {
      kept.push_back(p);
      continue;
    }
    py::object value = params[name];
    tinyir::Expr bound = py::isinstance<PyExpr>(value)
                             ? value.cast<const PyExpr&>().expr
                             : make_const(value, dtype_of(p->type_annotation).cast<std::optional<std::string>>()).expr;
    binds.emplace(p.get(), std::move(bound));
  }
  tinyir::Expr body = tinyir::substitute(fn->body, binds);
  return wrap(tinyir::make_function(std::move(kept), std::move(body), fn->ret_type, fn->attrs));
}

}  // namespace

py::object wrap(tinyir::Expr e) {
  if (!e) return py::none();
  switch (e->kind) {
    case tinyir::ExprKind::Var:
      return py::cast(PyVar{{std::move(e)}});
    case tinyir::ExprKind::Constant:
      return py::cast(PyConstant{{std::move(e)}});
    case tinyir::ExprKind::Call:
      return py::cast(PyCall{{std::move(e)}});
    case tinyir::ExprKind::Let:
      return py::cast(PyLet{{std::move(e)}});
    case tinyir::ExprKind::Tuple:
      return py::cast(PyTuple{{std::move(e)}});
    case tinyir::ExprKind::TupleGetItem:
      return py::cast(PyTupleGetItem{{std::move(e)}});
    case tinyir::ExprKind::Function:
      return py::cast(PyFunction{{std::move(e)}});
  }
  return py::cast(PyExpr{std::move(e)});
}

void init_tinyir(py::module_& m) {
  py::module_ t = m.def_submodule("tinyir", "tinyir bound with Relay's spellings");

  // Expressions: Expr and one subclass per kind (relay.expr's classes); an
  // expression coming from C++ is made an object of its kind's class (wrap).
  py::class_<PyExpr>(t, "Expr")
      .def_property_readonly("kind", [](const PyExpr& e) { return kind_name(e.expr->kind); })
      .def("astext", [](const PyExpr& e) { return tinyir::print(e.expr, typed_text()); })
      .def("__str__", [](const PyExpr& e) { return tinyir::print(e.expr, typed_text()); })
      .def("__eq__", [](const PyExpr& a, const PyExpr& b) { return a.expr == b.expr; })
      .def("__hash__", [](const PyExpr& e) { return std::hash<const void*>{}(e.expr.get()); })
      .def("same_as", [](const PyExpr& a, const PyExpr& b) { return a.expr == b.expr; });

  py::class_<PyOp>(t, "Op")
      .def_readonly("name", &PyOp::name)
      .def("__str__", [](const PyOp& op) { return op.name; })
      .def("__eq__", [](const PyOp& a, const PyOp& b) { return a.name == b.name; })
      .def("__hash__", [](const PyOp& op) { return std::hash<std::string>{}(op.name); });

  py::class_<PyVar, PyExpr>(t, "Var")
      .def_property_readonly("name_hint", [](const PyVar& e) { return node<tinyir::VarNode>(e).name; })
      .def_property_readonly("shape", [](const PyVar& e) { return shape_of(node<tinyir::VarNode>(e).type_annotation); })
      .def_property_readonly("dtype",
                             [](const PyVar& e) { return dtype_of(node<tinyir::VarNode>(e).type_annotation); });
  py::class_<PyConstant, PyExpr>(t, "Constant")
      .def_property_readonly("shape", [](const PyConstant& e) { return shape_of(node<tinyir::ConstantNode>(e).type); })
      .def_property_readonly("dtype", [](const PyConstant& e) { return dtype_of(node<tinyir::ConstantNode>(e).type); })
      .def_property_readonly("has_data",
                             [](const PyConstant& e) { return node<tinyir::ConstantNode>(e).data.has_value(); });
  py::class_<PyCall, PyExpr>(t, "Call")
      .def_property_readonly("op",
                             [](const PyCall& e) -> py::object {
                               const auto& call = node<tinyir::CallNode>(e);
                               if (call.fn) return wrap(call.fn);  // a call of a function value: no .name
                               return py::cast(PyOp{call.op});
                             })
      .def_property_readonly("args", [](const PyCall& e) { return wrap_all(node<tinyir::CallNode>(e).args); })
      .def_property_readonly("attrs", [](const PyCall& e) { return attrs_dict(node<tinyir::CallNode>(e).attrs); });
  py::class_<PyLet, PyExpr>(t, "Let")
      .def(py::init([](const PyExpr& var, const PyExpr& value, const PyExpr& body) {
             return PyLet{{tinyir::make_let(expect<tinyir::VarNode>(var, "Var"), value.expr, body.expr)}};
           }),
           py::arg("var"), py::arg("value"), py::arg("body"))
      .def_property_readonly("var", [](const PyLet& e) { return wrap(node<tinyir::LetNode>(e).var); })
      .def_property_readonly("value", [](const PyLet& e) { return wrap(node<tinyir::LetNode>(e).value); })
      .def_property_readonly("body", [](const PyLet& e) { return wrap(node<tinyir::LetNode>(e).body); });
  py::class_<PyTuple, PyExpr>(t, "Tuple")
      .def(py::init([](const std::vector<PyExpr>& fields) {
             std::vector<tinyir::Expr> f;
             for (const auto& e : fields) f.push_back(e.expr);
             return PyTuple{{tinyir::make_tuple_expr(std::move(f))}};
           }),
           py::arg("fields"))
      .def_property_readonly("fields", [](const PyTuple& e) { return wrap_all(node<tinyir::TupleNode>(e).fields); });
  py::class_<PyTupleGetItem, PyExpr>(t, "TupleGetItem")
      .def(py::init([](const PyExpr& tuple, int index) {
             return PyTupleGetItem{{tinyir::make_tuple_get_item(tuple.expr, index)}};
           }),
           py::arg("tuple_value"), py::arg("index"))
      .def_property_readonly("tuple_value",
                             [](const PyTupleGetItem& e) { return wrap(node<tinyir::TupleGetItemNode>(e).tuple); })
      .def_property_readonly("index", [](const PyTupleGetItem& e) { return node<tinyir::TupleGetItemNode>(e).index; });
  py::class_<PyFunction, PyExpr>(t, "Function")
      .def(py::init([](const std::vector<PyExpr>& params, const PyExpr& body) {
             std::vector<tinyir::Var> ps;
             for (const auto& p : params) ps.push_back(expect<tinyir::VarNode>(p, "Var"));
             return PyFunction{{tinyir::make_function(std::move(ps), body.expr)}};
           }),
           py::arg("params"), py::arg("body"))
      .def_property_readonly("params",
                             [](const PyFunction& e) {
                               py::list out;
                               for (const auto& p : node<tinyir::FunctionNode>(e).params) out.append(wrap(p));
                               return out;
                             })
      .def_property_readonly("body", [](const PyFunction& e) { return wrap(node<tinyir::FunctionNode>(e).body); })
      .def_property_readonly("attrs",
                             [](const PyFunction& e) { return attrs_dict(node<tinyir::FunctionNode>(e).attrs); });

  t.def(
      "post_order_visit",
      [](const PyExpr& e, const py::function& fn) {
        tinyir::post_order_visit(e.expr, [&](const tinyir::Expr& n) { fn(wrap(n)); });
      },
      py::arg("expr"), py::arg("fvisit"));
  t.def("bind_params_by_name", &bind_params_by_name, py::arg("func"), py::arg("params"));
  t.def(
      "free_vars",
      [](const PyExpr& e) {
        py::list out;
        for (const auto& v : tinyir::free_vars(e.expr)) out.append(wrap(v));
        return out;
      },
      py::arg("expr"));

  // Rebuilding nodes (ExprMutator, passinfra/tinyir/expr_functor.py): each keeps
  // what it is not given (op, attributes, annotations, span) from `old`.
  t.def(
      "call_with_args",
      [](const PyCall& old, const py::object& fn, const std::vector<PyExpr>& args) {
        const auto& call = node<tinyir::CallNode>(old);
        std::vector<tinyir::Expr> a;
        for (const auto& e : args) a.push_back(e.expr);
        if (!call.fn) return wrap(tinyir::make_call(call.op, std::move(a), call.attrs, call.span));
        return wrap(tinyir::make_call(fn.cast<const PyExpr&>().expr, std::move(a), call.span));
      },
      py::arg("old"), py::arg("fn"), py::arg("args"));
  t.def(
      "function_with",
      [](const PyFunction& old, const std::vector<PyExpr>& params, const PyExpr& body) {
        const auto& fn = node<tinyir::FunctionNode>(old);
        std::vector<tinyir::Var> ps;
        for (const auto& p : params) ps.push_back(expect<tinyir::VarNode>(p, "Var"));
        return wrap(tinyir::make_function(std::move(ps), body.expr, fn.ret_type, fn.attrs, fn.span));
      },
      py::arg("old"), py::arg("params"), py::arg("body"));

  t.def(
      "var",
      [](std::string name, std::optional<std::vector<std::int64_t>> shape, std::string dtype) {
        tinyir::Type type = shape ? tinyir::tensor_type(std::move(*shape), std::move(dtype)) : nullptr;
        return wrap(tinyir::make_var(std::move(name), std::move(type)));
      },
      py::arg("name_hint"), py::arg("shape") = py::none(), py::arg("dtype") = "float32");
  t.def(
      "const",
      [](const py::object& value, std::optional<std::string> dtype) {
        return wrap(make_const(value, std::move(dtype)).expr);
      },
      py::arg("value"), py::arg("dtype") = py::none());
  t.def(
      "call",
      [](std::string op, const std::vector<PyExpr>& args, const py::dict& attrs) {
        std::vector<tinyir::Expr> a;
        for (const auto& e : args) a.push_back(e.expr);
        return wrap(tinyir::make_call(std::move(op), std::move(a), to_attrs(attrs)));
      },
      py::arg("op"), py::arg("args"), py::arg("attrs") = py::dict());
  py::class_<IR>(t, "IRModule")
      .def(py::init<>())
      .def_static(
          "from_expr",
          [](const PyExpr& e) {
            // A function is @main as it is; another expression becomes the body
            // of one whose parameters are its free variables (as Relay's from_expr).
            if (auto fn = tinyir::downcast<tinyir::FunctionNode>(e.expr)) return IR{{"main", fn}};
            return IR{{"main", tinyir::make_function(tinyir::free_vars(e.expr), e.expr)}};
          },
          py::arg("expr"))
      .def("__getitem__", [](const IR& mod, const std::string& name) { return wrap(mod[name]); })
      .def("__setitem__",
           [](IR& mod, std::string name, const PyExpr& fn) {
             mod.update(std::move(name), expect<tinyir::FunctionNode>(fn, "Function"));
           })
      .def("__contains__", [](const IR& mod, const std::string& name) { return mod.contains(name); })
      .def("__len__", [](const IR& mod) { return mod.size(); })
      .def_property_readonly("functions",
                             [](const IR& mod) {
                               std::vector<std::string> names;
                               for (const auto& [name, fn] : mod) names.push_back(name);
                               return names;
                             })
      .def(
          "astext",
          [](const IR& mod, bool show_meta_data) {
            tinyir::PrintOptions options = typed_text();
            options.show_metadata = show_meta_data;
            return tinyir::print(mod, options);
          },
          py::arg("show_meta_data") = true)
      .def("__str__", [](const IR& mod) { return tinyir::print(mod, typed_text()); });

  t.def(
      "parse", [](const std::string& text, const std::string& source) { return tinyir::parse(text, source); },
      py::arg("text"), py::arg("source") = "from_string");
  t.def("example", &tinyir::example, "the pass-infra tutorial's module (C++ tinyir::example())");
  t.def("resnet18", &tinyir::resnet18, py::arg("bind_params") = false);
}

}  // namespace passinfra_py
