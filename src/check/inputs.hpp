// Internal: the checks of what a user hands to a solve, in one place (the sentences are
// proxgen/check/rules.hpp's): options (check_options, public, in proxgen/solve/options.hpp) and
// the data of a problem as its front end wrote it, before any rewrite rule folds, negates or
// merges it, so that a bad value is reported as given and where it was given.
#pragma once

#include <string>

#include "proxgen/image.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::check {

/// Throws proxgen::Error if img holds NaN or Inf: "<what> holds a non-finite value, inf, at (x, y)
/// = (4, 12) (...)".
void finite(const Image& img, const std::string& what);

/// Every image of the planner's input is finite: a named input is named ("input 'b'"), anonymous
/// data by its operator and role ("conv: its kernel image").
void draft_data(const plan::Draft& draft);

}  // namespace proxgen::check
