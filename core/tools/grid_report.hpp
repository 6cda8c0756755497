#pragma once
// What `distgrid info` and `distgrid sample` print about a grid (grid_report.cpp).
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/grid.hpp"

namespace distgrid::tools {

/// Storage, h, band, the bound on the stored values, their range, brick counts and
/// extent, world box and memory, at full precision (the keys `info --json` prints).
template <class S>
nlohmann::json grid_summary(const Grid<S>& grid);

/// The summary (with "file" and "origin" added) as the lines `info` prints.
std::string describe_grid(const nlohmann::json& info);

/// Where a sample's value comes from: the clamp, or absent or inside bricks among
/// its eight corner nodes.
struct SampleMarks {
  bool clamped = false;  ///< |value| = band*h: the surface is at least that far
  bool absent = false;   ///< a corner lies in an absent brick (reads +band*h)
  bool inside = false;   ///< a corner lies in an inside brick (reads -band*h)
};

template <class S>
SampleMarks sample_marks(const Grid<S>& grid, const std::array<double, 3>& p, double value);

/// One line per point: value (17 significant digits), the gradient with `gradient`,
/// and the marks ("clamped,absent", or "-"). Values come from Grid::sample_many.
template <class S>
void write_samples(const Grid<S>& grid, const std::vector<std::array<double, 3>>& points, bool gradient, std::FILE* out);

/// Value and gradient at one point, 6 significant digits and hex-float, with notes.
template <class S>
void print_sample(const Grid<S>& grid, const std::array<double, 3>& p, std::FILE* out);

}  // namespace distgrid::tools
