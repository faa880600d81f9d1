// A small SVG line-plot writer for convergence histories. It computes "nice" tick positions
// (1, 2 or 5 × 10^k apart; whole decades on a log axis), maps data to pixels, and emits one
// <path> per series, broken wherever a point cannot be drawn (NaN, or y <= 0 on a log axis).
#include "proxgen/io/plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "proxgen/error.hpp"

namespace proxgen {
namespace {

// Canvas geometry in SVG user units. The right margin holds the legend.
constexpr double canvas_w = 800, canvas_h = 480;
constexpr double left = 80, right = canvas_w - 210, top = 48, bottom = canvas_h - 56;

// matplotlib's tab10: ten colours chosen to stay distinguishable; more series get golden-angle hues.
std::string colour(std::size_t i) {
    static const char* tab10[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    if (i < 10) return tab10[i];
    return fmt::format("hsl({:.0f},65%,42%)", std::fmod(double(i) * 137.508, 360.0));
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

struct Axis {
    double lo = 0, hi = 1;        // in plotted units (log10(y) on a log axis)
    std::vector<double> ticks;    // labelled ticks, plotted units
    std::vector<double> minor;    // unlabelled ticks (2..9 × 10^k on a log axis)
};

// Linear axis covering [lo, hi] with about six ticks at multiples of 1, 2 or 5 × 10^k.
Axis linear_axis(double lo, double hi) {
    if (!(hi > lo)) {  // a single value (or none): centre it in a unit-wide window
        const double pad = lo == 0 ? 1.0 : std::abs(lo) * 0.5;
        lo -= pad;
        hi += pad;
    }
    const double raw = (hi - lo) / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / mag;
    const double step = (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
    Axis a;
    a.lo = std::floor(lo / step) * step;
    a.hi = std::ceil(hi / step) * step;
    for (double t = a.lo; t <= a.hi + step * 1e-6; t += step)
        a.ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);  // no "-1.4e-17" labels
    return a;
}

// Log axis over whole decades; lo and hi are log10 values.
Axis log_axis(double lo, double hi) {
    Axis a;
    a.lo = std::floor(lo);
    a.hi = std::ceil(hi);
    if (a.hi <= a.lo) a.hi = a.lo + 1;
    const int decades = int(a.hi - a.lo);
    const int every = std::max(1, (decades + 7) / 8);  // at most ~8 labels
    for (int d = int(a.lo); d <= int(a.hi); ++d) {
        if ((d - int(a.lo)) % every == 0) a.ticks.push_back(d);
        if (decades <= 6 && d < int(a.hi))
            for (int m = 2; m <= 9; ++m) a.minor.push_back(d + std::log10(double(m)));
    }
    return a;
}

std::string log_label(double decade) {
    return fmt::format("10<tspan dy=\"-7\" font-size=\"10\">{}</tspan>", int(decade));
}

}  // namespace

void write_convergence_svg(const std::string& path, const std::string& title,
                           const std::vector<PlotSeries>& series, bool log_y) {
    // Which points can be drawn, in plotted units.
    auto x_at = [](const PlotSeries& s, std::size_t i) { return s.x.empty() ? double(i) : s.x[i]; };
    auto drawable = [&](const PlotSeries& s, std::size_t i, double& px, double& py) {
        px = x_at(s, i);
        py = s.y[i];
        if (!std::isfinite(px) || !std::isfinite(py) || (log_y && py <= 0)) return false;
        if (log_y) py = std::log10(py);
        return true;
    };

    constexpr double inf = std::numeric_limits<double>::infinity();
    double xmin = inf, xmax = -inf, ymin = inf, ymax = -inf;
    for (const auto& s : series) {
        if (!s.x.empty() && s.x.size() != s.y.size())
            fail("write_convergence_svg('{}'): series '{}' has {} x values but {} y values", path, s.name,
                 s.x.size(), s.y.size());
        for (std::size_t i = 0; i < s.y.size(); ++i) {
            double px, py;
            if (!drawable(s, i, px, py)) continue;
            xmin = std::min(xmin, px), xmax = std::max(xmax, px);
            ymin = std::min(ymin, py), ymax = std::max(ymax, py);
        }
    }
    if (xmin > xmax) xmin = 0, xmax = 1;  // nothing drawable: still draw empty axes
    if (ymin > ymax) ymin = 0, ymax = log_y ? 0 : 1;
    const Axis ax = linear_axis(xmin, xmax);
    const Axis ay = log_y ? log_axis(ymin, ymax) : linear_axis(ymin, ymax);
    auto to_px = [&](double x) { return left + (x - ax.lo) / (ax.hi - ax.lo) * (right - left); };
    auto to_py = [&](double y) { return bottom - (y - ay.lo) / (ay.hi - ay.lo) * (bottom - top); };

    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"{2}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">{3}</text>\n",
        canvas_w, canvas_h, (left + right) / 2, xml_escape(title));

    // Grid and ticks first, so the data lines are drawn over them.
    for (double t : ax.ticks) {
        const double x = to_px(t);
        svg += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"#e6e6e6\"/>\n"
                           "<line x1=\"{0:.2f}\" y1=\"{2}\" x2=\"{0:.2f}\" y2=\"{3}\" stroke=\"black\"/>\n"
                           "<text x=\"{0:.2f}\" y=\"{4}\" text-anchor=\"middle\">{5:g}</text>\n",
                           x, top, bottom, bottom + 5, bottom + 20, t);
    }
    for (double t : ay.minor)
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.2f}\" x2=\"{2}\" y2=\"{1:.2f}\" stroke=\"black\"/>\n",
                           left - 3, to_py(t), left);
    for (double t : ay.ticks) {
        const double y = to_py(t);
        const std::string label = log_y ? log_label(t) : fmt::format("{:g}", t);
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.2f}\" x2=\"{2}\" y2=\"{1:.2f}\" stroke=\"#e6e6e6\"/>\n"
                           "<line x1=\"{3}\" y1=\"{1:.2f}\" x2=\"{0}\" y2=\"{1:.2f}\" stroke=\"black\"/>\n"
                           "<text x=\"{4}\" y=\"{5:.2f}\" text-anchor=\"end\">{6}</text>\n",
                           left, y, right, left - 6, left - 9, y + 4, label);
    }
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n",
                       left, top, right - left, bottom - top);

    // One path per series; "M" starts a new piece after a skipped point. A piece of a single
    // point would be invisible as a path, so it gets a dot.
    for (std::size_t k = 0; k < series.size(); ++k) {
        const PlotSeries& s = series[k];
        std::string d, dots;
        std::size_t run = 0;
        double last_x = 0, last_y = 0;
        auto end_run = [&] {
            if (run == 1)
                dots += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"2.5\" fill=\"{}\"/>\n", last_x,
                                    last_y, colour(k));
            run = 0;
        };
        for (std::size_t i = 0; i < s.y.size(); ++i) {
            double px, py;
            if (!drawable(s, i, px, py)) {
                end_run();
                continue;
            }
            last_x = to_px(px), last_y = to_py(py);
            d += fmt::format("{}{:.2f} {:.2f} ", run == 0 ? "M" : "L", last_x, last_y);
            ++run;
        }
        end_run();
        if (!d.empty())
            svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" "
                               "stroke-linejoin=\"round\"/>\n", d, colour(k));
        svg += dots;
    }

    // Legend to the right of the plot area.
    for (std::size_t k = 0; k < series.size(); ++k) {
        const double y = top + 10 + 20 * double(k);
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2.5\"/>\n"
                           "<text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                           right + 14, y, right + 40, colour(k), right + 46, y + 4, xml_escape(series[k].name));
    }
    svg += "</svg>\n";

    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) fail("cannot open '{}' for writing: {}", path, std::strerror(errno));
    if (std::fwrite(svg.data(), 1, svg.size(), f.get()) != svg.size() || std::fclose(f.release()) != 0)
        fail("error while writing '{}': {}", path, std::strerror(errno));
}

}  // namespace proxgen
