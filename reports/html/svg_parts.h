// The pieces the chart renderers (svg.cpp, svg_time.cpp) share: the plot's frame, its numbers, the
// opening of an <svg> and its y axis.
#pragma once

#include <initializer_list>
#include <string>

namespace collbench::report::html::svg_parts {

inline constexpr double kWidth = 720, kHeight = 340;
inline constexpr double kLeft = 72, kRight = 170, kTop = 34, kBottom = 56;
inline constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

std::string number(double v);  // three significant digits
// A step of 1, 2 or 5 times a power of ten giving about `count` ticks up to `top`.
double nice_step(double top, int count);
std::string open_svg(const std::string& title, double width, double height);
// The y axis from 0 to `top`, with grid lines and its label.
std::string y_axis(double top, const std::string& label);
// A heat map's legend: a heading at (x, top), then one swatch of class h<i> per label below it.
std::string swatch_legend(double x, double top, const std::string& heading, std::initializer_list<const char*> labels);

}  // namespace collbench::report::html::svg_parts
