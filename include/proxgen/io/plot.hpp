// Convergence plots as self-contained SVG files (no plotting library needed): one line per
// series, axes with labelled ticks, a legend, and a log10 y-axis by default, since residuals and
// objective gaps shrink over orders of magnitude.
#pragma once

#include <string>
#include <vector>

namespace proxgen {

/// One line of a plot. If x is empty, y is plotted against 0, 1, 2, …; otherwise x and y must
/// have the same length.
struct PlotSeries {
    std::string name;
    std::vector<double> x, y;
};

/// Writes an SVG line plot to `path`. With log_y, the y-axis is log10 and points whose y is
/// non-positive are skipped; NaN and infinite points are always skipped (the line breaks there).
/// Throws proxgen::Error if the file cannot be written or a series' x and y lengths differ.
void write_convergence_svg(const std::string& path, const std::string& title,
                           const std::vector<PlotSeries>& series, bool log_y = true);

}  // namespace proxgen
