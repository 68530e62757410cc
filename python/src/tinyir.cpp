// python/src/tinyir.cpp — tinyir (examples/tinyir) bound to Python with Relay's
// spellings: IRModule, expressions, their builders, parse/print, workloads.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  if (py::hasattr(value, "shape") && py::hasattr(value, "flatten")) {
    std::vector<std::int64_t> shape = value.attr("shape").cast<std::vector<std::int64_t>>();
    std::string dt = dtype ? *dtype : std::string(py::str(value.attr("dtype")));
    std::vector<float> data = value.attr("flatten")().attr("tolist")().cast<std::vector<float>>();
    return {tinyir::make_constant(tinyir::tensor_type(std::move(shape), std::move(dt)), std::move(data))};
  }
  throw py::type_error("const(value, dtype): expected a number or an array (with .shape and .flatten()); got " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

}  // namespace

void init_tinyir(py::module_& m) {
  py::module_ t = m.def_submodule("tinyir", "tinyir bound with Relay's spellings");

  py::class_<PyExpr>(t, "Expr")
      .def_property_readonly("kind", [](const PyExpr& e) { return kind_name(e.expr->kind); })
      .def("astext", [](const PyExpr& e) { return tinyir::print(e.expr); })
      .def("__str__", [](const PyExpr& e) { return tinyir::print(e.expr); })
      .def("__eq__", [](const PyExpr& a, const PyExpr& b) { return a.expr == b.expr; })
      .def("__hash__", [](const PyExpr& e) { return std::hash<const void*>{}(e.expr.get()); })
      .def_property_readonly("name_hint", [](const PyExpr& e) { return expect<tinyir::VarNode>(e, "Var")->name; })
      .def_property_readonly("shape",
                             [](const PyExpr& e) -> py::object {
                               // a Var's annotated tensor shape, a Constant's shape (else None)
                               tinyir::Type type;
                               if (auto v = tinyir::downcast<tinyir::VarNode>(e.expr)) type = v->type_annotation;
                               if (auto c = tinyir::downcast<tinyir::ConstantNode>(e.expr)) type = c->type;
                               const tinyir::TensorType* tensor = type ? tinyir::as_tensor(type) : nullptr;
                               if (tensor == nullptr) return py::none();
                               return py::tuple(py::cast(tensor->shape));
                             })
      .def_property_readonly("op_name", [](const PyExpr& e) { return expect<tinyir::CallNode>(e, "Call")->op; })
      .def_property_readonly("args",
                             [](const PyExpr& e) {
                               std::vector<PyExpr> out;
                               for (const auto& a : expect<tinyir::CallNode>(e, "Call")->args) out.push_back({a});
                               return out;
                             })
      .def_property_readonly("params",
                             [](const PyExpr& e) {
                               std::vector<PyExpr> out;
                               for (const auto& p : expect<tinyir::FunctionNode>(e, "Function")->params)
                                 out.push_back({p});
                               return out;
                             })
      .def_property_readonly("body",
                             [](const PyExpr& e) { return PyExpr{expect<tinyir::FunctionNode>(e, "Function")->body}; });

  t.def(
      "var",
      [](std::string name, std::optional<std::vector<std::int64_t>> shape, std::string dtype) {
        tinyir::Type type = shape ? tinyir::tensor_type(std::move(*shape), std::move(dtype)) : nullptr;
        return PyExpr{tinyir::make_var(std::move(name), std::move(type))};
      },
      py::arg("name_hint"), py::arg("shape") = py::none(), py::arg("dtype") = "float32");
  t.def("const", &make_const, py::arg("value"), py::arg("dtype") = py::none());
  t.def(
      "call",
      [](std::string op, const std::vector<PyExpr>& args, const py::dict& attrs) {
        std::vector<tinyir::Expr> a;
        for (const auto& e : args) a.push_back(e.expr);
        return PyExpr{tinyir::make_call(std::move(op), std::move(a), to_attrs(attrs))};
      },
      py::arg("op"), py::arg("args"), py::arg("attrs") = py::dict());
  t.def(
      "Function",
      [](const std::vector<PyExpr>& params, const PyExpr& body) {
        std::vector<tinyir::Var> ps;
        for (const auto& p : params) ps.push_back(expect<tinyir::VarNode>(p, "Var"));
        return PyExpr{tinyir::make_function(std::move(ps), body.expr)};
      },
      py::arg("params"), py::arg("body"));

  py::class_<IR>(t, "IRModule")
      .def(py::init<>())
      .def_static(
          "from_expr",
          [](const PyExpr& e) {
            return IR{{"main", expect<tinyir::FunctionNode>(e, "Function")}};
          },
          py::arg("expr"))
      .def("__getitem__", [](const IR& mod, const std::string& name) { return PyExpr{mod[name]}; })
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
            tinyir::PrintOptions options;
            options.show_metadata = show_meta_data;
            return tinyir::print(mod, options);
          },
          py::arg("show_meta_data") = true)
      .def("__str__", [](const IR& mod) { return tinyir::print(mod); });

  t.def(
      "parse", [](const std::string& text, const std::string& source) { return tinyir::parse(text, source); },
      py::arg("text"), py::arg("source") = "from_string");
  t.def("example", &tinyir::example, "the pass-infra tutorial's module (C++ tinyir::example())");
  t.def("resnet18", &tinyir::resnet18, py::arg("bind_params") = false);
}

}  // namespace passinfra_py
