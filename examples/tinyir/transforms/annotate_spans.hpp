// tinyir/transforms/annotate_spans.hpp — AnnotateSpans: print, then parse back.
//
// annotate_spans(mod)                parse(print(mod), "GeneratedSource"): every node
//                                    carries a span into the module's own text
//
// The result is structurally equal to the input; its nodes are new and untyped
// (run InferType after it, as TVM's AnnotateSpans does).
#pragma once

#include "tinyir/ir.hpp"
#include "tinyir/parser.hpp"
#include "tinyir/printer.hpp"

namespace tinyir {

// annotate_spans(mod)
inline Module annotate_spans(const Module& mod) { return parse(print(mod), "GeneratedSource"); }

}  // namespace tinyir
