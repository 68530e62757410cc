// tinyir/ir.hpp — the IR itself: types, attributes, operators, expressions,
// modules, traversal and analysis (everything but inference, text and transforms).
#pragma once

#include "tinyir/analysis.hpp"
#include "tinyir/attrs.hpp"
#include "tinyir/builders.hpp"
#include "tinyir/error.hpp"
#include "tinyir/expr.hpp"
#include "tinyir/functor.hpp"
#include "tinyir/module.hpp"
#include "tinyir/op_registry.hpp"
#include "tinyir/type.hpp"
