// ProxGen: image optimization with proximal algorithms, planned at compile time, run as Halide.
// One header, one namespace:  #include <proxgen/proxgen.hpp>  namespace pg = proxgen;
#pragma once

#include "proxgen/dsl/color.hpp"
#include "proxgen/dsl/layout.hpp"
#include "proxgen/dsl/linear.hpp"
#include "proxgen/dsl/penalty.hpp"
#include "proxgen/dsl/sampling.hpp"
#include "proxgen/dsl/variable.hpp"
#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/io/image_io.hpp"
#include "proxgen/io/plot.hpp"
#include "proxgen/plan/plan.hpp"
#include "proxgen/runtime.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"
#include "proxgen/solve/solve.hpp"
