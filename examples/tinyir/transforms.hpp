// tinyir/transforms.hpp — every tinyir transformation (pure Module → Module functions).
#pragma once

#include "tinyir/transforms/annotate_spans.hpp"
#include "tinyir/transforms/canonicalize_ops.hpp"
#include "tinyir/transforms/convert_layout.hpp"
#include "tinyir/transforms/dead_code_elimination.hpp"
#include "tinyir/transforms/eliminate_common_subexpr.hpp"
#include "tinyir/transforms/fold_constant.hpp"
#include "tinyir/transforms/fold_scale_axis.hpp"
#include "tinyir/transforms/fuse_ops.hpp"
#include "tinyir/transforms/multiply_constants.hpp"
#include "tinyir/transforms/to_a_normal_form.hpp"
