// tinyir/tinyir.hpp — everything: the IR, type inference, text printer and parser,
// the transformations and the workloads.
//
// tinyir is a small Relay-like IR for passinfra's examples and tests: a Module of
// named functions over tensors, immutable shared expression nodes, Relay's text
// format (printed and parsed back, with spans), and pure Module → Module
// transformations that the examples wrap as passes.
#pragma once

#include "tinyir/ir.hpp"
#include "tinyir/parser.hpp"
#include "tinyir/printer.hpp"
#include "tinyir/transforms.hpp"
#include "tinyir/type_infer.hpp"
#include "tinyir/workloads.hpp"
