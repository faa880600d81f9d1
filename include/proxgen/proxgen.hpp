// ProxGen: image optimization with proximal algorithms, planned at compile time, run as Halide.
// One header, one namespace:  #include <proxgen/proxgen.hpp>  namespace pg = proxgen;
#pragma once

#include "proxgen/catalogue/all.hpp"  // every card: the typed spellings of cards without a node type
#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/io/image_io.hpp"
#include "proxgen/grad.hpp"
#include "proxgen/io/plot.hpp"
#include "proxgen/runtime.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"
#include "proxgen/typed/card_node.hpp"
#include "proxgen/typed/color.hpp"
#include "proxgen/typed/layout.hpp"
#include "proxgen/typed/linear.hpp"
#include "proxgen/typed/named.hpp"
#include "proxgen/typed/penalty.hpp"
#include "proxgen/typed/plan.hpp"
#include "proxgen/typed/sampling.hpp"
#include "proxgen/typed/solve.hpp"
#include "proxgen/typed/variable.hpp"
